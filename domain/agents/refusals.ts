import type { DomainEvent } from '../shared/decider';

/**
 * Refusals an agent's report or announcement meets, audited with their SIEM signature (spec 1 §6):
 * records of their own on the `agent-refusals` stream, appended with the 403 they answer.
 */
export const RESULT_REFUSED_SIEM = { signature: 'VGL-SEC-015', name: 'Agent result refused' } as const;
export const SEALING_KEY_REFUSED_SIEM = { signature: 'VGL-SEC-020', name: 'Agent sealing key refused' } as const;

export type AgentResultRefused = DomainEvent<'AgentResultRefused', {
  agentId: number; scanId: number; attempt: number | null; report: 'result' | 'failure'; reason: string;
  audit: 'AGENT_RESULT_REFUSED'; siem: typeof RESULT_REFUSED_SIEM;
}>;
export type AgentSealingKeyRefused = DomainEvent<'AgentSealingKeyRefused', {
  agentId: number; reason: string; audit: 'AGENT_SEALING_KEY_REFUSED'; siem: typeof SEALING_KEY_REFUSED_SIEM;
}>;
export type AgentRefusalEvent = AgentResultRefused | AgentSealingKeyRefused;
