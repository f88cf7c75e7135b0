import { refuse } from '../shared/decider';
import type { Triage } from './commands';
import type { TriageDecided, TriageEvent, TriageRequested } from './events';
import { settlingWaits } from './four-eyes';
import { isNotAffectedJustification, NOT_AFFECTED_JUSTIFICATIONS, type NotAffectedJustification } from './justification';
import { addDays, requireExpiresInDays } from './review-date';
import type { TriageState } from './state';
import { isSettling, isTriageStatus, type DecidableStatus } from './status';

interface ValidTriage {
  status: DecidableStatus;
  justification: NotAffectedJustification | null;
  comment: string | null;
  reviewDate: string | null;
}

/**
 * The body rules of POST /issues/{id}/triage (400 before any state is consulted):
 * - will_not_fix needs expires_in_days 1..3650 and takes no justification (spec 1 §4.5);
 * - expires_in_days with any other status is refused rather than ignored: a review date only
 *   exists for will_not_fix, and a person who believes they set one must hear otherwise;
 * - a justification belongs to not_affected alone and comes from the CycloneDX vocabulary;
 *   not_affected without one is allowed (VEX then reads it as under investigation).
 */
function validate(command: Triage): ValidTriage {
  // Typed, but read as it arrived: the HTTP schema is the first guard, this is the one the domain owns.
  const status: unknown = command.status;
  const now = command.now;
  const justification = command.justification ?? null;
  const expiresInDays = command.expiresInDays ?? null;
  if (!isTriageStatus(status)) throw refuse.invalid(`Unknown triage status ${JSON.stringify(status)}`);
  if (status === 'pending_approval') {
    throw refuse.invalid('pending_approval is reached by asking for a settling status under four-eyes; it cannot be chosen');
  }
  if (status === 'will_not_fix') {
    if (justification !== null) throw refuse.invalid('will_not_fix takes no justification');
    return { status, justification: null, comment: command.comment ?? null, reviewDate: addDays(now, requireExpiresInDays(expiresInDays)) };
  }
  if (expiresInDays !== null) throw refuse.invalid('expires_in_days applies to will_not_fix only', { field: 'expires_in_days' });
  if (justification !== null) {
    if (status !== 'not_affected') throw refuse.invalid('A justification applies to not_affected only', { field: 'justification' });
    if (!isNotAffectedJustification(justification)) {
      throw refuse.invalid(`Unknown justification ${JSON.stringify(justification)}`, {
        field: 'justification',
        allowed: [...NOT_AFFECTED_JUSTIFICATIONS],
      });
    }
  }
  return { status, justification, comment: command.comment ?? null, reviewDate: null };
}

/** §3.2 row "any --triage with a settling status, four-eyes on--> pending_approval" (FOUR_EYES.Triage); otherwise applied directly. */
export function decideTriage(command: Triage, state: TriageState): TriageEvent[] {
  const { status, justification, comment, reviewDate } = validate(command);
  const previousStatus = state.triageStatus;
  const at = command.now.toISOString();
  if (isSettling(status) && settlingWaits(command)) {
    const requested: TriageRequested = {
      type: 'TriageRequested',
      data: { requestedStatus: status, previousStatus, justification, comment, reviewDate, requestedBy: command.actor, at },
    };
    return [requested];
  }
  const decided: TriageDecided = {
    type: 'TriageDecided',
    data: { status, previousStatus, justification, comment, reviewDate, actor: command.actor, at },
  };
  return [decided];
}
