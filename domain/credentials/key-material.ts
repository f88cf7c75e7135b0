import { createHash, createPrivateKey, createPublicKey, KeyObject } from 'node:crypto';
import { refuse } from '../shared/decider';

/**
 * Value rules of what an administrator pastes into a stored credential, checked before anything is
 * sealed (so a refusal writes nothing). Deterministic, no I/O: node:crypto only parses.
 *
 * - Private keys: an OpenSSH block (`-----BEGIN OPENSSH PRIVATE KEY-----`, which node:crypto cannot
 *   read, so it is parsed here) or a PEM key node:crypto reads (PKCS#1 RSA, SEC1 EC, PKCS#8). A key
 *   under a passphrase is refused: the worker runs unattended with BatchMode and could never type it.
 * - known_hosts: OpenSSH lines `[@marker] patterns keytype base64 [comment]`; the key blob must decode
 *   and name its own key type, so a line cut in half or pasted from `ssh-keyscan -H` garbage is caught
 *   here rather than as "host key unpinned" at the first scan.
 */

export interface PublicKeyInfo {
  /** The SSH key type, e.g. ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256. */
  readonly type: string;
  /** As `ssh-keygen -lf` prints it: SHA256:<base64 without padding>. */
  readonly fingerprint: string;
}

export interface InspectedPrivateKey {
  /** The key as stored and handed to ssh: LF line ends, one final line break (OpenSSH needs it). */
  readonly text: string;
  readonly publicKey: PublicKeyInfo;
}

export interface PinnedHosts {
  /** The lines as stored: trimmed, comments and blank lines dropped, LF separated, final line break. */
  readonly text: string;
  /** Host patterns the lines name (hashed entries read "(hashed)"), for the read model. */
  readonly hosts: string[];
  readonly lines: number;
}

const MAX_PRIVATE_KEY = 16 * 1024;
const MAX_KNOWN_HOSTS = 64 * 1024;
const MAX_KNOWN_HOSTS_LINES = 200;
const OPENSSH_BLOCK = /^-----BEGIN OPENSSH PRIVATE KEY-----\n([A-Za-z0-9+/=\n]+)\n-----END OPENSSH PRIVATE KEY-----$/;
const OPENSSH_MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');
const PASSPHRASE = 'is protected by a passphrase; the worker cannot type one. Store it without (ssh-keygen -p -N "" -f <file>, on a copy)';

export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** Reads SSH wire strings (uint32 length, bytes) from a buffer; throws on a short read. */
class WireReader {
  private offset = 0;
  constructor(private readonly buffer: Buffer) {}
  uint32(): number {
    if (this.offset + 4 > this.buffer.length) throw new Error('truncated');
    const value = this.buffer.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }
  bytes(): Buffer {
    const length = this.uint32();
    if (this.offset + length > this.buffer.length) throw new Error('truncated');
    const value = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }
  text(): string {
    return this.bytes().toString('latin1');
  }
}

function wireString(value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** An SSH mpint: big-endian, no leading zero bytes, a 0x00 prefix when the high bit is set. */
function mpint(unsigned: Buffer): Buffer {
  let start = 0;
  while (start < unsigned.length - 1 && unsigned[start] === 0) start++;
  const trimmed = unsigned.subarray(start);
  return wireString(trimmed[0] & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function openSshKey(text: string): PublicKeyInfo {
  const match = OPENSSH_BLOCK.exec(text);
  if (!match) throw refuse.invalid('privateKey is not a complete OpenSSH private key block.');
  const data = Buffer.from(match[1].replace(/\n/g, ''), 'base64');
  if (!data.subarray(0, OPENSSH_MAGIC.length).equals(OPENSSH_MAGIC)) throw refuse.invalid('privateKey is not an OpenSSH private key (openssh-key-v1).');
  try {
    const r = new WireReader(data.subarray(OPENSSH_MAGIC.length));
    const cipher = r.text();
    const kdf = r.text();
    r.bytes(); // kdf options
    if (cipher !== 'none' || kdf !== 'none') throw refuse.invalid(`privateKey ${PASSPHRASE}.`);
    if (r.uint32() !== 1) throw refuse.invalid('privateKey holds more than one key; store one key per credential.');
    const blob = r.bytes();
    const type = new WireReader(blob).text();
    // The type is read from the pasted bytes and shown (credentials.public_key_type): only a real one.
    if (!PRIVATE_KEY_TYPE.test(type)) throw refuse.invalid(`privateKey names the key type ${JSON.stringify(type.slice(0, 60))}, which is not an SSH key type.`);
    const secret = new WireReader(r.bytes());
    // Unencrypted keys repeat a random check word; a mismatch means the block was damaged.
    if (secret.uint32() !== secret.uint32()) throw refuse.invalid('privateKey is damaged (its check words differ).');
    if (secret.text() !== type) throw refuse.invalid('privateKey is damaged (its public and private parts disagree).');
    return { type, fingerprint: fingerprintOf(blob) };
  } catch (error) {
    if ((error as Error).message === 'truncated') throw refuse.invalid('privateKey is a truncated OpenSSH private key.');
    throw error;
  }
}

const CURVES: Record<string, string> = { 'P-256': 'nistp256', 'P-384': 'nistp384', 'P-521': 'nistp521' };

/** The SSH public key blob of a key node:crypto read, so the fingerprint matches ssh-keygen's. */
function sshPublicBlob(key: KeyObject): Buffer {
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  const b64 = (v: string | undefined) => Buffer.from(v ?? '', 'base64url');
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return Buffer.concat([wireString('ssh-rsa'), mpint(b64(jwk.e)), mpint(b64(jwk.n))]);
    case 'ed25519':
      return Buffer.concat([wireString('ssh-ed25519'), wireString(b64(jwk.x))]);
    case 'ec': {
      const curve = CURVES[jwk.crv ?? ''];
      if (!curve) throw refuse.invalid(`privateKey is an EC key on ${jwk.crv}, which SSH does not use; use P-256, P-384, P-521, Ed25519 or RSA.`);
      return Buffer.concat([wireString(`ecdsa-sha2-${curve}`), wireString(curve), wireString(Buffer.concat([Buffer.from([4]), b64(jwk.x), b64(jwk.y)]))]);
    }
    default:
      throw refuse.invalid(`privateKey is a ${key.asymmetricKeyType} key; SSH keys here are Ed25519, ECDSA or RSA.`);
  }
}

function pemKey(text: string): PublicKeyInfo {
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type:\s*4,ENCRYPTED/.test(text)) throw refuse.invalid(`privateKey ${PASSPHRASE}.`);
  if (!/^-----BEGIN (RSA |EC )?PRIVATE KEY-----\n[\s\S]+\n-----END (RSA |EC )?PRIVATE KEY-----$/.test(text)) {
    throw refuse.invalid('privateKey is not a private key: paste an OpenSSH private key block or a PEM private key (RSA, EC or PKCS#8), without a passphrase.');
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: text, format: 'pem' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MISSING_PASSPHRASE') throw refuse.invalid(`privateKey ${PASSPHRASE}.`);
    throw refuse.invalid('privateKey is a PEM block node:crypto cannot read as a private key.');
  }
  const blob = sshPublicBlob(key);
  return { type: new WireReader(blob).text(), fingerprint: fingerprintOf(blob) };
}

/** Refuses (400) what is not one usable private key without passphrase; answers it normalised with its public fingerprint. */
export function inspectPrivateKey(raw: unknown): InspectedPrivateKey {
  if (typeof raw !== 'string' || raw.trim() === '') throw refuse.invalid('privateKey is required: an OpenSSH or PEM private key.');
  if (raw.length > MAX_PRIVATE_KEY) throw refuse.invalid(`privateKey is longer than ${MAX_PRIVATE_KEY} characters.`);
  const text = raw.replace(/\r\n?/g, '\n').trim();
  const publicKey = text.startsWith('-----BEGIN OPENSSH PRIVATE KEY-----') ? openSshKey(text) : pemKey(text);
  return { text: `${text}\n`, publicKey };
}

/** Key types an OpenSSH private key block may name. */
const PRIVATE_KEY_TYPE = /^(ssh-ed25519|ssh-rsa|ssh-dss|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)$/;

const KEY_TYPE = /^(ssh-ed25519|ssh-rsa|ssh-dss|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com|[a-z0-9-]+-cert-v01@openssh\.com)$/;

/** One known_hosts line; throws a message naming what is wrong with it. */
function knownHostsLine(line: string, index: number): string[] {
  const fields = line.split(/\s+/);
  const marker = fields[0].startsWith('@') ? fields.shift()! : null;
  if (marker !== null && marker !== '@cert-authority' && marker !== '@revoked') throw refuse.invalid(`knownHosts line ${index}: unknown marker ${marker}.`);
  const [patterns, type, key] = fields;
  if (!patterns || !type || !key) throw refuse.invalid(`knownHosts line ${index} is not "host-patterns key-type base64-key" (as ssh-keyscan prints).`);
  if (!KEY_TYPE.test(type)) throw refuse.invalid(`knownHosts line ${index}: "${type.slice(0, 60)}" is not an SSH host key type.`);
  let named: string;
  try {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key)) throw new Error('not base64');
    named = new WireReader(Buffer.from(key, 'base64')).text();
  } catch {
    throw refuse.invalid(`knownHosts line ${index}: the key is not base64 of an SSH public key.`);
  }
  if (named !== type) throw refuse.invalid(`knownHosts line ${index}: the key is a ${named.slice(0, 60)} key, the line says ${type}.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(patterns)) throw refuse.invalid(`knownHosts line ${index}: the host patterns hold control characters.`);
  return patterns.split(',').filter(Boolean).map((p) => (p.startsWith('|1|') ? '(hashed)' : p.toLowerCase()));
}

/**
 * The host keys an SSH credential pins (required: a clone with a key but no pinned host key fails
 * permanently as "unpinned", so such a credential would be useless).
 */
export function parseKnownHosts(raw: unknown): PinnedHosts {
  if (typeof raw !== 'string' || raw.trim() === '') {
    throw refuse.invalid('knownHosts is required: one or more known_hosts lines for the host(s) this key clones from (ssh-keyscan <host>, checked against a fingerprint you trust).');
  }
  if (raw.length > MAX_KNOWN_HOSTS) throw refuse.invalid(`knownHosts is longer than ${MAX_KNOWN_HOSTS} characters.`);
  const lines = raw.replace(/\r\n?/g, '\n').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  if (lines.length === 0) throw refuse.invalid('knownHosts holds only comments; give at least one host key line.');
  if (lines.length > MAX_KNOWN_HOSTS_LINES) throw refuse.invalid(`knownHosts has more than ${MAX_KNOWN_HOSTS_LINES} lines.`);
  const hosts = lines.flatMap((line, i) => knownHostsLine(line, i + 1));
  return { text: `${lines.join('\n')}\n`, hosts: [...new Set(hosts)], lines: lines.length };
}

const HOST_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * The host an HTTPS token is bound to: a host name or IP address, optionally `:port` (443 when
 * none), lower case, never a scheme, user or path. The executor hands the token to git only for an
 * https URL with that host and port.
 */
export function normaliseTokenHost(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw refuse.invalid('host is required: the host name the token is for, e.g. git.example.com.');
  const text = raw.trim().toLowerCase().replace(/\.$/, '');
  if (/[/@?#\s\\]|:\/\//.test(text)) throw refuse.invalid(`host "${raw.trim().slice(0, 100)}" must be a host name such as git.example.com, without scheme, user or path.`);
  const m = /^(\[[0-9a-f:.]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(text);
  const port = m?.[2] === undefined ? null : Number(m[2]);
  const name = m?.[1] ?? '';
  const validName = name.startsWith('[') || (name.length <= 253 && name.split('.').every((label) => HOST_LABEL.test(label)));
  if (!m || !validName || (port !== null && (port < 1 || port > 65535))) {
    throw refuse.invalid(`host "${raw.trim().slice(0, 100)}" is not a host name (optionally with :port), e.g. git.example.com.`);
  }
  return port === null || port === 443 ? name : `${name}:${port}`;
}

const CONTROL_OR_SPACE = /[\s\u0000-\u001f\u007f]/;

/** Basic authentication carries `username:token`: a ":" in the user name or a line break in either would break it. */
export function validateTokenUser(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw refuse.invalid('username is required (the user name the forge expects with the token, e.g. oauth2 or x-access-token).');
  const name = raw.trim();
  if (name.length > 255 || name.includes(':') || CONTROL_OR_SPACE.test(name)) throw refuse.invalid('username has 1 to 255 characters without ":", spaces or control characters.');
  return name;
}

export function validateToken(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw refuse.invalid('token is required.');
  const token = raw.trim();
  if (token.length > 4096 || CONTROL_OR_SPACE.test(token)) throw refuse.invalid('token has 1 to 4,096 characters without spaces or control characters.');
  return token;
}
