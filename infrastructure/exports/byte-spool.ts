import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ByteSpool, ByteSpools } from '../../application/exports/ports';

/** Held in memory up to this many bytes; beyond, the whole document goes to a file. */
export const SPOOL_MEMORY_LIMIT = 1024 * 1024;
const PIECE = 64 * 1024;

/**
 * A document's bytes between signing and sending (ADR 0016): in memory while small, in a file of the
 * temporary directory (TMPDIR; created 0600, exclusive, named at random) once past `limit`, so that a
 * 50,000-issue export costs its size on disk rather than in memory. The file is removed on dispose
 * (the route disposes once the answer is sent, the client has left, or anything failed).
 */
export class FileByteSpool implements ByteSpool {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private file: FileHandle | null = null;
  private path: string | null = null;
  private ended = false;

  constructor(private readonly dir: string, private readonly limit: number) {}

  get spilled(): boolean {
    return this.path !== null;
  }

  async write(bytes: Buffer): Promise<void> {
    if (this.ended) throw new Error('ByteSpool: written after end');
    if (this.path === null && this.heldBytes + bytes.length <= this.limit) {
      this.held.push(bytes);
      this.heldBytes += bytes.length;
      return;
    }
    if (this.path === null) {
      this.path = join(this.dir, `vigil-export-${randomUUID()}.spool`);
      this.file = await open(this.path, 'wx', 0o600);
      for (const piece of this.held) await writeAll(this.file, piece);
      this.held = [];
      this.heldBytes = 0;
    }
    await writeAll(this.file!, bytes);
  }

  async end(): Promise<void> {
    this.ended = true;
    await this.file?.close();
    this.file = null;
  }

  async *read(): AsyncIterable<Buffer> {
    if (!this.ended) throw new Error('ByteSpool: read before end');
    if (this.path === null) {
      yield* this.held;
      return;
    }
    // A for-await left early (the client went away) destroys the stream, which closes the file.
    for await (const piece of createReadStream(this.path, { highWaterMark: PIECE })) yield piece as Buffer;
  }

  async bytes(): Promise<Buffer> {
    if (!this.ended) throw new Error('ByteSpool: read before end');
    return this.path === null ? Buffer.concat(this.held) : readFile(this.path);
  }

  async dispose(): Promise<void> {
    this.held = [];
    await this.file?.close().catch(() => undefined);
    this.file = null;
    if (this.path !== null) await rm(this.path, { force: true });
  }
}

async function writeAll(file: FileHandle, bytes: Buffer): Promise<void> {
  for (let at = 0; at < bytes.length;) at += (await file.write(bytes, at, bytes.length - at)).bytesWritten;
}

export class FileByteSpools implements ByteSpools {
  constructor(private readonly dir: string = tmpdir(), private readonly limit: number = SPOOL_MEMORY_LIMIT) {}

  create(): ByteSpool {
    return new FileByteSpool(this.dir, this.limit);
  }
}
