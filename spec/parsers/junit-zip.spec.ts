import { expect } from 'chai';
import { DEFAULT_ZIP_LIMITS, parseTestReport, type ZipLimits } from '../../infrastructure/parsers/junit';
import { corpusFiles, requireCorpus } from '../support/corpus';
import { expectRefusalAsync, lieAboutSizes, makeZip } from './support';
import * as path from 'node:path';
import * as fs from 'node:fs';

const report = (suite: string, cases = 2, failures = 0): string =>
  `<?xml version="1.0"?><testsuite name="${suite}">${Array.from({ length: cases }, (_, i) => `<testcase classname="${suite}" name="t${i}">${i < failures ? '<failure/>' : ''}</testcase>`).join('')}</testsuite>`;
const zipReport = async (entries: Array<[string, Buffer | string | null]>, limits?: ZipLimits) =>
  parseTestReport(await makeZip(entries), 'application/zip', limits);
const small: ZipLimits = { maxEntries: 5, maxEntryBytes: 64 * 1024, maxTotalBytes: 160 * 1024 };

describe('JUnit test-report zips', () => {
  it('[S1.4.3-09] [S1.4.3-10] reads every XML report of a zip and sums them; documents counts them', async () => {
    const f = await zipReport([
      ['reports/', null],
      ['reports/TEST-a.xml', report('a', 3, 1)],
      ['reports/nested/TEST-b.XML', report('b', 2)],
    ]);
    expect(f).to.deep.include({ documents: 2, suites: 2, tests: 5, failures: 1 });
    expect(f.suiteTotals.map((s) => s.name)).to.deep.equal(['a', 'b']);
  });

  it('ignores directories, non-XML files and macOS resource forks', async () => {
    const f = await zipReport([
      ['TEST-a.xml', report('a')],
      ['TEST-a.txt', 'Tests run: 2, Failures: 0'],
      ['__MACOSX/._TEST-a.xml', Buffer.from([0, 5, 22, 7, 0, 2, 0, 0])],
      ['._TEST-b.xml', Buffer.from([0, 5, 22, 7])],
    ]);
    expect(f).to.deep.include({ documents: 1, tests: 2 });
  });

  it('[S1.4.3-37] a zip without an XML report, or whose reports hold no test case, is refused', async () => {
    await expectRefusalAsync(() => zipReport([['notes.txt', 'hello']]), /no XML test report/);
    await expectRefusalAsync(() => zipReport([['a.xml', '<testsuites/>'], ['b.xml', '<testsuite name="s"/>']]), /no test case/);
  });

  it('[S1.4.3-13] an XML entry that is not a JUnit report or not well-formed refuses the upload, naming the entry', async () => {
    await expectRefusalAsync(() => zipReport([['a.xml', report('a')], ['pom.xml', '<project/>']]), /zip entry "pom\.xml" is not a JUnit report/);
    await expectRefusalAsync(() => zipReport([['broken.xml', '<testsuite><testcase>']]), /zip entry "broken\.xml" is not well-formed/);
  });

  it('[S1.4.3-38] an XXE document inside a zip is refused', async () => {
    await expectRefusalAsync(
      () => zipReport([['x.xml', '<!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><testsuite><testcase name="&x;"/></testsuite>']]),
      /declares entities/,
    );
  });

  it('[S1.4.3-13] a body that is not a zip is refused', async () => {
    await expectRefusalAsync(() => parseTestReport(Buffer.from(report('a')), 'application/zip'), /not a readable zip/);
    const zip = await makeZip([['a.xml', report('a')]]);
    await expectRefusalAsync(() => parseTestReport(zip.subarray(0, zip.length - 30), 'application/zip'), /not a readable zip/);
  });

  describe('guards (spec §4.3: 5,000 entries, 32 MB each, 256 MB in all, no nested archive)', () => {
    it('has the spec\'s defaults', () => {
      expect(DEFAULT_ZIP_LIMITS).to.deep.equal({ maxEntries: 5000, maxEntryBytes: 32 * 1024 * 1024, maxTotalBytes: 256 * 1024 * 1024 });
    });

    it('[S1.4.3-39] [S1.7-23] more entries than allowed is refused before anything is inflated', async () => {
      const entries = Array.from({ length: 6 }, (_, i): [string, string] => [`r${i}.xml`, report(`s${i}`)]);
      await expectRefusalAsync(() => zipReport(entries, small), /over its guards: it holds 6 entries, more than 5/);
      expect((await zipReport(entries.slice(0, 5), small)).documents).to.equal(5);
    });

    it('[S1.4.3-39] with the default limits, 5,001 entries are refused', async () => {
      const entries = Array.from({ length: 5001 }, (_, i): [string, string] => [`r${i}.txt`, 'x']);
      await expectRefusalAsync(async () => parseTestReport(await makeZip(entries, false), 'application/zip'), /5001 entries, more than 5000/);
    });

    it('[S1.4.3-40] with the default limits, an entry inflating past 32 MB is refused even when its header says 10 bytes', async () => {
      const lying = lieAboutSizes(await makeZip([['big.xml', Buffer.alloc(32 * 1024 * 1024 + 1, 0x20)]]), 10);
      await expectRefusalAsync(() => parseTestReport(lying, 'application/zip'), /"big\.xml" inflates past 33554432 bytes/);
    });

    it('[S1.4.3-39] directories count as entries', async () => {
      const entries: Array<[string, string | null]> = [['a/', null], ['b/', null], ['c/', null], ['d/', null], ['e/', null], ['r.xml', report('r')]];
      await expectRefusalAsync(() => zipReport(entries, small), /6 entries/);
    });

    it('[S1.4.3-40] an entry inflating past its limit is refused (a zip bomb of spaces)', async () => {
      const bomb = `<testsuite><testcase name="a"/>${' '.repeat(200 * 1024)}</testsuite>`;
      await expectRefusalAsync(() => zipReport([['bomb.xml', bomb]], small), /over its guards: "bomb\.xml"/);
    });

    it('[S1.4.3-40] sizes are enforced while inflating: headers that lie about the size do not help', async () => {
      const bomb = Buffer.alloc(400 * 1024, 0x20);
      const lying = lieAboutSizes(await makeZip([['bomb.xml', bomb]]), 10);
      await expectRefusalAsync(() => parseTestReport(lying, 'application/zip', small), /"bomb\.xml" inflates past 65536 bytes/);
    });

    it('[S1.4.3-41] entries inflating past the total limit together are refused', async () => {
      const padded = (name: string): [string, string] => [name, `<testsuite><testcase name="a"/>${' '.repeat(60 * 1024)}</testsuite>`];
      await expectRefusalAsync(() => zipReport([padded('a.xml'), padded('b.xml'), padded('c.xml')], small), /inflate past 163840 bytes in all/);
      expect((await zipReport([padded('a.xml'), padded('b.xml')], small)).documents).to.equal(2);
    });

    it('[S1.4.3-42] a nested archive is refused by its name', async () => {
      for (const name of ['inner.zip', 'lib/tests.jar', 'reports.tar.gz', 'r.tgz', 'r.7z']) {
        await expectRefusalAsync(() => zipReport([['a.xml', report('a')], [name, 'not really an archive']]), /nested archive/);
      }
    });

    it('[S1.4.3-42] a nested archive is refused by its content, whatever its name', async () => {
      const inner = await makeZip([['a.xml', report('a')]]);
      await expectRefusalAsync(() => zipReport([['a.xml', report('a')], ['innocent.xml', inner]]), /"innocent\.xml" is a nested archive/);
      await expectRefusalAsync(() => zipReport([['data.bin', Buffer.from([0x1f, 0x8b, 8, 0, 0, 0])]]), /nested archive/);
      const tar = Buffer.alloc(512);
      tar.write('ustar', 257, 'latin1');
      await expectRefusalAsync(() => zipReport([['a.xml', report('a')], ['x.dat', tar]]), /nested archive/);
    });
  });

  describe('corpus', function () {
    before(function () {
      requireCorpus(this.test!.parent!);
    });

    it('[S1.4.3-10] a zip of the accepted corpus reports gives the sums of reading them one by one', async () => {
      const files = corpusFiles('junit').filter((f) => !/corrupt|non-junit|empty|xxe|web-test-runner/.test(path.basename(f)));
      let tests = 0;
      let failures = 0;
      for (const f of files) {
        const one = await parseTestReport(fs.readFileSync(f), 'application/xml');
        tests += one.tests;
        failures += one.failures;
      }
      const zipped = await parseTestReport(await makeZip(files.map((f): [string, Buffer] => [`surefire-reports/${path.basename(f)}`, fs.readFileSync(f)])), 'application/zip');
      expect(zipped).to.deep.include({ documents: files.length, tests, failures });
    });
  });
});
