import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';

/**
 * Test keys made at run time (no private key sits in the repository, where the secret scanner
 * would rightly flag it). OpenSSH's own format (openssh-key-v1) is written here from a node:crypto
 * Ed25519 key, as `ssh-keygen -t ed25519` would, optionally marked as passphrase-protected.
 */
function wire(value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

const uint32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };

export interface TestSshKey {
  privateKey: string;
  /** `ssh-ed25519 AAAA... comment`: a known_hosts line after a host name. */
  publicLine: string;
  fingerprint: string;
}

/** keyType: the type the block names (a forged one, to test that it is checked). */
export function openSshKey(options: { encrypted?: boolean; comment?: string; keyType?: string } = {}): TestSshKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const type = options.keyType ?? 'ssh-ed25519';
  const blob = Buffer.concat([wire(type), wire(pub)]);
  const check = randomBytes(4);
  let secret = Buffer.concat([check, check, wire(type), wire(pub), wire(Buffer.concat([seed, pub])), wire(options.comment ?? 'vigil-test')]);
  for (let pad = 1; secret.length % 8 !== 0; pad++) secret = Buffer.concat([secret, Buffer.from([pad])]);
  const header = options.encrypted
    ? [wire('aes256-ctr'), wire('bcrypt'), wire(Buffer.concat([wire(randomBytes(16)), uint32(16)]))]
    : [wire('none'), wire('none'), wire('')];
  const body = Buffer.concat([Buffer.from('openssh-key-v1\0', 'latin1'), ...header, uint32(1), wire(blob), wire(options.encrypted ? randomBytes(secret.length) : secret)]);
  const lines = body.toString('base64').match(/.{1,70}/g)!.join('\n');
  return {
    privateKey: `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines}\n-----END OPENSSH PRIVATE KEY-----\n`,
    publicLine: `${type} ${blob.toString('base64')} vigil-test`,
    fingerprint: `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`,
  };
}

export function pemRsaKey(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
}

export function pkcs8EcKey(options: { passphrase?: string } = {}): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return (options.passphrase
    ? privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: options.passphrase })
    : privateKey.export({ type: 'pkcs8', format: 'pem' })) as string;
}

/** A known_hosts line pinning a fresh host key for `host`. */
export function knownHostsFor(host: string): string {
  return `${host} ${openSshKey().publicLine}`;
}
