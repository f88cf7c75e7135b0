/**
 * Uploading a report from the repository's imports page through the public import routes, with an
 * integration key as a pipeline sends it (X-API-Key): the key names the source (spec 1 §4.3, §4.4),
 * so an import is never a session's act. The key is read from the form when it is sent and kept
 * nowhere else (no state, no storage); the upload's progress is shown as it goes.
 */
import type { TargetedSubmitEvent } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, upload, UploadProgress } from '../api';
import { Field, ProblemNote, Select } from '../ui';

interface Kind { label: string; segment: string; contentType: (file: File) => string; query?: Record<string, string>; accept: string; describe: (r: any) => string }

const counts = (r: Record<string, unknown>, names: string[]) => names.filter((n) => typeof r[n] === 'number').map((n) => `${r[n]} ${n.replace(/([A-Z])/g, ' $1').toLowerCase()}`).join(', ');
const coverage = (format: string, label: string, contentType: string, accept: string): Kind => ({
  label, segment: 'coverage-imports', query: { format }, contentType: () => contentType, accept,
  describe: (r) => `coverage import ${r.id}: ${r.linesCovered} of ${r.linesTotal} lines covered`,
});

/** The kinds of report, each with its route, media type and what its answer says. */
export const UPLOAD_KINDS: Record<string, Kind> = {
  sarif: {
    label: 'SARIF 2.1.0 (findings)', segment: 'sarif-imports', contentType: () => 'application/sarif+json', accept: '.sarif,.json,application/json',
    describe: (r) => `${r.resultsCount} results from ${(r.tools ?? []).join(', ') || 'the log'}: ${counts(r, ['createdCount', 'resolvedCount', 'reopenedCount']).replace(/ count/g, '')}`,
  },
  jacoco: coverage('jacoco', 'Coverage: JaCoCo XML', 'application/xml', '.xml'),
  cobertura: coverage('cobertura', 'Coverage: Cobertura XML', 'application/xml', '.xml'),
  lcov: coverage('lcov', 'Coverage: LCOV', 'text/plain', '.info,.lcov,.txt'),
  junit: {
    label: 'JUnit test report (XML, or a zip of them)', segment: 'test-report-imports', accept: '.xml,.zip',
    contentType: (file) => (/\.zip$/i.test(file.name) || file.type === 'application/zip' ? 'application/zip' : 'application/xml'),
    describe: (r) => `test-report import ${r.id}: ${counts(r, ['documents', 'suites', 'tests', 'failures', 'errors', 'skipped'])}`,
  },
  cyclonedx: {
    label: 'CycloneDX JSON SBOM of a build', segment: 'build-sbom-imports', contentType: () => 'application/vnd.cyclonedx+json', accept: '.json,.cdx.json',
    describe: (r) => `build SBOM import ${r.id}: ${r.components} components (CycloneDX ${r.specVersion})`,
  },
};

/** An integration key is ASCII without spaces; a longer one is not a key (the API bounds what it reads). */
const KEY_MAX = 200;

export function ImportUpload({ repositoryId, onImported }: { repositoryId: number; onImported: () => void }) {
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  const submit = async (e: TargetedSubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const kind = UPLOAD_KINDS[String(form.get('kind'))] ?? UPLOAD_KINDS.sarif;
    const file = form.get('file');
    const apiKey = String(form.get('key') ?? '').trim();
    setError(null); setOutcome(null); setProgress(null);
    if (!(file instanceof File) || !file.name) { setError(new ApiError({ status: 0, title: 'No file', detail: 'Choose the report to upload.' })); return; }
    if (!apiKey) { setError(new ApiError({ status: 0, title: 'No key', detail: 'Paste the integration key of the source this report comes from.' })); return; }
    setBusy(true);
    setProgress({ loaded: 0, total: file.size, sent: false });
    try {
      const answer = await upload(`/repositories/${repositoryId}/${kind.segment}`, file, { apiKey, contentType: kind.contentType(file), query: kind.query, onProgress: setProgress });
      setOutcome(`Imported ${file.name}: ${kind.describe(answer.body)}.`);
      onImported();
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError({ status: 0, title: 'Error', detail: String(err) }));
    } finally {
      setBusy(false);
    }
  };

  const total = progress?.total ?? null;
  const percent = progress && total ? Math.min(100, Math.round((progress.loaded / total) * 100)) : null;
  const status = busy
    ? progress?.sent ? 'Uploaded; Vigil is reading the report…' : `Uploading${percent === null ? '…' : `: ${percent}%`}`
    : outcome ?? (error ? 'The upload was refused.' : '');
  return (
    <section aria-labelledby="upload-heading" class="upload">
      <h2 id="upload-heading">Upload a report</h2>
      <p class="muted">Sent to the same import API a pipeline calls, with the integration key of a declared source; the key stays in this form only and is never stored.</p>
      <form class="stack" onSubmit={submit} aria-busy={busy}>
        <Field label="Kind of report">{(id) => (
          <Select id={id} name="kind" defaultValue="sarif">{Object.entries(UPLOAD_KINDS).map(([k, v]) => <option value={k}>{v.label}</option>)}</Select>
        )}</Field>
        <Field label="Report file">{(id) => <input id={id} name="file" type="file" required />}</Field>
        <Field label="Integration key" hint="The key of the source this report comes from (X-API-Key); kept only while this page is open.">{(id, d) => (
          <input id={id} name="key" type="password" autocomplete="off" spellcheck={false} required maxLength={KEY_MAX} aria-describedby={d} />
        )}</Field>
        <div><button type="submit" disabled={busy}>{busy ? 'Uploading…' : 'Upload'}</button></div>
      </form>
      {progress && (
        <div class="field upload-progress">
          <label for="upload-progress">Upload progress</label>
          <progress id="upload-progress" max={total ?? undefined} value={total ? Math.min(progress.loaded, total) : undefined}>{percent === null ? '' : `${percent}%`}</progress>
        </div>
      )}
      <p class={outcome ? 'notice' : 'muted'} role="status" aria-live="polite">{status}</p>
      <ProblemNote error={error} />
    </section>
  );
}
