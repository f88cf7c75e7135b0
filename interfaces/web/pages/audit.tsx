import { useState } from 'preact/hooks';
import type { PageProps } from '.';
import { call } from '../api';
import { href } from '../router';
import { ActionForm, Field, Loading, Page, Pager, Table, useGet, When } from '../ui';

/** GET /audit-log in chain order with its filters, and GET /audit-log/verification on demand. */
export function AuditLog({ query }: PageProps) {
  const filters = { type: query.get('type') ?? undefined, actor: query.get('actor') ?? undefined, after: query.get('after') ?? undefined };
  const log = useGet<any[]>('/audit-log', { ...filters, limit: 50 });
  const [verdict, setVerdict] = useState<Record<string, unknown> | null>(null);
  return (
    <Page title="Audit log">
      <form class="filters" aria-label="Filters" onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget as HTMLFormElement);
        location.hash = href('/audit', { type: String(f.get('type') ?? ''), actor: String(f.get('actor') ?? '') });
      }}>
        <Field label="Event type">{(id) => <input id={id} name="type" maxLength={128} defaultValue={filters.type ?? ''} />}</Field>
        <Field label="Actor (account id)">{(id) => <input id={id} name="actor" type="number" min={1} defaultValue={filters.actor ?? ''} />}</Field>
        <button type="submit">Apply</button>
      </form>
      <Loading loaded={log} />
      <Table caption="Audit entries in chain order" rowKey={(e) => e.seq} rows={log.data} empty="No entry matches." columns={[
        { label: 'Seq', class: 'num', cell: (e) => e.seq },
        { label: 'Type', cell: (e) => e.type },
        { label: 'Stream', class: 'wrap', cell: (e) => e.stream },
        { label: 'Actor', cell: (e) => e.actor ?? '—' },
        { label: 'Address', cell: (e) => e.address ?? '—' },
        { label: 'At', cell: (e) => <When at={e.at} /> },
        { label: 'Hash', cell: (e) => <code title={e.hash}>{String(e.hash).slice(0, 12)}…</code> },
      ]} />
      <Pager path="/audit" query={{ type: filters.type, actor: filters.actor, after: filters.after }} next={log.answer?.next ?? null} />
      <h2>Verification</h2>
      <p class="muted">Recomputes the chain from the events table and compares it with the stored one, entry by entry.</p>
      <ActionForm label="Verify the chain" busyLabel="Verifying…" class="inline" onSubmit={async () => setVerdict((await call('GET', '/audit-log/verification')).body)} />
      {verdict && (verdict.valid
        ? <p class="notice" role="status">The chain holds: {String(verdict.entries)} entries recomputed from the events table match the stored chain.</p>
        : <p class="problem" role="alert">The chain breaks at entry {String(verdict.brokenAt)}: its stored hash no longer matches the event the log holds.</p>)}
      {verdict && <details><summary>The verification's whole answer</summary><pre>{JSON.stringify(verdict, null, 2)}</pre></details>}
    </Page>
  );
}
