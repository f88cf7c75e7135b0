import type { PageProps } from '.';
import { Page } from '../ui';
import { ScanList, VerdictList } from './targets';

/** Scans of every target you see (GET /scans), newest first. */
export function Scans({ query }: PageProps) {
  return <Page title="Scans"><ScanList query={{}} path="/scans" before={query.get('before') ?? undefined} /></Page>;
}

/** The gate verdict register (GET /gate/verdicts), newest first. */
export function GateVerdicts({ query, me }: PageProps) {
  const passed = query.get('target_kind') ?? undefined;
  return <Page title="Gate verdicts"><VerdictList query={passed ? { target_kind: passed } : {}} path="/gate" extra={passed ? { target_kind: passed } : {}} before={query.get('before') ?? undefined} me={me} /></Page>;
}
