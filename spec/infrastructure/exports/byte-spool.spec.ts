import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileByteSpools } from '../../../infrastructure/exports/byte-spool';

const collect = async (pieces: AsyncIterable<Buffer>) => { const out: Buffer[] = []; for await (const p of pieces) out.push(p); return out; };

describe('byte spool: a signed document between signing and sending (ADR 0016)', () => {
  it('keeps a document under the limit in memory, byte for byte, and touches no file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-spool-'));
    const spool = new FileByteSpools(dir, 1024).create();
    const parts = [randomBytes(300), randomBytes(700)];
    for (const p of parts) await spool.write(p);
    await spool.end();
    expect(spool.spilled).to.equal(false);
    expect(readdirSync(dir)).to.deep.equal([]);
    expect(Buffer.concat(await collect(spool.read()))).to.deep.equal(Buffer.concat(parts));
    await spool.dispose();
  });

  it('puts a document past the limit in one private file of the directory, reads it back in pieces of at most 64 KB, removes it on dispose', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-spool-'));
    const spool = new FileByteSpools(dir, 1024).create();
    const parts = Array.from({ length: 40 }, () => randomBytes(10_000));
    for (const p of parts) await spool.write(p);
    await spool.end();
    expect(spool.spilled).to.equal(true);
    const files = readdirSync(dir);
    expect(files).to.have.length(1);
    expect(statSync(join(dir, files[0])).mode & 0o777).to.equal(0o600);
    const pieces = await collect(spool.read());
    expect(Math.max(...pieces.map((p) => p.length))).to.be.at.most(64 * 1024);
    expect(Buffer.concat(pieces)).to.deep.equal(Buffer.concat(parts));
    expect(await spool.bytes()).to.deep.equal(Buffer.concat(parts));
    await spool.dispose();
    await spool.dispose();
    expect(readdirSync(dir)).to.deep.equal([]);
  });

  it('refuses a read before end and a write after it', async () => {
    const spool = new FileByteSpools(mkdtempSync(join(tmpdir(), 'vigil-spool-')), 1024).create();
    await spool.write(Buffer.from('a'));
    await collect(spool.read()).then(() => expect.fail('read before end'), (e) => expect(String(e)).to.contain('read before end'));
    await spool.end();
    await spool.write(Buffer.from('b')).then(() => expect.fail('write after end'), (e) => expect(String(e)).to.contain('after end'));
    await spool.dispose();
  });
});
