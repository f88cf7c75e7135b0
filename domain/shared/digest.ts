import { createHash } from 'node:crypto';

/** SHA-256 in hex: deterministic and free of I/O, so every layer (deciders included) may use it. */
export function sha256Hex(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}
