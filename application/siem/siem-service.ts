import { Role } from '../../domain/identity/roles';
import { ConfigureSiem, leaveReason, siemConfigDecider } from '../../domain/siem/config';
import { SiemProtocol } from '../../domain/siem/endpoint';
import { SiemSignal } from '../../domain/siem/cef';
import { MinimumSeverity, SIGNATURES } from '../../domain/siem/signatures';
import { refuse } from '../../domain/shared/decider';
import { streams } from '../../domain/shared/streams';
import { CommandHandler, RequestContext } from '../command-handler';
import { IdGenerator } from '../ports/ids';
import { SecretBox } from '../ports/secret-box';
import { SettingsReader } from '../settings/ports';
import { Destination, Outbox, SiemTransport, StoredSiemConfig } from './ports';
import { SiemDeliverer } from './siem-deliverer';

export interface SiemConfigBody {
  enabled: boolean;
  protocol: SiemProtocol;
  endpoint: string;
  authorization?: string;
  tlsCaPem?: string;
  minimumSeverity?: MinimumSeverity;
}

/** Checks that need the platform: a PEM bundle that parses, a literal address the guard refuses. */
export interface SiemChecks {
  /** The certificates normalised, or a 400 (at most 8, at most 16,384 characters, spec 2 §8). */
  caBundle(pem: string): string;
  /** Refuses on save an endpoint whose literal address or metadata name the guard never allows. */
  destinationOnSave(protocol: SiemProtocol, endpoint: string, allowPrivate: boolean): void;
}

/** Who the 028 and 999 messages name (suser). */
export interface AccountNames { usernameOf(id: number | null): Promise<string | null> }

/**
 * The SIEM export's configuration and its connection test (spec 2 §4.5, §5, §6). A change that
 * switches the export off or redirects it first sends VGL-SEC-028 to the collector being left,
 * synchronously and best effort, then records the change with whether it arrived (S2.6-08, -09);
 * the message names the account and address, never the new destination (S2.6-10).
 */
export class SiemService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly box: SecretBox,
    private readonly outbox: Outbox,
    private readonly transport: SiemTransport,
    private readonly deliverer: SiemDeliverer,
    private readonly settings: SettingsReader,
    private readonly checks: SiemChecks,
    private readonly names: AccountNames,
    private readonly ids: IdGenerator,
  ) {}

  async view(): Promise<(StoredSiemConfig & { allowPrivateDestination: boolean }) | { enabled: false; configured: false; allowPrivateDestination: boolean }> {
    const allowPrivateDestination = (await this.settings.all()).siem_allow_private_destination === true;
    const config = await this.outbox.config();
    return config ? { ...config, allowPrivateDestination } : { enabled: false, configured: false, allowPrivateDestination };
  }

  async configure(ctx: RequestContext, _roles: readonly Role[], body: SiemConfigBody) {
    const allowPrivate = (await this.settings.all()).siem_allow_private_destination === true;
    this.checks.destinationOnSave(body.protocol, body.endpoint, allowPrivate);
    let authorization: ConfigureSiem['authorization'];
    if (body.authorization !== undefined && body.authorization !== '') {
      if (body.protocol !== 'webhook') throw refuse.invalid('authorization applies to the webhook protocol only.');
      if (!this.box.canSeal) throw refuse.conflict('No ENCRYPTION_KEY is configured, so the Authorization header cannot be stored: set ENCRYPTION_KEY or ENCRYPTION_KEY_FILE and restart Vigil. Nothing was stored.');
      authorization = this.box.seal(body.authorization, streams.siemConfig);
    } else if (body.authorization === '') authorization = '';
    const tlsCaPem = body.tlsCaPem === undefined || body.tlsCaPem === '' ? body.tlsCaPem : this.checks.caBundle(body.tlsCaPem);
    const command: ConfigureSiem = {
      type: 'ConfigureSiem', enabled: body.enabled, protocol: body.protocol, endpoint: body.endpoint, authorization, tlsCaPem, minimumSeverity: body.minimumSeverity ?? 'high',
    };
    await this.commands.transact(ctx, async (attempt) => {
      const { state, revision } = await attempt.load(streams.siemConfig, siemConfigDecider);
      // Refusals first: nothing is sent to the collector being left when the change is refused.
      siemConfigDecider.decide({ ...command, leaving: { arrived: false, error: null, signalId: '' } }, state);
      const reason = leaveReason(state.config, command);
      if (reason && attempt.number === 1) command.leaving = await this.leave(ctx, reason);
      else if (reason) command.leaving ??= { arrived: false, error: 'not sent again on a retried change', signalId: this.ids.uuid() };
      attempt.record(streams.siemConfig, siemConfigDecider.decide(command, state), revision ?? 'no_stream');
    });
    return this.view();
  }

  /** VGL-SEC-028 to the collector being left, now (best effort; its outcome goes into the audit entry). */
  private async leave(ctx: RequestContext, reason: 'switched_off' | 'redirected') {
    const config = await this.outbox.config();
    const signalId = this.ids.uuid();
    if (!config) return { arrived: false, error: 'no stored configuration', signalId };
    const outcome = await this.sendNow(config, {
      signature: 'VGL-SEC-028', severity: SIGNATURES['VGL-SEC-028'].severity, outcome: 'success', act: 'SIEM_EXPORT_LEFT', rt: ctx.now.getTime(),
      suser: await this.names.usernameOf(ctx.actor), src: ctx.address ?? null, userAgent: ctx.userAgent ?? null, target: 'siem', externalId: signalId,
      msg: reason === 'switched_off' ? 'SIEM export switched off' : 'SIEM export redirected to another collector',
    });
    return { ...outcome, signalId };
  }

  /** POST /siem/test: VGL-SEC-999 to the configured collector, whatever the minimum severity (S2.6-16); audited. */
  async test(ctx: RequestContext) {
    const config = await this.outbox.config();
    if (!config) throw refuse.conflict('The SIEM export is not configured yet: PUT /siem/config first.');
    const signalId = this.ids.uuid();
    const outcome = await this.sendNow(config, {
      signature: 'VGL-SEC-999', severity: SIGNATURES['VGL-SEC-999'].severity, outcome: 'success', act: 'SIEM_TESTED', rt: ctx.now.getTime(),
      suser: await this.names.usernameOf(ctx.actor), src: ctx.address ?? null, userAgent: ctx.userAgent ?? null, target: 'siem', externalId: signalId,
      msg: 'SIEM connector health check',
    });
    await this.commands.appendAll([{
      stream: streams.siemTests, expectedRevision: 'any',
      events: [{ type: 'SiemTestSent', data: { protocol: config.protocol, endpoint: config.endpoint, signalId, ...outcome } }],
    }], ctx);
    return { signature: 'VGL-SEC-999', externalId: signalId, protocol: config.protocol, endpoint: config.endpoint, ...outcome };
  }

  private async sendNow(config: StoredSiemConfig, signal: SiemSignal): Promise<{ arrived: boolean; error: string | null }> {
    let destination: Destination;
    try {
      destination = await this.deliverer.destination(config);
      await this.transport.send(destination, [this.deliverer.message({ ...signal, signature: signal.signature as never, generation: 0, attempts: 0 })]);
      return { arrived: true, error: null };
    } catch (error) {
      return { arrived: false, error: (error as Error).message.slice(0, 1000) };
    }
  }
}
