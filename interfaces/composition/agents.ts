import { AgentService } from '../../application/agents/agent-service';
import { JobSignal } from '../../application/agents/job-signal';
import { ScanLifecycle } from '../../application/scans/scan-lifecycle';
import { ScanQueueSignal } from '../../application/scans/queue-signal';
import { SqlAgentContacts } from '../../infrastructure/agents/sql-agent-contacts';
import { NaclAgentCrypto } from '../../infrastructure/crypto/agent-keys';
import { AgentQueries } from '../../projections/agents/queries';
import { ScanTargetLookup } from '../../projections/targets/scan-target-lookup';
import { Core } from './core';
import { TargetsContext } from './targets';

/**
 * Remote agents (issue #12, ADR 0017): the protocol's service over the scans' own lifecycle, the
 * agents read model, the contacts table, tweetnacl for signatures and sealed boxes, and one job
 * signal per instance waking the long polls. Credentials are unsealed by the control plane only
 * when ENCRYPTION_KEY is set, then sealed again to the agent.
 */
export function composeAgents(core: Core, targets: TargetsContext, scans: { scanLifecycle: ScanLifecycle; scanQueue: ScanQueueSignal }) {
  const agentQueries = new AgentQueries(core.db, new ScanTargetLookup(core.db));
  const lifecycle = scans.scanLifecycle;
  // One query while nothing is claimable: nothing for a credential holder means nothing for anybody.
  const signal = new JobSignal(async () => {
    const credentialed = await lifecycle.claimableSignature(true);
    return { credentialed, plain: credentialed === null ? null : await lifecycle.claimableSignature(false) };
  }, 1000,
    (e) => core.log.error('Looking for claimable scans for waiting agents failed', { error: (e as Error)?.stack ?? String(e) }));
  // A scan requested or ended on this instance wakes the waiting polls at once (the probe looks now).
  scans.scanQueue.subscribe(() => signal.poke());
  const agents = new AgentService(core.commands, agentQueries, new SqlAgentContacts(core.db), lifecycle,
    core.config.encryptionKey !== null ? targets.cloneCredentials : null, new NaclAgentCrypto(), core.clock, signal, core.log, core.config.scans.agentReportsAtOnce);
  return { agents, agentQueries, agentJobSignal: signal };
}
