import fs = require('node:fs');
import * as path from 'node:path';
import { expect } from 'chai';
import * as sinon from 'sinon';
import {
  CycloneDxValidator,
  LIBRARY_SCHEMA_FILES,
  MAX_COMPONENTS,
  parseBuildSbom,
  type CycloneDxVersion,
  type SchemaFiles,
} from '../../infrastructure/parsers/cyclonedx';
import { corpusAvailable, corpusFiles, corpusPath, requireCorpus } from '../support/corpus';
import { expectRefusal, readCorpus, readManifest, verdictOfNote } from './support';
import { componentNames, DECISIONS } from './cyclonedx-decisions';

type Json = Record<string, any>;
const bom = (extra: Json = {}, specVersion = '1.6'): Buffer =>
  Buffer.from(JSON.stringify({ bomFormat: 'CycloneDX', specVersion, version: 1, components: [{ type: 'library', name: 'a' }], ...extra }));

/** The same official schemas as the corpus holds them (plain names, no SNAPSHOT). */
const corpusSchemaFiles = (): SchemaFiles => {
  const dir = corpusPath('schemas', 'cyclonedx');
  return {
    bom: { '1.4': path.join(dir, 'bom-1.4.schema.json'), '1.5': path.join(dir, 'bom-1.5.schema.json'), '1.6': path.join(dir, 'bom-1.6.schema.json') },
    auxiliary: {
      'http://cyclonedx.org/schema/spdx.schema.json': path.join(dir, 'spdx.schema.json'),
      'http://cyclonedx.org/schema/jsf-0.82.schema.json': path.join(dir, 'jsf-0.82.schema.json'),
    },
  };
};

describe('CycloneDX build SBOM parser', () => {
  describe('corpus: every manifest file gets its expected verdict', function () {
    before(function () {
      requireCorpus(this.test!.parent!);
    });
    const rows = corpusAvailable()
      ? readManifest('MANIFEST-reports.tsv').filter((r) => r.file.startsWith('sbom/') || r.file.startsWith('scanners/syft/'))
      : [];
    for (const row of rows) {
      const decided = DECISIONS[row.file];
      const verdict = decided?.verdict ?? verdictOfNote(row.note);
      it(`[S1.4.3-11] ${row.file} is ${verdict === 'accept' ? 'accepted' : 'refused (400)'}${decided ? ` [${decided.why}]` : ''}`, () => {
        expect(verdict, `no verdict for ${row.file}: add it to DECISIONS`).to.not.equal(undefined);
        const body = readCorpus(row.file);
        if (verdict === 'refuse') {
          expectRefusal(() => parseBuildSbom(body), decided?.pattern);
          return;
        }
        const sbom = parseBuildSbom(body);
        const doc = JSON.parse(body.toString('utf8'));
        expect(sbom.specVersion).to.equal(doc.specVersion);
        expect(sbom.components.map((c) => c.name)).to.deep.equal(componentNames(doc));
        const stated = /(\d+) components/.exec(row.note);
        if (stated) expect(sbom.components).to.have.length(Number(stated[1]));
      });
    }
    // Without the corpus there are no rows: one test keeps the suite (and its corpus check) visible.
    if (rows.length === 0) it('has manifest rows to check', () => expect(rows).to.not.be.empty);
  });

  describe('corpus: the library\'s schemas and the corpus\'s official schemas agree', function () {
    before(function () {
      requireCorpus(this.test!.parent!);
    });

    it('[S1.4.3-52] every corpus CycloneDX 1.4-1.6 JSON gets the same verdict from both schema sets', () => {
      const library = new CycloneDxValidator();
      const official = new CycloneDxValidator(corpusSchemaFiles());
      const files = [...['1.4', '1.5', '1.6'].flatMap((v) => corpusFiles('sbom', `cyclonedx-${v}`)), ...corpusFiles('scanners', 'syft')];
      expect(files.length).to.be.above(25);
      for (const file of files) {
        const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
        const version = doc.specVersion as CycloneDxVersion;
        if (!['1.4', '1.5', '1.6'].includes(version) || doc.bomFormat !== 'CycloneDX') continue;
        expect(library.validate(version, doc) === null, path.basename(file)).to.equal(official.validate(version, doc) === null);
      }
    });

    it('the schema definitions are the same once the SNAPSHOT file names are set aside', () => {
      const strip = (file: string): Json => JSON.parse(fs.readFileSync(file, 'utf8').replace(/\.SNAPSHOT\.schema\.json/g, '.schema.json'));
      for (const v of ['1.4', '1.5', '1.6'] as const) {
        const lib = strip(LIBRARY_SCHEMA_FILES.bom[v]);
        const off = strip(corpusSchemaFiles().bom[v]);
        expect(lib.definitions, `bom-${v} definitions`).to.deep.equal(off.definitions);
        // The library relaxes only the top level: $schema's enum, and for 1.4 "version" being required.
        expect(Object.keys(lib.properties)).to.deep.equal(Object.keys(off.properties));
      }
    });
  });

  describe('rules', () => {
    it('[S1.4.3-55] CycloneDX XML is refused with a sentence saying what to send', () => {
      const e = expectRefusal(() => parseBuildSbom(Buffer.from('<?xml version="1.0"?><bom xmlns="http://cyclonedx.org/schema/bom/1.5"/>')));
      expect(e.message).to.equal('CycloneDX XML is not accepted; send CycloneDX JSON 1.4 to 1.6.');
      expectRefusal(() => parseBuildSbom(Buffer.from('\uFEFF  \n<bom/>')), /CycloneDX XML/);
    });

    it('[S1.4.3-52] SPDX and other JSON are refused', () => {
      expectRefusal(() => parseBuildSbom(Buffer.from(JSON.stringify({ spdxVersion: 'SPDX-2.3', SPDXID: 'SPDXRef-DOCUMENT' }))), /SPDX document/);
      expectRefusal(() => parseBuildSbom(bom({ bomFormat: 'AnotherFormat' })), /declares bomFormat "AnotherFormat"/);
      expectRefusal(() => parseBuildSbom(Buffer.from('{"components": []}')), /no bomFormat/);
      expectRefusal(() => parseBuildSbom(Buffer.from('[]')), /JSON object/);
      expectRefusal(() => parseBuildSbom(Buffer.from('{"bomFormat":')), /not readable as JSON/);
    });

    it('[S1.4.3-52] spec versions other than 1.4, 1.5 and 1.6 are refused', () => {
      for (const v of ['1.3', '1.7', '2.0', '1.6.1']) expectRefusal(() => parseBuildSbom(bom({}, v)), new RegExp(`CycloneDX ${v.replace(/\./g, '\\.')};`));
      expectRefusal(() => parseBuildSbom(bom({ specVersion: 1.6 })), /without a specVersion/);
      for (const v of ['1.4', '1.5', '1.6']) expect(parseBuildSbom(bom({}, v)).specVersion).to.equal(v);
    });

    it('[S1.4.3-53] a BOM with no component is refused', () => {
      expectRefusal(() => parseBuildSbom(bom({ components: [] })), /no component/);
      expectRefusal(() => parseBuildSbom(bom({ components: undefined })), /no component/);
    });

    it('[S1.4.3-54] more than 50,000 components, nested ones included, is refused; 50,000 are accepted', function () {
      this.timeout(20000);
      const list = (n: number): Json[] => Array.from({ length: n }, (_, i) => ({ type: 'library', name: `c${i}` }));
      expect(parseBuildSbom(bom({ components: list(MAX_COMPONENTS) })).components).to.have.length(50_000);
      expectRefusal(() => parseBuildSbom(bom({ components: list(MAX_COMPONENTS + 1) })), /more than 50000 components/);
      const nested = list(25_001).map((c, i) => ({ ...c, components: [{ type: 'file', name: `n${i}` }] }));
      expectRefusal(() => parseBuildSbom(bom({ components: nested })), /more than 50000 components/);
    });

    it('[S1.4.3-56] flattens nested components and keeps name, version, purl, type and bom-ref', () => {
      const sbom = parseBuildSbom(
        bom({
          components: [
            { type: 'application', name: 'app', version: '1.0', 'bom-ref': 'app', components: [{ type: 'library', name: 'inner', purl: 'pkg:npm/inner@2.0.0', version: '2.0.0' }] },
            { type: 'library', name: 'solo' },
          ],
        }),
      );
      expect(sbom.components).to.deep.equal([
        { name: 'app', version: '1.0', purl: null, type: 'application', bomRef: 'app' },
        { name: 'inner', version: '2.0.0', purl: 'pkg:npm/inner@2.0.0', type: 'library', bomRef: null },
        { name: 'solo', version: null, purl: null, type: 'library', bomRef: null },
      ]);
    });

    it('[S1.7-22] a schema violation is refused, naming the first failing JSON pointer', () => {
      expectRefusal(() => parseBuildSbom(bom({ components: [{ type: 'library', name: 'a' }, { type: 'gadget', name: 'b' }] })), /1\.6 schema at \/components\/1\/type: must be equal to one of the allowed values/);
      expectRefusal(() => parseBuildSbom(bom({ metadata: { timestamp: '2020-04-13' } }, '1.5')), /1\.5 schema at \/metadata\/timestamp: must match format "date-time"/);
      expectRefusal(() => parseBuildSbom(bom({ unexpected: true }, '1.4')), /at \/: must NOT have additional properties \("unexpected"\)/);
    });

    it('[S1.7-22] the spdx schema the bom schemas $ref is wired in: an unknown licence id fails, a known one passes', () => {
      const licensed = (id: string): Buffer => bom({ components: [{ type: 'library', name: 'a', licenses: [{ license: { id } }] }] });
      expect(parseBuildSbom(licensed('Apache-2.0')).components).to.have.length(1);
      expectRefusal(() => parseBuildSbom(licensed('Not-A-Licence')), /at \/components\/0\/licenses\/0/);
    });

    it('[S1.7-22] duplicate items are refused as the schema\'s uniqueItems says, whatever the key order', () => {
      const twins = [{ type: 'library', name: 'a', version: '1' }, { version: '1', name: 'a', type: 'library' }];
      expectRefusal(() => parseBuildSbom(bom({ components: twins })), /at \/components: must NOT have duplicate items/);
      expect(parseBuildSbom(bom({ components: [twins[0], { ...twins[1], version: '2' }] })).components).to.have.length(2);
    });

    it('compiles each version\'s schema once, on first use', () => {
      const validator = new CycloneDxValidator();
      const read = sinon.spy(fs, 'readFileSync');
      try {
        parseBuildSbom(bom({}, '1.5'), validator);
        const first = read.callCount;
        parseBuildSbom(bom({}, '1.5'), validator);
        expect(first).to.be.above(0);
        expect(read.callCount).to.equal(first);
        expect(read.getCalls().map((c) => String(c.args[0])).filter((f) => f.includes('bom-1.'))).to.deep.equal([LIBRARY_SCHEMA_FILES.bom['1.5']]);
      } finally {
        read.restore();
      }
    });
  });
});
