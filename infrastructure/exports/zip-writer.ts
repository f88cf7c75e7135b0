import yazl from 'yazl';
import type { ZipWriter } from '../../application/exports/ports';

/** Zips with yazl: entries in the order given, one fixed date, deflated; the archive collected in pieces. */
export class YazlZipWriter implements ZipWriter {
  zip(files: ReadonlyArray<{ path: string; bytes: Buffer }>, mtime: Date): Promise<Buffer> {
    const zip = new yazl.ZipFile();
    for (const f of files) zip.addBuffer(f.bytes, f.path, { mtime, mode: 0o100644, compress: true });
    zip.end();
    return new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      zip.outputStream.on('data', (b: Buffer) => parts.push(b));
      zip.outputStream.on('error', reject);
      zip.outputStream.on('end', () => resolve(Buffer.concat(parts)));
    });
  }
}
