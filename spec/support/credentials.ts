import { randomBytes } from 'node:crypto';
import { RunningVigil } from './vigil';

/** An ENCRYPTION_KEY as an operator writes it: 32 random bytes in base64. */
export const newEncryptionKey = () => randomBytes(32).toString('base64');

/** Every event's data and metadata as stored, to prove no plaintext secret is in the log (trap 6). */
export async function eventLogText(v: RunningVigil): Promise<string> {
  return (await v.database.db.knex('events').select('data', 'metadata')).map((e: { data: string; metadata: string }) => `${e.data}\n${e.metadata}`).join('\n');
}
