import { expect } from 'chai';
import type { KevEntry } from '../../../domain/enrichment/feed-events';
import {
  catalogueDigest, compareVersions, diffCatalogue, epssFreshness, kevFreshness, MAX_PART_BYTES, partsUnder, shrinksLikePartial,
} from '../../../application/enrichment/feed-rules';
import { MAX_EVENT_BYTES } from '../../../infrastructure/eventstore/sql-event-store';

const entry = (cve: string, o: Partial<KevEntry> = {}): KevEntry => ({
  cve, dateAdded: '2025-01-01', vendorProject: 'Vendor', product: 'Product', name: `${cve} vulnerability`, dueDate: '2025-01-22', ransomware: 'Unknown', ...o,
});

describe('Enrichment feeds: rules of acceptance (pure)', () => {
  it('compares dotted versions by number, text when they have none', () => {
    expect(compareVersions('2025.01.24', '2025.08.25')).to.equal(-1);
    expect(compareVersions('2025.8.25', '2025.08.25')).to.equal(0);
    expect(compareVersions('2025.10.01', '2025.9.30')).to.equal(1);
    expect(compareVersions('v2023.03.01', 'v2025.03.14')).to.equal(-1);
    expect(compareVersions('2025.01.24.1', '2025.01.24')).to.equal(1);
    expect(compareVersions('beta', 'alpha')).to.equal(1);
  });

  it('[S1.8.3-50] KEV: older by version or by release date is refused; same is unchanged; anything first is newer', () => {
    const inUse = { version: '2025.08.25', dateReleased: '2025-08-25T17:04:19.9796Z' };
    expect(kevFreshness(null, inUse)).to.deep.equal({ freshness: 'newer' });
    expect(kevFreshness(inUse, { ...inUse })).to.deep.equal({ freshness: 'same' });
    expect(kevFreshness(inUse, { version: '2025.08.26', dateReleased: '2025-08-26T10:00:00Z' })).to.deep.equal({ freshness: 'newer' });
    // A same-day re-release: same version, later time.
    expect(kevFreshness(inUse, { version: '2025.08.25', dateReleased: '2025-08-25T20:00:00Z' })).to.deep.equal({ freshness: 'newer' });
    expect(kevFreshness(inUse, { version: '2025.01.24', dateReleased: '2025-01-24T15:00:57.5282Z' })).to.include({ freshness: 'older' });
    expect(kevFreshness(inUse, { version: '2025.08.26', dateReleased: '2025-08-01T00:00:00Z' })).to.include({ freshness: 'older' });
    expect(kevFreshness(inUse, { version: '2025.08.24', dateReleased: '2025-08-30T00:00:00Z' })).to.include({ freshness: 'older' });
  });

  it('[S1.8.3-50] EPSS: older by score_date or by model_version is refused; a new model on the same day is newer', () => {
    const inUse = { scoreDate: '2026-09-29T12:00:22Z', modelVersion: 'v2026.06.15' };
    expect(epssFreshness(inUse, { ...inUse })).to.deep.equal({ freshness: 'same' });
    expect(epssFreshness(inUse, { scoreDate: '2026-09-30T12:00:00Z', modelVersion: 'v2026.06.15' })).to.deep.equal({ freshness: 'newer' });
    expect(epssFreshness(inUse, { scoreDate: '2026-09-29T12:00:22Z', modelVersion: 'v2026.09.01' })).to.deep.equal({ freshness: 'newer' });
    expect(epssFreshness(inUse, { scoreDate: '2026-09-28T12:00:00Z', modelVersion: 'v2026.06.15' })).to.include({ freshness: 'older' });
    expect(epssFreshness(inUse, { scoreDate: '2026-09-30T12:00:00Z', modelVersion: 'v2025.03.14' })).to.include({ freshness: 'older' });
  });

  it('[S1.8.3-50] takes a catalogue listing fewer than half of the one in use for a partial one', () => {
    expect(shrinksLikePartial(null, 1)).to.equal(false);
    expect(shrinksLikePartial(1404, 702)).to.equal(false);
    expect(shrinksLikePartial(1404, 701)).to.equal(true);
  });

  it('[S2.6-30] diffs catalogues: new CVEs are newly listed, changed entries are listed again but not newly, missing ones are delisted', () => {
    const inUse = new Map([['CVE-2024-0001', entry('CVE-2024-0001')], ['CVE-2024-0002', entry('CVE-2024-0002')], ['CVE-2024-0003', entry('CVE-2024-0003')]]);
    const diff = diffCatalogue(inUse, [entry('CVE-2024-0001'), entry('CVE-2024-0002', { ransomware: 'Known' }), entry('CVE-2025-0009')]);
    expect(diff.newly).to.deep.equal(['CVE-2025-0009']);
    expect(diff.listed.map((e) => e.cve)).to.deep.equal(['CVE-2024-0002', 'CVE-2025-0009']);
    expect(diff.changed).to.equal(1);
    expect(diff.delisted).to.deep.equal(['CVE-2024-0003']);
    // The first catalogue lists everything newly.
    expect(diffCatalogue(new Map(), [entry('CVE-2024-0001')]).newly).to.deep.equal(['CVE-2024-0001']);
  });

  it('digests the CVE list whatever its order', () => {
    expect(catalogueDigest(['CVE-2', 'CVE-1'])).to.equal(catalogueDigest(['CVE-1', 'CVE-2']));
    expect(catalogueDigest(['CVE-1'])).to.match(/^[0-9a-f]{64}$/);
  });

  it('cuts a catalogue many times today\'s into parts the event store accepts (under 900 KB each)', () => {
    const long = 'x'.repeat(400);
    const big = Array.from({ length: 30_000 }, (_, i) => entry(`CVE-2024-${String(i).padStart(6, '0')}`, { name: long, product: long }));
    const parts = partsUnder(big);
    expect(parts.length).to.be.greaterThan(10);
    expect(parts.flat()).to.have.length(30_000);
    for (const part of parts) {
      const bytes = Buffer.byteLength(JSON.stringify({ version: '2025.08.25', part: 1, entries: part }));
      expect(bytes).to.be.at.most(MAX_PART_BYTES + 100).and.below(MAX_EVENT_BYTES);
    }
    expect(partsUnder([])).to.deep.equal([]);
  });
});
