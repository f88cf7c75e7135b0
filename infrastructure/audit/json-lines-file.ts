import * as fs from 'node:fs';
import type { JsonLinesFile } from '../../application/audit/ports';

/** An append-only file (mode 0600), each batch written then fsync'd; reopened or moved aside on demand. */
export class NodeJsonLinesFile implements JsonLinesFile {
  private handle: fs.promises.FileHandle | null = null;

  constructor(private readonly path: string) {}

  private async open(): Promise<fs.promises.FileHandle> {
    this.handle ??= await fs.promises.open(this.path, 'a', 0o600);
    return this.handle;
  }

  async append(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    const h = await this.open();
    await h.appendFile(`${lines.join('\n')}\n`, 'utf8');
    await h.sync();
  }

  async reopen(): Promise<void> {
    await this.close();
    await this.open();
  }

  async rotateIfLarger(maxBytes: number): Promise<boolean> {
    const size = (await this.open().then((h) => h.stat())).size;
    if (size < maxBytes) return false;
    await this.close();
    await fs.promises.rename(this.path, `${this.path}.1`);
    await this.open();
    return true;
  }

  async close(): Promise<void> {
    const h = this.handle;
    this.handle = null;
    await h?.close();
  }
}
