import { useState } from 'preact/hooks';
import { ApiError, download, Downloaded } from '../api';
import { Field, ProblemNote } from '../ui';

export const TARGET_FORMATS = ['cyclonedx-vex', 'openvex', 'csaf-vex', 'cyclonedx-sbom', 'sarif'];
export const PORTFOLIO_FORMATS = ['cyclonedx-vex', 'openvex', 'csaf-vex'];
const LABELS: Record<string, string> = {
  'cyclonedx-vex': 'CycloneDX VEX', openvex: 'OpenVEX', 'csaf-vex': 'CSAF VEX', 'cyclonedx-sbom': 'CycloneDX SBOM', sarif: 'SARIF', export: 'Evidence bundle (project export)',
};

/**
 * Signed exports of a target, project or solution (GET .../exports/{format}, spec 1 §1.9): each
 * button downloads the document, optionally as of an instant; progress is shown while the server
 * builds and signs it, then its digest and signature.
 */
export function Exports({ base, formats, project }: { base: string; formats: string[]; project?: boolean }) {
  const [busy, setBusy] = useState<string | null>(null);
  const [done, setDone] = useState<Downloaded | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [asOf, setAsOf] = useState('');
  const run = async (format: string) => {
    setBusy(format); setError(null); setDone(null);
    try {
      const path = format === 'export' ? `${base}/export` : `${base}/exports/${format}`;
      setDone(await download(path, { as_of: asOf ? new Date(asOf).toISOString() : undefined }));
    } catch (e) { setError(e as ApiError); } finally { setBusy(null); }
  };
  return (
    <div class="stack">
      <Field label="As of" hint="Empty: now. Otherwise the document states the backlog as it stood then.">{(id, d) => <input id={id} type="datetime-local" value={asOf} onInput={(e) => setAsOf((e.target as HTMLInputElement).value)} aria-describedby={d} />}</Field>
      <div class="filters">
        {[...formats, ...(project ? ['export'] : [])].map((f) => (
          <button type="button" class="secondary" disabled={busy !== null} onClick={() => run(f)}>Download {LABELS[f] ?? f}</button>
        ))}
      </div>
      {busy && <p role="status" class="muted">Preparing the {LABELS[busy] ?? busy}… the server builds and signs it.</p>}
      <ProblemNote error={error} />
      {done && (
        <div class="notice" role="status">
          Downloaded <strong>{done.filename}</strong> ({done.size} bytes){done.asOf && <>, as of {done.asOf}</>}.
          {done.sha256 && <><br />SHA-256 <code>{done.sha256}</code></>}
          {done.signature && <><br />Signature (ECDSA P-256, verify with <a href="/api/v1/crypto/public-key.pub">the platform key</a>): <code class="wrap">{done.signature.slice(0, 24)}…</code></>}
        </div>
      )}
    </div>
  );
}
