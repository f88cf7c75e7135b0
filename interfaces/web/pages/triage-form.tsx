import { useState } from 'preact/hooks';
import { Field } from '../ui';

export const STATUSES = ['under_review', 'affected', 'not_affected', 'will_not_fix', 'fixed'] as const;
export const JUSTIFICATIONS = ['code_not_present', 'code_not_reachable', 'requires_environment', 'protected_by_mitigating_control'] as const;

/**
 * The fields of one decision with the body rules of spec 1 §4.5 shown as they apply: a
 * justification belongs to not_affected (one of the CycloneDX ones), will_not_fix needs a review
 * date in days (1..3650) and takes no justification. The server still checks each rule.
 */
export function DecisionFields() {
  const [status, setStatus] = useState<string>('affected');
  return (
    <div class="filters">
      <Field label="Decision">{(id) => (
        <select id={id} name="status" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
          {STATUSES.map((s) => <option value={s}>{s.replace(/_/g, ' ')}</option>)}
        </select>
      )}</Field>
      {status === 'not_affected' && (
        <Field label="Justification" hint="Required: why the issue does not apply.">{(id, d) => (
          <select id={id} name="justification" required aria-describedby={d}><option value="">choose…</option>{JUSTIFICATIONS.map((j) => <option value={j}>{j.replace(/_/g, ' ')}</option>)}</select>
        )}</Field>
      )}
      {status === 'will_not_fix' && (
        <Field label="Review in (days)" hint="1 to 3650: the issue comes back for review then.">{(id, d) => <input id={id} name="expires_in_days" type="number" min={1} max={3650} required aria-describedby={d} />}</Field>
      )}
      <Field label="Comment">{(id) => <textarea id={id} name="comment" maxLength={4000} rows={2} />}</Field>
    </div>
  );
}

export function decisionBody(f: FormData): Record<string, unknown> {
  const status = String(f.get('status'));
  const body: Record<string, unknown> = { status };
  const comment = String(f.get('comment') ?? '').trim();
  if (comment) body.comment = comment;
  if (status === 'not_affected' && f.get('justification')) body.justification = String(f.get('justification'));
  if (status === 'will_not_fix') body.expires_in_days = Number(f.get('expires_in_days'));
  return body;
}
