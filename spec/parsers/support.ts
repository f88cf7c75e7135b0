import * as fs from 'node:fs';
import { expect } from 'chai';
import * as yazl from 'yazl';
import { ImportRefusal } from '../../domain/imports/import-refusal';
import { corpusPath } from '../support/corpus';

/** Helpers for the parser specs (not a spec file itself). */

function checkRefusal(error: unknown, pattern: RegExp | undefined, status: number): ImportRefusal {
  expect(error, 'expected an ImportRefusal').to.be.instanceOf(ImportRefusal);
  const refusal = error as ImportRefusal;
  expect(refusal.status).to.equal(status);
  // A refusal's message is a whole sentence for a person, never empty or a stack trace.
  expect(refusal.message).to.match(/^[A-Z"].*[.)]$/s);
  if (pattern) expect(refusal.message).to.match(pattern);
  return refusal;
}

export function expectRefusal(run: () => unknown, pattern?: RegExp, status = 400): ImportRefusal {
  let error: unknown;
  try {
    run();
  } catch (e) {
    error = e;
  }
  return checkRefusal(error, pattern, status);
}

export async function expectRefusalAsync(run: () => Promise<unknown>, pattern?: RegExp, status = 400): Promise<ImportRefusal> {
  let error: unknown;
  try {
    await run();
  } catch (e) {
    error = e;
  }
  return checkRefusal(error, pattern, status);
}

export interface ManifestRow {
  file: string;
  note: string;
}

/** Rows of a corpus manifest (TSV with a header; the note is the last column). */
export function readManifest(relative: string): ManifestRow[] {
  const [header, ...lines] = fs.readFileSync(corpusPath(relative), 'utf8').split('\n').filter((l) => l.trim() !== '');
  const noteColumn = header.split('\t').indexOf('note');
  return lines.map((line) => {
    const cells = line.split('\t');
    return { file: cells[0], note: cells[noteColumn] ?? '' };
  });
}

export type Verdict = 'accept' | 'refuse';

/**
 * The verdict a manifest note states, when it states one plainly. Notes that leave the choice to
 * the importer ("decide", "lenient vs strict") give undefined and must be settled by the spec
 * in an explicit table next to the test.
 */
export function verdictOfNote(note: string): Verdict | undefined {
  if (/decide|lenient vs strict|or refuse|or accepted|or offending/i.test(note)) return undefined;
  if (/\bREFUSED?\b/.test(note) || /must be refused|expected refused/i.test(note)) return 'refuse';
  if (/\baccept\b|^valid\b/i.test(note)) return 'accept';
  if (/^invalid\b/i.test(note)) return 'refuse';
  return undefined;
}

/** A zip built in memory with yazl. */
export function makeZip(entries: Array<[string, Buffer | string | null]>, compress = true): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    for (const [name, data] of entries) {
      if (data === null) zip.addEmptyDirectory(name);
      else zip.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), name, { compress });
    }
    zip.end();
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** Rewrites the inflated sizes a zip's headers declare, to test that they are not trusted. */
export function lieAboutSizes(zip: Buffer, declared: number): Buffer {
  const copy = Buffer.from(zip);
  for (let i = 0; i + 4 <= copy.length; i++) {
    const signature = copy.readUInt32LE(i);
    if (signature === 0x04034b50 && i + 26 <= copy.length) copy.writeUInt32LE(declared, i + 22);
    if (signature === 0x02014b50 && i + 28 <= copy.length) copy.writeUInt32LE(declared, i + 24);
  }
  return copy;
}

export const readCorpus = (relative: string): Buffer => fs.readFileSync(corpusPath(relative));
