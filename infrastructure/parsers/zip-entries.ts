import * as unzipper from 'unzipper';
import { refuse } from './import-refusal';

/**
 * Inflating an uploaded zip in memory under guards (spec §4.3: at most 5,000 entries, 32 MB each,
 * 256 MB in all, no nested archive; S1.4.3-39..42, S1.7-23). Sizes are enforced on the bytes
 * actually inflated, entry by entry, and inflation stops as soon as a limit is passed: the sizes
 * written in the zip's headers are attacker-controlled and only used to refuse early.
 */

export interface ZipLimits {
  maxEntries: number;
  maxEntryBytes: number;
  maxTotalBytes: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = Object.freeze({
  maxEntries: 5_000,
  maxEntryBytes: 32 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
});

export interface ZipEntry {
  name: string;
  data: Buffer;
}

const ARCHIVE_NAME = /\.(zip|jar|war|ear|aar|apk|nupkg|whl|gz|tgz|tar|bz2|tbz2|xz|txz|zst|7z|rar)$/i;

/** Leading bytes of the archive and compressed formats a nested archive could hide in. */
function looksLikeArchive(head: Buffer): boolean {
  const starts = (...bytes: number[]): boolean => bytes.every((b, i) => head[i] === b);
  return (
    starts(0x50, 0x4b, 0x03, 0x04) || // zip / jar local file header
    starts(0x50, 0x4b, 0x05, 0x06) || // empty zip
    starts(0x50, 0x4b, 0x07, 0x08) || // spanned zip
    starts(0x1f, 0x8b) || // gzip
    starts(0x42, 0x5a, 0x68) || // bzip2
    starts(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00) || // xz
    starts(0x28, 0xb5, 0x2f, 0xfd) || // zstd
    starts(0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c) || // 7z
    starts(0x52, 0x61, 0x72, 0x21) || // rar
    head.subarray(257, 262).toString('latin1') === 'ustar' // tar
  );
}

const guardRefusal = (detail: string): never => refuse(`The zip is over its guards: ${detail}.`);

/** Every file entry (directories skipped), inflated and checked; throws ImportRefusal otherwise. */
export async function readZipEntries(body: Buffer, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<ZipEntry[]> {
  let directory: unzipper.CentralDirectory;
  try {
    directory = await unzipper.Open.buffer(body);
  } catch (err) {
    refuse(`The body is not a readable zip archive (${(err as Error).message}).`);
  }
  const files = directory.files;
  if (files.length > limits.maxEntries) guardRefusal(`it holds ${files.length} entries, more than ${limits.maxEntries}`);
  const entries: ZipEntry[] = [];
  let total = 0;
  for (const file of files) {
    if (file.type === 'Directory' || file.path.endsWith('/')) continue;
    if (ARCHIVE_NAME.test(file.path)) guardRefusal(`"${file.path}" is a nested archive`);
    if (file.flags & 0x1) refuse(`The zip entry "${file.path}" is encrypted and cannot be read.`);
    if (file.uncompressedSize > limits.maxEntryBytes) {
      guardRefusal(`"${file.path}" declares ${file.uncompressedSize} bytes inflated, more than ${limits.maxEntryBytes} per entry`);
    }
    const data = await inflate(file, limits, limits.maxTotalBytes - total);
    total += data.length;
    if (looksLikeArchive(data)) guardRefusal(`"${file.path}" is a nested archive`);
    entries.push({ name: file.path, data });
  }
  return entries;
}

/** Streams one entry, stopping as soon as it passes its own limit or what remains of the total. */
function inflate(file: unzipper.File, limits: ZipLimits, remaining: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const stop = (err: unknown): void => {
      if (settled) return;
      settled = true;
      stream.destroy();
      reject(err);
    };
    const stream = file.stream();
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      try {
        if (size > limits.maxEntryBytes) guardRefusal(`"${file.path}" inflates past ${limits.maxEntryBytes} bytes`);
        if (size > remaining) guardRefusal(`the entries inflate past ${limits.maxTotalBytes} bytes in all`);
      } catch (err) {
        stop(err);
        return;
      }
      chunks.push(chunk);
    });
    stream.on('error', (err: Error) => {
      try {
        refuse(`The zip entry "${file.path}" cannot be inflated (${err.message}).`);
      } catch (refusal) {
        stop(refusal);
      }
    });
    stream.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, size));
    });
  });
}
