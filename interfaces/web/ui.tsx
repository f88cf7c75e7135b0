/** Small pieces every page uses: loading an API answer, problems shown as the server wrote them, tables, dates, paging. */
import type { ComponentChildren, TargetedSubmitEvent } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Answer, ApiError, call, Query } from './api';
import { href } from './router';

export interface Loaded<T> { data: T | null; answer: Answer<T> | null; error: ApiError | null; loading: boolean; reload: () => void }

/** GET path (again when path or query change, or on reload()). */
export function useGet<T = any>(path: string | null, query?: Query): Loaded<T> {
  const [state, setState] = useState<{ answer: Answer<T> | null; error: ApiError | null; loading: boolean }>({ answer: null, error: null, loading: !!path });
  const [tick, setTick] = useState(0);
  const key = `${path}${JSON.stringify(query ?? {})}`;
  useEffect(() => {
    if (!path) return;
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    call<T>('GET', path, { query }).then(
      (answer) => { if (live) setState({ answer, error: null, loading: false }); },
      (error: ApiError) => { if (live) setState({ answer: null, error, loading: false }); },
    );
    return () => { live = false; };
  }, [key, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.answer?.body ?? null, answer: state.answer, error: state.error, loading: state.loading, reload };
}

/** A page's heading, which also names the document and takes the focus when the page changes (screen readers hear where they are). */
export function Page({ title, children, actions }: { title: string; children?: ComponentChildren; actions?: ComponentChildren }) {
  const h1 = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · ${document.querySelector('meta[name=application-name]')?.getAttribute('content') ?? 'Vigil'}`;
    h1.current?.focus();
  }, [title]);
  return (
    <section aria-labelledby="page-title">
      <header class="page-head"><h1 id="page-title" tabIndex={-1} ref={h1}>{title}</h1>{actions && <div class="actions">{actions}</div>}</header>
      {children}
    </section>
  );
}

/** A refusal as the server worded it; a conflict says what to do next. */
export function ProblemNote({ error }: { error: ApiError | null | undefined }) {
  if (!error) return null;
  const conflict = error.kind === 'issue-changed-meanwhile'
    ? ' The issue is shown below as it is now.' : '';
  return <p class="problem" role="alert"><strong>{error.status ? `${error.status} ${error.problem.title}` : error.problem.title}:</strong> {error.message}{conflict}</p>;
}

export function Loading({ loaded }: { loaded: Pick<Loaded<unknown>, 'loading' | 'error'> }) {
  if (loaded.error) return <ProblemNote error={loaded.error} />;
  return loaded.loading ? <p class="muted" role="status">Loading…</p> : null;
}

/** A time in the browser's zone; the ISO value stays in `datetime` and the tooltip. */
export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">never</span>;
  const d = new Date(at);
  return <time dateTime={at} title={at}>{d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}</time>;
}

export function Day({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">none</span>;
  return <time dateTime={at} title={at}>{new Date(at).toLocaleDateString(undefined, { dateStyle: 'medium' })}</time>;
}

export function Grade({ grade }: { grade: string | null | undefined }) {
  const g = grade ?? 'NO_DATA';
  return <span class={`grade grade-${g.toLowerCase()}`}>{g === 'NO_DATA' ? 'no data' : g}</span>;
}

export function Severity({ value }: { value: string | null | undefined }) {
  return <span class={`sev sev-${value ?? 'none'}`}>{value ?? '—'}</span>;
}

export interface Column<T> { label: string; cell: (row: T) => ComponentChildren; class?: string }

/** A table with a caption (its accessible name) and a message when empty. */
export function Table<T>({ caption, rows, columns, empty, rowKey }: { caption: string; rows: T[] | null; columns: Column<T>[]; empty?: string; rowKey: (row: T) => string | number }) {
  if (!rows) return null;
  if (rows.length === 0) return <p class="muted">{empty ?? 'Nothing yet.'}</p>;
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={caption}>
      <table>
        <caption>{caption}</caption>
        <thead><tr>{columns.map((c) => <th scope="col" class={c.class}>{c.label}</th>)}</tr></thead>
        <tbody>{rows.map((r) => <tr key={rowKey(r)}>{columns.map((c) => <td class={c.class}>{c.cell(r)}</td>)}</tr>)}</tbody>
      </table>
    </div>
  );
}

/**
 * Paging through Link rel="next": the next page's cursor (one parameter, or several such as after
 * and after_key) goes into the page's own address, so Back returns to the previous page. A page
 * with two paged lists names each list's cursor with a `prefix` (projects_after) and labels its
 * navigation with `of`.
 */
export function Pager({ path, query, next, cursor = 'after', prefix = '', of }: { path: string; query: Record<string, string | undefined>; next: Record<string, string> | null; cursor?: string | string[]; prefix?: string; of?: string }) {
  const names = typeof cursor === 'string' ? [cursor] : cursor;
  const atStart = !query[prefix + names[0]];
  if (atStart && !next) return null;
  const moved = (from: Record<string, string> | null) => Object.fromEntries(names.map((n) => [prefix + n, from?.[n]]));
  return (
    <nav class="pager" aria-label={of ? `Pages of ${of}` : 'Pages'}>
      {!atStart && <a href={href(path, { ...query, ...moved(null) })}>First page</a>}
      {!atStart && <a href="#" onClick={(e) => { e.preventDefault(); history.back(); }}>Previous page</a>}
      {next && <a href={href(path, { ...query, ...moved(next) })} rel="next">Next page</a>}
    </nav>
  );
}

/** A form whose submit calls the API, shows progress while it runs and the server's refusal when it refuses. */
export function ActionForm({ label, onSubmit, children, busyLabel, class: cls }: { label: string; busyLabel?: string; class?: string; onSubmit: (form: FormData) => Promise<unknown>; children?: ComponentChildren }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (e: TargetedSubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    setBusy(true); setError(null);
    try { await onSubmit(new FormData(e.currentTarget)); } catch (err) { setError(err instanceof ApiError ? err : new ApiError({ status: 0, title: 'Error', detail: String(err) })); }
    finally { setBusy(false); }
  };
  return (
    <form class={cls ?? 'stack'} onSubmit={submit} aria-busy={busy}>
      {children}
      <ProblemNote error={error} />
      <div><button type="submit" disabled={busy}>{busy ? (busyLabel ?? 'Working…') : label}</button>{busy && <span class="muted" role="status"> {busyLabel ?? 'Working…'}</span>}</div>
    </form>
  );
}

let fieldCounter = 0;
/** A labelled input; `hint` is read out with it. */
export function Field({ label, hint, children }: { label: string; hint?: string; children: (id: string, describedBy?: string) => ComponentChildren }) {
  const [id] = useState(() => `f${++fieldCounter}`);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children(id, hint ? `${id}-hint` : undefined)}
      {hint && <small id={`${id}-hint`} class="muted">{hint}</small>}
    </div>
  );
}

export const text = (form: FormData, name: string): string | undefined => {
  const v = form.get(name);
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
};

export const int = (form: FormData, name: string): number | undefined => {
  const v = text(form, name);
  return v === undefined ? undefined : Number(v);
};

export function targetHref(kind: string, id: number): string {
  return href(`/${kind === 'container' ? 'containers' : 'repositories'}/${id}`);
}

/**
 * A <select> that starts on `defaultValue` and is then the person's: Preact has no defaultValue
 * for a select (it would start on the first option, and a form saved unchanged would reset the
 * field). The value is set once its options exist, and again only when `defaultValue` changes.
 */
export function Select({ defaultValue, children, ...props }: { id: string; name: string; defaultValue?: string; required?: boolean; 'aria-describedby'?: string; children: ComponentChildren }) {
  const ref = useRef<HTMLSelectElement>(null);
  useLayoutEffect(() => { if (ref.current && defaultValue !== undefined) ref.current.value = defaultValue; }, [defaultValue]);
  return <select ref={ref} {...props}>{children}</select>;
}
