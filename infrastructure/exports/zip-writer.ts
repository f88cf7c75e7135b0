import yazl from 'yazl';
import type { ZipWriter } from '../../application/exports/ports';

/**
 * A date whose calendar fields are its UTC ones. Why: a zip entry's DOS date and time are calendar
 * fields without a zone, which yazl takes from the local ones; read in UTC, the same instant gives
 * the same bytes whatever the server's TZ (an evidence bundle as of an instant must be the same zip
 * on every instance). The exact instant is still in the entry's extended timestamp (getTime).
 */
class UtcFieldsDate extends Date {
  override getFullYear() { return this.getUTCFullYear(); }
  override getMonth() { return this.getUTCMonth(); }
  override getDate() { return this.getUTCDate(); }
  override getHours() { return this.getUTCHours(); }
  override getMinutes() { return this.getUTCMinutes(); }
  override getSeconds() { return this.getUTCSeconds(); }
}

/** Zips with yazl: entries in the order given, one fixed date (UTC fields), deflated; the archive collected in pieces. */
export class YazlZipWriter implements ZipWriter {
  zip(files: ReadonlyArray<{ path: string; bytes: Buffer }>, mtime: Date): Promise<Buffer> {
    const zip = new yazl.ZipFile();
    const date = new UtcFieldsDate(mtime.getTime());
    for (const f of files) zip.addBuffer(f.bytes, f.path, { mtime: date, mode: 0o100644, compress: true });
    zip.end();
    return new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      zip.outputStream.on('data', (b: Buffer) => parts.push(b));
      zip.outputStream.on('error', reject);
      zip.outputStream.on('end', () => resolve(Buffer.concat(parts)));
    });
  }
}
