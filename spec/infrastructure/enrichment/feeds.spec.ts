import { expect } from 'chai';
import * as fs from 'node:fs';
import { Readable } from 'node:stream';
import { loadConfig } from '../../../infrastructure/config/config';
import { SettingError } from '../../../infrastructure/config/units';
import { checkDestination, classifyAddress } from '../../../infrastructure/feeds/destination-guard';
import { EPSS_MAX_INFLATED_BYTES, readEpssScores } from '../../../infrastructure/feeds/epss-scores';
import { FeedRefusal } from '../../../domain/enrichment/feed-refusal';
import { DEFAULT_EPSS_URL, DEFAULT_KEV_URL } from '../../../infrastructure/feeds/feed-settings';
import { download, DownloadOptions, downloadAll } from '../../../infrastructure/feeds/http-download';
import { parseKevCatalogue } from '../../../infrastructure/feeds/kev-catalogue';
import { KEV_SCHEMA } from '../../../infrastructure/feeds/kev-schema';
import { corpusPath, requireCorpus } from '../../support/corpus';
import { epssCsv, gz, gzipBomb, KEV_CSV, KEV_NEW, KEV_OLD, Mirror } from './mirror';

async function refusal(p: Promise<unknown>): Promise<FeedRefusal> {
  try {
    await p;
  } catch (error) {
    if (error instanceof FeedRefusal) return error;
    throw error;
  }
  throw new Error('expected a FeedRefusal');
}

const source = (...chunks: Array<string | Buffer>) => Readable.from(chunks.map((c) => Buffer.from(c)));
const lookupOf = (table: Record<string, string[]>) => async (host: string) => {
  if (!(host in table)) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return table[host];
};

describe('Enrichment feeds: destination guard [S1.8.3-54]', () => {
  it('[S1.8.3-54] classifies private, loopback, link-local, reserved and public addresses (IPv4, IPv6, mapped, NAT64, 6to4)', () => {
    const cases: Array<[string, string]> = [
      ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['192.168.1.1', 'private'], ['100.64.0.1', 'private'], ['fc00::1', 'private'], ['fd12::1', 'private'],
      ['127.0.0.1', 'loopback'], ['127.9.9.9', 'loopback'], ['::1', 'loopback'], ['::ffff:127.0.0.1', 'loopback'],
      ['169.254.169.254', 'link-local'], ['fe80::1', 'link-local'],
      ['0.0.0.0', 'reserved'], ['::', 'reserved'], ['224.0.0.1', 'reserved'], ['255.255.255.255', 'reserved'], ['ff02::1', 'reserved'],
      ['93.184.216.34', 'public'], ['2606:4700::6810:1', 'public'], ['::ffff:8.8.8.8', 'public'],
      ['64:ff9b::808:808', 'public'], ['64:ff9b::a00:1', 'private'], ['2002:c0a8:0101::1', 'private'],
    ];
    for (const [address, kind] of cases) expect(classifyAddress(address), address).to.equal(kind);
  });

  it('[S1.8.3-54] refuses a host when any of its addresses is private unless the feed\'s own switch is on, and reserved addresses always', async () => {
    const lookup = lookupOf({ 'mirror.example': ['93.184.216.34', '10.0.0.5'], 'public.example': ['93.184.216.34'], 'any.example': ['0.0.0.0'] });
    const off = { allowPrivate: false, switchName: 'VIGIL_KEV_ALLOW_PRIVATE', lookup };
    const on = { ...off, allowPrivate: true };
    await checkDestination(new URL('https://public.example/kev.json'), off);
    const mixed = await refusal(checkDestination(new URL('https://mirror.example/kev.json'), off));
    expect(mixed.kind).to.equal('destination');
    expect(mixed.message).to.contain('10.0.0.5').and.contain('private').and.contain('VIGIL_KEV_ALLOW_PRIVATE=true');
    await checkDestination(new URL('https://mirror.example/kev.json'), on);
    expect((await refusal(checkDestination(new URL('http://127.0.0.1:9/x'), off))).message).to.contain('loopback');
    expect((await refusal(checkDestination(new URL('http://[::1]:9/x'), off))).message).to.contain('loopback');
    expect((await refusal(checkDestination(new URL('http://169.254.169.254/latest'), off))).message).to.contain('link-local');
    // Link-local and metadata destinations stay refused with the switch on (issue #17).
    expect((await refusal(checkDestination(new URL('http://169.254.169.254/latest'), on))).message).to.contain('cloud metadata').and.contain('whatever VIGIL_KEV_ALLOW_PRIVATE says');
    expect((await refusal(checkDestination(new URL('http://any.example/'), on))).message).to.contain('reserved');
    expect((await refusal(checkDestination(new URL('ftp://public.example/x'), on))).message).to.contain('http or https');
    expect((await refusal(checkDestination(new URL('https://nowhere.example/x'), on))).message).to.contain('could not be resolved');
  });

  it('[S1.8.3-54] with the switch on, link-local, cloud metadata and reserved destinations stay refused, in every IPv6 form carrying them, by name or literal', async () => {
    const lookup = lookupOf({
      'mirror.example': ['10.0.0.5'], 'loop.example': ['::1'], 'rebound.example': ['93.184.216.34', '2002:a9fe:a9fe::'], 'azure.example': ['168.63.129.16'],
    });
    const on = { allowPrivate: true, switchName: 'VIGIL_EPSS_ALLOW_PRIVATE', lookup };
    await checkDestination(new URL('https://mirror.example/epss.csv.gz'), on);
    await checkDestination(new URL('https://loop.example/epss.csv.gz'), on);
    await checkDestination(new URL('http://[::ffff:10.1.2.3]/epss.csv.gz'), on);
    for (const url of [
      'http://169.254.169.254/', 'http://169.254.10.1/', 'http://[fe80::1]/', 'http://[fd00:ec2::254]/', 'http://192.0.0.192/', 'http://192.0.0.8/',
      'http://[::ffff:169.254.169.254]/', 'http://[::a9fe:a9fe]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[64:ff9b:1::a9fe:a9fe]/', 'http://[2002:a9fe:a9fe::]/',
      'http://[2001:0:4136:e378:8000:63bf:5601:5601]/', 'http://100.100.100.200/', 'https://rebound.example/x', 'https://azure.example/x',
      'http://metadata.google.internal/computeMetadata/v1/',
    ]) {
      const r = await refusal(checkDestination(new URL(url), on));
      expect(r.kind, url).to.equal('destination');
      expect(r.message, url).to.match(/cloud metadata|link-local|reserved/).and.contain('whatever VIGIL_EPSS_ALLOW_PRIVATE says');
    }
    expect((await refusal(checkDestination(new URL('http://[2002:a9fe:a9fe::]/'), on))).message).to.contain('the 6to4 form of 169.254.169.254, a cloud metadata address (link-local)');
  });

  it('[S1.8.3-54] resolves names through DNS: localhost is loopback', async () => {
    const r = await refusal(checkDestination(new URL('http://localhost:9/x'), { allowPrivate: false, switchName: 'VIGIL_EPSS_ALLOW_PRIVATE' }));
    expect(r.message).to.match(/localhost resolves to (127\.0\.0\.1|::1), a loopback address; set VIGIL_EPSS_ALLOW_PRIVATE=true/);
  });
});

describe('Enrichment feeds: bounded download', () => {
  let mirror: Mirror;
  const options = (o: Partial<DownloadOptions> = {}): DownloadOptions => ({
    allowPrivate: true, switchName: 'VIGIL_KEV_ALLOW_PRIVATE', timeoutMs: 5000, maxBytes: 1024 * 1024, label: 'The KEV catalogue', ...o,
  });
  before(async () => { mirror = await new Mirror().start(); });
  after(async () => { await mirror.stop(); });

  it('downloads a body whole, and follows a redirect checking the new destination', async () => {
    mirror.serve('/a', { body: 'hello' }).serve('/r', { redirect: '/a' });
    expect((await downloadAll(mirror.url('/a'), options())).toString()).to.equal('hello');
    expect((await downloadAll(mirror.url('/r'), options())).toString()).to.equal('hello');
  });

  it('[S1.8.3-54] checks every hop: a redirect to a private address is refused even when the first host passed', async () => {
    // The guard is told localhost is public (fetch still reaches the loopback mirror); the redirect
    // then names the loopback address itself, which the guard sees and refuses before requesting it.
    mirror.serve('/to-loopback', { redirect: mirror.url('/a') });
    const port = new URL(mirror.base).port;
    const before = mirror.hits.length;
    const r = await refusal(downloadAll(`http://localhost:${port}/to-loopback`, options({
      allowPrivate: false, lookup: lookupOf({ localhost: ['93.184.216.34'] }),
    })));
    expect(r.message).to.contain('127.0.0.1, a loopback address');
    expect(mirror.hits.slice(before)).to.deep.equal(['/to-loopback']);
  });

  it('[S1.8.3-54] with the private switch on, a loopback mirror redirecting to the metadata address (or a form carrying it) is refused before that hop', async () => {
    for (const target of ['http://169.254.169.254/latest/meta-data/', 'http://[::ffff:a9fe:a9fe]/latest/meta-data/', 'http://[fe80::a9fe:a9fe]/']) {
      mirror.serve('/to-metadata', { redirect: target });
      const before = mirror.hits.length;
      const r = await refusal(downloadAll(mirror.url('/to-metadata'), options({ allowPrivate: true })));
      expect(r.kind, target).to.equal('destination');
      expect(r.message, target).to.match(/cloud metadata|link-local/).and.contain('whatever VIGIL_KEV_ALLOW_PRIVATE says');
      expect(mirror.hits.slice(before)).to.deep.equal(['/to-metadata']);
    }
  });

  it('refuses a declared length over the bound before reading, and a chunked body as soon as it passes the bound', async () => {
    mirror.serve('/big', { body: Buffer.alloc(2 * 1024 * 1024, 1) }).serve('/big-chunked', { body: Buffer.alloc(2 * 1024 * 1024, 1), chunked: true });
    const declared = await refusal(downloadAll(mirror.url('/big'), options()));
    expect(declared.kind).to.equal('too-large');
    expect(declared.message).to.contain('2097152 bytes');
    const streamed = await refusal(downloadAll(mirror.url('/big-chunked'), options()));
    expect(streamed.kind).to.equal('too-large');
    expect(streamed.message).to.contain('the download was stopped');
  });

  it('[S1.8.3-50] refuses a body cut short of its Content-Length as partial', async () => {
    mirror.serve('/cut', { body: Buffer.alloc(100_000, 0x61), truncateAt: 40_000 });
    const r = await refusal(downloadAll(mirror.url('/cut'), options()));
    expect(r.kind).to.equal('partial');
  });

  it('gives up after the time-out, headers or body', async () => {
    mirror.serve('/slow', { body: 'late', delayMs: 1500 });
    const r = await refusal(downloadAll(mirror.url('/slow'), options({ timeoutMs: 300 })));
    expect(r.message).to.contain('within 300 ms').and.contain('VIGIL_FEED_TIMEOUT');
  });

  it('refuses an answer other than 200 and names only the host, never the path or query', async () => {
    const r = await refusal(downloadAll(mirror.url('/missing?token=s3cret'), options()));
    expect(r.message).to.contain('HTTP 404').and.not.contain('s3cret').and.not.contain('/missing');
  });

  it('stops the transfer when the reader gives up early', async () => {
    mirror.serve('/long', { body: Buffer.alloc(8 * 1024 * 1024, 0x62), chunked: true });
    let seen = 0;
    for await (const chunk of download(mirror.url('/long'), options({ maxBytes: 64 * 1024 * 1024 }))) {
      seen += chunk.length;
      if (seen > 100_000) break;
    }
    expect(seen).to.be.lessThan(8 * 1024 * 1024);
  });
});

describe('Enrichment feeds: KEV catalogue reader', function () {
  requireCorpus(this);

  it('[S1.1-08] reads both real snapshots, validated against the official schema', () => {
    const old = parseKevCatalogue(KEV_OLD());
    const now = parseKevCatalogue(KEV_NEW());
    expect(old).to.include({ version: '2025.01.24', count: 1252 });
    expect(old.entries).to.have.length(1252);
    expect(now).to.include({ version: '2025.08.25', count: 1404, dateReleased: '2025-08-25T17:04:19.9796Z' });
    expect(now.entries[0]).to.deep.include({ cve: 'CVE-2025-48384', dateAdded: '2025-08-25', vendorProject: 'Git', product: 'Git' });
    expect(now.sha256).to.match(/^[0-9a-f]{64}$/);
  });

  it('carries the official schema unchanged', () => {
    const official = JSON.parse(fs.readFileSync(corpusPath('schemas', 'kev', 'known_exploited_vulnerabilities_schema.json'), 'utf8'));
    expect(KEV_SCHEMA).to.deep.equal(official);
  });

  it('[S1.8.3-50] refuses truncated JSON, the CSV edition, a schema-invalid catalogue, a count that does not match and a CVE listed twice', () => {
    const text = KEV_NEW().toString('utf8');
    const doc = JSON.parse(text);
    const kind = (b: Buffer | string) => {
      try {
        parseKevCatalogue(Buffer.from(b));
      } catch (error) {
        return [(error as FeedRefusal).kind, (error as Error).message];
      }
      return ['accepted', ''];
    };
    expect(kind(text.slice(0, text.length / 2))[0]).to.equal('malformed');
    expect(kind(KEV_CSV())[1]).to.contain('not complete JSON');
    const noDueDate = structuredClone(doc);
    delete noDueDate.vulnerabilities[3].dueDate;
    expect(kind(JSON.stringify(noDueDate))[1]).to.contain('/vulnerabilities/3').and.contain('dueDate');
    const badCve = structuredClone(doc);
    badCve.vulnerabilities[0].cveID = 'CVE-25-1';
    expect(kind(JSON.stringify(badCve))[1]).to.contain('/vulnerabilities/0/cveID');
    const counted = structuredClone(doc);
    counted.vulnerabilities.pop();
    expect(kind(JSON.stringify(counted))).to.deep.equal(['partial', 'The KEV catalogue declares 1404 vulnerabilities but lists 1403: a partial catalogue.']);
    const twice = structuredClone(doc);
    twice.vulnerabilities[1].cveID = twice.vulnerabilities[0].cveID;
    expect(kind(JSON.stringify(twice))[1]).to.contain('twice');
    expect(kind(Buffer.from([0xff, 0xfe, 0x00]))[1]).to.contain('not UTF-8');
  });
});

describe('Enrichment feeds: EPSS reader', function () {
  requireCorpus(this);
  const small = { minScores: 150 };

  it('[S1.8.3-51] reads the real header and rows, gzip or plain, with CRLF and a byte-order mark', async () => {
    const csv = epssCsv({ rows: 200 });
    const plain = await readEpssScores(source(csv), small);
    expect(plain).to.include({ modelVersion: 'v2026.06.15', scoreDate: '2026-09-29T12:00:22Z', count: 200, compressed: false });
    expect([plain.cves[0], plain.scores[0], plain.percentiles[0]]).to.deep.equal(['CVE-1999-0001', 0.03351, 0.88255]);
    const packed = gz(csv);
    // Split the gzip across chunks, the magic bytes included.
    const zipped = await readEpssScores(source(packed.subarray(0, 1), packed.subarray(1, 100), packed.subarray(100)), small);
    expect(zipped).to.include({ count: 200, compressed: true, sha256: plain.sha256 });
    const windows = await readEpssScores(source(`\uFEFF${epssCsv({ rows: 200, crlf: true })}`), small);
    expect(windows.count).to.equal(200);
  });

  it('[S1.8.3-51] refuses fewer scores than the minimum', async () => {
    const r = await refusal(readEpssScores(source(epssCsv({ rows: 149 })), small));
    expect(r.kind).to.equal('partial');
    expect(r.message).to.contain('holds 149 scores; at least 150');
  });

  it('[S1.8.3-52] refuses a score or a percentile outside [0,1], negative ones too', async () => {
    for (const bad of ['1.5', '-0.1', '1e3']) {
      const r = await refusal(readEpssScores(source(epssCsv({ rows: 200, edit: (l, i) => (i === 120 ? l.replace(/,[^,]+,/, `,${bad},`) : l) })), small));
      expect(r.message).to.contain(`the score ${bad}, outside [0,1]`);
    }
    const p = await refusal(readEpssScores(source(epssCsv({ rows: 200, edit: (l, i) => (i === 3 ? l.replace(/,[^,]+$/, ',1.01') : l) })), small));
    expect(p.message).to.contain('percentile 1.01');
  });

  it('[S1.8.3-50] refuses a malformed file: no header, another column header, a bad row, a CVE twice, a long line, a truncated gzip', async () => {
    const csv = epssCsv({ rows: 200 });
    const lines = csv.split('\n');
    const cases: Array<[string | Buffer, string]> = [
      [lines.slice(1).join('\n'), 'first line'],
      [[lines[0], 'cve,score,percentile', ...lines.slice(2)].join('\n'), 'second line'],
      [epssCsv({ rows: 200, edit: (l, i) => (i === 50 ? 'CVE-2020-1234;0.1;0.2' : l) }), 'line 53'],
      [epssCsv({ rows: 200, edit: (l, i) => (i === 51 ? lines[2] : l) }), 'CVE-1999-0001 twice'],
      [`${lines[0]}\n${lines[1]}\n${'x'.repeat(5000)}`, 'longer than 1024'],
      [lines[0].replace('score_date:2026-09-29T12:00:22Z', 'score_date:yesterday') + '\n' + lines.slice(1).join('\n'), 'score_date'],
      [gz(csv).subarray(0, 1500), 'not a complete gzip stream'],
    ];
    for (const [body, why] of cases) {
      const r = await refusal(readEpssScores(source(body), small));
      expect(r.message, why).to.contain(why);
    }
  });

  it('[S1.8.3-53] stops inflating a gzip bomb once past 128 MiB (192 MiB packed in under 1 MB)', async function () {
    this.timeout(60_000);
    const bomb = await gzipBomb(epssCsv({ rows: 200 }), EPSS_MAX_INFLATED_BYTES + 64 * 1024 * 1024);
    expect(bomb.length).to.be.lessThan(1024 * 1024);
    const r = await refusal(readEpssScores(source(bomb), small));
    expect(r.kind).to.equal('too-large');
    expect(r.message).to.contain('inflates to more than 128 MiB; inflation was stopped there');
    // A lower bound shows the same guard without the size.
    const small64k = await refusal(readEpssScores(source(gz(epssCsv({ rows: 5000 }))), { ...small, maxInflatedBytes: 64 * 1024 }));
    expect(small64k.message).to.contain('inflates to more than 0.0625 MiB');
  });
});

describe('Enrichment feeds: settings [S1.8.3-49] [S1.8.3-54]', () => {
  it('[S1.8.3-49] defaults to the public feeds; mirrors may be named; [S1.8.3-54] both switches off by default', () => {
    expect(loadConfig({}).feeds).to.deep.equal({
      kevUrl: DEFAULT_KEV_URL, epssUrl: DEFAULT_EPSS_URL, kevAllowPrivate: false, epssAllowPrivate: false,
      intervalMs: 86_400_000, timeoutMs: 300_000, kevMaxBytes: 32 * 1024 * 1024, epssMaxBytes: 128 * 1024 * 1024,
    });
    const mirrored = loadConfig({
      VIGIL_KEV_URL: 'https://mirror.internal/kev.json', VIGIL_EPSS_URL: 'http://mirror.internal/epss.csv', VIGIL_KEV_ALLOW_PRIVATE: 'true',
      VIGIL_FEED_INTERVAL: '6h', VIGIL_FEED_TIMEOUT: '30s', VIGIL_EPSS_MAX_DOWNLOAD: '64MB',
    }).feeds;
    expect(mirrored).to.include({ kevUrl: 'https://mirror.internal/kev.json', kevAllowPrivate: true, epssAllowPrivate: false, intervalMs: 21_600_000, timeoutMs: 30_000, epssMaxBytes: 64 * 1024 * 1024 });
    expect(loadConfig({ VIGIL_FEED_INTERVAL: '0s' }).feeds.intervalMs).to.equal(0);
  });

  it('stops the start on a malformed feed setting, naming it', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ VIGIL_KEV_URL: 'not a url' }, 'VIGIL_KEV_URL'], [{ VIGIL_EPSS_URL: 'file:///etc/passwd' }, 'VIGIL_EPSS_URL'],
      [{ VIGIL_EPSS_ALLOW_PRIVATE: 'maybe' }, 'VIGIL_EPSS_ALLOW_PRIVATE'], [{ VIGIL_FEED_INTERVAL: '10s' }, 'VIGIL_FEED_INTERVAL'],
      [{ VIGIL_FEED_TIMEOUT: '2h' }, 'VIGIL_FEED_TIMEOUT'], [{ VIGIL_KEV_MAX_DOWNLOAD: '2GB' }, 'VIGIL_KEV_MAX_DOWNLOAD'],
    ];
    for (const [env, name] of cases) expect(() => loadConfig(env), name).to.throw(SettingError, name);
  });
});
