import { Writable } from 'node:stream';
import winston from 'winston';

interface Entry { seq: number; message: string; error?: string }

/**
 * Takes over the server's log while the fuzz runs: a 5xx is logged with its stack and answered
 * without one, so the report quotes the logged cause beside the request. The entries replace the
 * console output too: a stopped projection logs every quarter of a second, and the suite reports
 * it once, at the request that stopped it.
 */
export class ServerLog {
  private seq = 0;
  private readonly entries: Entry[] = [];

  constructor(logger: winston.Logger) {
    const sink = new Writable({
      objectMode: true,
      write: (info: { message?: unknown; error?: unknown }, _enc, done) => {
        this.entries.push({ seq: ++this.seq, message: String(info.message ?? ''), error: typeof info.error === 'string' ? info.error : undefined });
        if (this.entries.length > 200) this.entries.shift();
        done();
      },
    });
    logger.clear();
    logger.add(new winston.transports.Stream({ stream: sink }));
  }

  /** A mark to read the entries logged after it. */
  mark(): number {
    return this.seq;
  }

  /** The newest entry whose message starts so, as "message: first line of the error". */
  latest(prefix: string): string | null {
    const e = [...this.entries].reverse().find((x) => x.message.startsWith(prefix));
    return e ? this.show(e) : null;
  }

  /** "message: first line of the logged error" for each entry after the mark, shortened. */
  since(mark: number): string[] {
    return this.entries.filter((e) => e.seq > mark).map((e) => this.show(e));
  }

  /** The error's first line; of an SQL error only its table and what follows the statement (the column and the value). */
  private show(e: Entry): string {
    const line = e.error?.split('\n')[0] ?? '';
    const table = /(?:from|into|update)\s+"([^"]+)"/i.exec(line)?.[1];
    const first = line.replace(/^(error: )?(insert|select|update|delete|with)\b[\s\S]* - /i, `database${table ? ` (${table})` : ''}: `);
    const text = first ? `${e.message}: ${first}` : e.message;
    return text.length > 400 ? `${text.slice(0, 400)}…` : text;
  }
}
