import type { SealedSecret } from '../credentials/credential';
import { assertNever, Decider, DomainEvent, refuse } from '../shared/decider';
import { checkEndpoint, SiemProtocol } from './endpoint';
import { MinimumSeverity } from './signatures';

/**
 * The SIEM export's configuration (spec 2 §2.8, §4.5, §5), one stream `siem-config`. Every PUT
 * records the whole configuration as it now stands (SiemExportConfigured, VGL-SEC-019), so a
 * reader never folds partial changes. The Authorization header is sealed before it reaches the
 * command (trap 6) and is dropped when the endpoint or protocol changes unless retyped; tlsCaPem
 * belongs to syslog TLS only (absent keeps it, empty removes it, switching away removes it).
 * Switching off or redirecting also records SiemExportLeft: whether VGL-SEC-028 reached the
 * collector being left (it is sent before the change is written, spec 2 §6).
 */
export interface SiemConfiguration {
  enabled: boolean;
  protocol: SiemProtocol;
  endpoint: string;
  authorization: SealedSecret | null;
  tlsCaPem: string | null;
  minimumSeverity: MinimumSeverity;
  /** Counts the times the export was switched on: queued events of an earlier switching-on are abandoned. */
  generation: number;
}

export interface ConfigureSiem {
  type: 'ConfigureSiem';
  enabled: boolean;
  protocol: SiemProtocol;
  endpoint: string;
  /** Sealed new value; '' removes; undefined keeps (unless the destination changes). */
  authorization?: SealedSecret | '';
  /** Checked PEM; '' removes; undefined keeps. */
  tlsCaPem?: string;
  minimumSeverity: MinimumSeverity;
  /** Whether VGL-SEC-028 reached the collector being left, when this switches off or redirects. */
  leaving?: { arrived: boolean; error: string | null; signalId: string };
}

export type SiemConfigEvent =
  | DomainEvent<'SiemExportConfigured', SiemConfiguration & { authorizationChanged: boolean }>
  | DomainEvent<'SiemExportLeft', { reason: LeaveReason; protocol: SiemProtocol; endpoint: string; arrived: boolean; error: string | null; signalId: string }>;

export type LeaveReason = 'switched_off' | 'redirected';

export interface SiemConfigState { config: SiemConfiguration | null }

/** What a change does to the collector being left: the table spec 2 §6 reads as (before enabled, after enabled, destination moved). */
export function leaveReason(before: SiemConfiguration | null, after: Pick<SiemConfiguration, 'enabled' | 'protocol' | 'endpoint'>): LeaveReason | null {
  if (!before?.enabled) return null;
  if (!after.enabled) return 'switched_off';
  return before.protocol !== after.protocol || before.endpoint !== after.endpoint ? 'redirected' : null;
}

function authorizationOf(c: ConfigureSiem, before: SiemConfiguration | null): SealedSecret | null {
  if (c.protocol !== 'webhook') {
    if (c.authorization) throw refuse.invalid('authorization applies to the webhook protocol only.');
    return null;
  }
  if (c.authorization === '') return null;
  if (c.authorization !== undefined) return c.authorization;
  const sameDestination = before?.protocol === 'webhook' && before.endpoint === c.endpoint;
  return sameDestination ? before.authorization : null;
}

function caOf(c: ConfigureSiem, before: SiemConfiguration | null): string | null {
  if (c.protocol !== 'syslog_tls') {
    if (c.tlsCaPem) throw refuse.invalid('tlsCaPem applies to the syslog_tls protocol only.');
    return null;
  }
  if (c.tlsCaPem === '') return null;
  return c.tlsCaPem ?? (before?.protocol === 'syslog_tls' ? before.tlsCaPem : null);
}

export const siemConfigDecider: Decider<ConfigureSiem, SiemConfigEvent, SiemConfigState> = {
  initialState: () => ({ config: null }),
  decide(c, state) {
    switch (c.type) {
      case 'ConfigureSiem': {
        checkEndpoint(c.protocol, c.endpoint);
        const before = state.config;
        const authorization = authorizationOf(c, before);
        const generation = (before?.generation ?? 0) + (c.enabled && !before?.enabled ? 1 : 0);
        const config: SiemConfiguration = {
          enabled: c.enabled, protocol: c.protocol, endpoint: c.endpoint, authorization, tlsCaPem: caOf(c, before), minimumSeverity: c.minimumSeverity, generation,
        };
        const events: SiemConfigEvent[] = [];
        const reason = leaveReason(before, config);
        if (reason) {
          if (!c.leaving) throw new Error('A change that leaves a collector needs the outcome of VGL-SEC-028.');
          events.push({ type: 'SiemExportLeft', data: { reason, protocol: before!.protocol, endpoint: before!.endpoint, ...c.leaving } });
        }
        const authorizationChanged = JSON.stringify(authorization) !== JSON.stringify(before?.authorization ?? null);
        events.push({ type: 'SiemExportConfigured', data: { ...config, authorizationChanged } });
        return events;
      }
      default:
        return assertNever(c.type);
    }
  },
  evolve(state, e) {
    if (e.type === 'SiemExportConfigured') {
      const { authorizationChanged: _, ...config } = e.data;
      return { config };
    }
    return state;
  },
};
