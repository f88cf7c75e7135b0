import { useState } from 'preact/hooks';
import type { PageProps } from '.';
import { ApiError, call } from '../api';
import { may } from '../roles';
import { href } from '../router';
import type { Me } from '../session';
import { ActionForm, Day, Field, Loading, Page, ProblemNote, Severity, Table, targetHref, useGet, When } from '../ui';
import type { HistoryEntry, Issue } from './backlog';
import { decisionBody, DecisionFields } from './triage-form';

const who = (actor: HistoryEntry['actor'], me: Me) => (actor === null ? 'Vigil' : Number(actor) === me.id ? 'you' : `account ${actor}`);

/**
 * GET /issues/{id}: facts, provenance, remediation deadline and the history of every decision from
 * its stream. Decisions are conditional on the revision shown (If-Match): if the issue changed
 * meanwhile the server answers 409, which is shown plainly and the issue is read again.
 */
export function IssuePage({ params, me }: PageProps) {
  const id = Number(params.id);
  const issue = useGet<Issue>(`/issues/${id}`);
  const [conflict, setConflict] = useState<ApiError | null>(null);
  const i = issue.data;
  const etag = issue.answer?.etag ?? (i ? `"${i.revision}"` : null);
  /** Runs one decision with If-Match; a 409 keeps its message on screen and reloads the issue. */
  const decide = async (path: string, body: unknown) => {
    setConflict(null);
    try {
      await call('POST', path, { body, ifMatch: etag });
      issue.reload();
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) { setConflict(e); issue.reload(); return; }
      throw e;
    }
  };
  const requester = i?.history?.slice().reverse().find((h) => h.requestedStatus)?.actor ?? null;
  const mine = requester !== null && Number(requester) === me.id;
  return (
    <Page title={`Issue #${id}`}>
      <Loading loaded={issue} />
      {i && (
        <>
          <p><a href={targetHref(i.targetKind, i.targetId)}>{i.targetKind} {i.targetId}</a> · <a href={href('/issues', { [i.targetKind === 'container' ? 'container_id' : 'repository_id']: i.targetId })}>its backlog</a></p>
          <pre class="title">{i.title}</pre>
          <dl class="facts">
            <dt>Severity</dt><dd><Severity value={i.severity} /></dd>
            <dt>Status</dt><dd>{i.status}{i.resolvedAt && <> since <When at={i.resolvedAt} /></>}</dd>
            <dt>Triage</dt><dd>{i.triageStatus.replace(/_/g, ' ')}{i.triageRequestedStatus && <> (asked: {i.triageRequestedStatus.replace(/_/g, ' ')})</>}{i.justification && <>, {i.justification.replace(/_/g, ' ')}</>}</dd>
            {i.reviewDate && <><dt>Review date</dt><dd><Day at={i.reviewDate} /></dd></>}
            <dt>Remediation deadline</dt><dd><Day at={i.remediationDeadline} />{i.remediationDeadline && i.status === 'open' && new Date(i.remediationDeadline) < new Date() && <strong class="fail"> overdue</strong>}</dd>
            <dt>Type</dt><dd>{i.type}</dd>
            {i.ruleId && <><dt>Rule</dt><dd>{i.ruleId}</dd></>}
            {i.path && <><dt>Location</dt><dd>{i.path}{i.line ? `:${i.line}` : ''}</dd></>}
            {i.package && <><dt>Package</dt><dd>{i.package} {i.packageVersion}</dd></>}
            {i.identifier && <><dt>Identifier</dt><dd>{i.identifier}</dd></>}
            {i.owaspCategories && i.owaspCategories.length > 0 && (
              <><dt>OWASP Top 10</dt><dd><ul class="inline">{i.owaspCategories.map((c) => <li><a href={href('/issues', { owasp_category: c })}>{c}</a></li>)}</ul></dd></>
            )}
            <dt>Fixable</dt><dd>{i.fixable === null ? 'unknown' : i.fixable ? 'yes' : 'no'}</dd>
            <dt>Known exploited (KEV)</dt><dd>{i.kev ? 'yes' : 'no'}</dd>
            <dt>EPSS</dt><dd>{i.epss ?? '—'}</dd>
            <dt>First seen</dt><dd><When at={i.firstSeenAt} /></dd>
            <dt>Last seen</dt><dd><When at={i.lastSeenAt} /></dd>
            <dt>Revision</dt><dd>{i.revision}</dd>
          </dl>
          <h2>Provenance</h2>
          <dl class="facts">{Object.entries(i.provenance ?? {}).map(([k, v]) => <><dt>{k}</dt><dd>{v === null ? '—' : String(v)}</dd></>)}</dl>
          <ProblemNote error={conflict} />
          {may.triage(me) && i.triageStatus === 'pending_approval' && i.triageRequestedStatus && (
            <section aria-labelledby="four-eyes">
              <h2 id="four-eyes">Four-eyes request: {i.triageRequestedStatus.replace(/_/g, ' ')}</h2>
              {mine ? <p class="muted">You asked for this decision: another account that writes approves it. You may withdraw it.</p> : (
                <ActionForm label={`Approve ${i.triageRequestedStatus.replace(/_/g, ' ')}`} busyLabel="Approving…" class="inline" onSubmit={() => decide(`/issues/${id}/triage-approval`, { status: i.triageRequestedStatus })} />
              )}
              <ActionForm label={mine ? 'Withdraw the request' : 'Refuse the request'} busyLabel="Sending…" class="inline" onSubmit={async (f) => {
                const comment = String(f.get('comment') ?? '').trim();
                await decide(`/issues/${id}/triage-refusal`, { status: String(f.get('status')), ...(comment ? { comment } : {}) });
              }}>
                <Field label="Back to">{(fid) => <select id={fid} name="status"><option value="under_review">under review</option><option value="affected">affected</option></select>}</Field>
                <Field label="Comment">{(fid) => <input id={fid} name="comment" maxLength={4000} />}</Field>
              </ActionForm>
            </section>
          )}
          {may.triage(me) && i.status === 'open' && (
            <section aria-labelledby="decide">
              <h2 id="decide">Decide</h2>
              <ActionForm label="Record decision" busyLabel="Recording…" onSubmit={(f) => decide(`/issues/${id}/triage`, decisionBody(f))}>
                <DecisionFields />
              </ActionForm>
            </section>
          )}
          <h2>History</h2>
          <Table caption="Every decision and change from the issue's stream" rowKey={(h) => h.revision} rows={i.history ?? []} columns={[
            { label: 'Rev.', class: 'num', cell: (h) => h.revision },
            { label: 'What', cell: (h) => h.type },
            { label: 'When', cell: (h) => <When at={h.at} /> },
            { label: 'By', cell: (h) => who(h.actor, me) },
            { label: 'Status', cell: (h) => [h.status, h.requestedStatus && `asked ${h.requestedStatus}`].filter(Boolean).join(', ').replace(/_/g, ' ') || '—' },
            { label: 'Justification', cell: (h) => h.justification?.replace(/_/g, ' ') ?? '—' },
            { label: 'Review date', cell: (h) => <Day at={h.reviewDate} /> },
            { label: 'Comment', class: 'wrap', cell: (h) => h.comment ?? '—' },
          ]} />
        </>
      )}
    </Page>
  );
}
