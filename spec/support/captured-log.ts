import { Writable } from 'node:stream';
import winston from 'winston';

/** A winston logger that keeps every entry (info and up) in memory, for specs about log lines. */
export function capturedLogger(): { logger: winston.Logger; entries: Record<string, any>[] } {
  const entries: Record<string, any>[] = [];
  const stream = new Writable({ objectMode: true, write(info, _encoding, done) { entries.push({ ...info }); done(); } });
  return { logger: winston.createLogger({ level: 'info', transports: [new winston.transports.Stream({ stream })] }), entries };
}
