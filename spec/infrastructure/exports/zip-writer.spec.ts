import { expect } from 'chai';
import unzipper from 'unzipper';
import { YazlZipWriter } from '../../../infrastructure/exports/zip-writer';

describe('zip writer: the same files and instant give the same bytes (issue #11, evidence bundles as of an instant)', () => {
  const files = [{ path: 'b.json', bytes: Buffer.from('{"b":1}') }, { path: 'a/c.txt', bytes: Buffer.from('c') }];
  const instant = new Date('2026-02-01T23:30:00.000Z');
  const saved = process.env.TZ;
  afterEach(() => { if (saved === undefined) delete process.env.TZ; else process.env.TZ = saved; });

  it('whatever the time zone of the server: DOS dates from the UTC fields, the exact instant in the extended timestamp', async () => {
    process.env.TZ = 'America/New_York';
    const west = await new YazlZipWriter().zip(files, instant);
    process.env.TZ = 'Asia/Tokyo';
    const east = await new YazlZipWriter().zip(files, instant);
    expect(east.equals(west)).to.equal(true);
    expect(east.equals(await new YazlZipWriter().zip(files, instant))).to.equal(true);
    const entries = (await unzipper.Open.buffer(east)).files;
    expect(entries.map((e) => e.path)).to.deep.equal(['b.json', 'a/c.txt']);
    // DOS fields hold 23:30 (UTC), on 1 February.
    for (const e of entries) expect([e.lastModifiedDate, e.lastModifiedTime]).to.deep.equal([((2026 - 1980) << 9) | (2 << 5) | 1, (23 << 11) | (30 << 5)]);
  });
});
