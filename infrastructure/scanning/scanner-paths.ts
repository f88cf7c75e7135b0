/**
 * Where a scanner says a finding is, as the path that identifies the issue (spec 1 §2.3: the
 * normalised path, never the line). The built-in executor mounts the scanned directory (the
 * clone, or its sub-path) read-only at SOURCE_MOUNT, so tools print "/src/app/main.py",
 * "/app/main.py" (Checkov, relative to -d with a leading slash), "app/main.py" or, from Windows
 * runs, "app\\main.py": all of them give "app/main.py".
 *
 * Scanner output is not an upload (nothing is refused here): "." and empty segments vanish, ".."
 * removes the previous segment and never climbs above the root, control characters are dropped.
 * With a sub-path target the result is prefixed with the sub-path, so scanner paths are relative
 * to the repository root like imported SARIF locations.
 */
export const SOURCE_MOUNT = '/src';

/** Longest path kept (identity strings stay bounded whatever a tool prints). */
export const MAX_PATH_LENGTH = 2048;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/g;

function segments(raw: string): string[] {
  const kept: string[] = [];
  for (const segment of raw.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') kept.pop();
    else kept.push(segment);
  }
  return kept;
}

function fromFileUri(text: string): string {
  if (!/^file:/i.test(text)) return text;
  const withoutScheme = text.replace(/^file:(\/\/[^/]*)?/i, '');
  try {
    return decodeURIComponent(withoutScheme);
  } catch {
    return withoutScheme;
  }
}

/** The sub-path of a target as a prefix: "" for the root. */
export function normaliseSubPath(subPath: string | undefined): string {
  return segments((subPath ?? '').replace(/\\/g, '/').replace(CONTROL, '')).join('/');
}

export function scannerPath(raw: string, subPath?: string): string {
  let text = fromFileUri(raw.replace(CONTROL, '').trim()).replace(/\\/g, '/');
  if (text === SOURCE_MOUNT || text.startsWith(`${SOURCE_MOUNT}/`)) text = text.slice(SOURCE_MOUNT.length);
  const relative = segments(text).join('/');
  const prefix = normaliseSubPath(subPath);
  const joined = prefix && relative ? `${prefix}/${relative}` : prefix || relative;
  return joined.slice(0, MAX_PATH_LENGTH);
}
