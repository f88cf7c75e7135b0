import fc from 'fast-check';
import { hostileNumber, hostileString, toJsonText } from './hostile';

/** An upload: bytes and the content type they are sent as. */
export interface Upload {
  body: Buffer;
  contentType: string;
}

/**
 * Upload documents for the import routes, in the formats they read (SARIF, LCOV and JaCoCo,
 * JUnit XML, CycloneDX JSON), well formed around hostile texts and numbers, or not well formed
 * at all. Which generator serves a route is told by its path.
 */
export function uploadFor(path: string, types: readonly string[]): fc.Arbitrary<Upload> {
  const documents = path.includes('sarif') ? sarif : path.includes('coverage') ? coverage : path.includes('test-report') ? junit : path.includes('sbom') ? cyclonedx : junk;
  const type = fc.oneof({ arbitrary: fc.constantFrom(...types), weight: 6 }, { arbitrary: fc.constantFrom('text/html', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', ''), weight: 1 });
  return fc.tuple(fc.oneof({ arbitrary: documents, weight: 5 }, { arbitrary: junk, weight: 1 }), type)
    .map(([body, contentType]) => ({ body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'), contentType }));
}

const text = hostileString(0, 300);
const xmlText = fc.oneof(text.map(xmlEscape), text); // escaped, or raw (markup and control characters as they are)

const sarifResult = fc.record({
  ruleId: fc.oneof(fc.constantFrom('R1', 'CKV_AWS_1'), text),
  level: fc.oneof(fc.constantFrom('error', 'warning', 'note', 'none'), text),
  message: fc.record({ text }),
  locations: fc.array(fc.record({ physicalLocation: fc.record({ artifactLocation: fc.record({ uri: text }), region: fc.record({ startLine: hostileNumber(1, 100_000) }) }) }), { maxLength: 2 }),
});

const sarif: fc.Arbitrary<string> = fc.tuple(fc.oneof(fc.constantFrom('Tool', 'Checkov'), text), fc.oneof(fc.constant('1.0'), text), fc.array(sarifResult, { maxLength: 4 }))
  .map(([name, version, results]) => toJsonText({ version: '2.1.0', runs: [{ tool: { driver: { name, version } }, results }] }));

const coverage: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(text, hostileNumber(0, 1_000), hostileNumber(0, 1_000))
    .map(([file, found, hit]) => `SF:${file}\nDA:1,${toJsonText(hit)}\nLF:${toJsonText(found)}\nLH:${toJsonText(hit)}\nend_of_record\n`),
  fc.tuple(xmlText, hostileNumber(0, 1_000), hostileNumber(0, 1_000))
    .map(([name, missed, covered]) => `<?xml version="1.0"?><report name="${name}"><package name="${name}"><counter type="LINE" missed="${toJsonText(missed)}" covered="${toJsonText(covered)}"/></package><counter type="LINE" missed="${toJsonText(missed)}" covered="${toJsonText(covered)}"/></report>`),
);

const junit: fc.Arbitrary<string> = fc.tuple(xmlText, xmlText, xmlText, fc.constantFrom('failure', 'error', 'skipped', ''))
  .map(([suite, name, message, outcome]) => `<?xml version="1.0" encoding="UTF-8"?><testsuite name="${suite}"><testcase classname="${suite}" name="${name}">${outcome ? `<${outcome} message="${message}"/>` : ''}</testcase></testsuite>`);

const cyclonedx: fc.Arbitrary<string> = fc.array(fc.record({ type: fc.constantFrom('library', 'application'), name: text, version: text, purl: text.map((t) => `pkg:npm/${t}`) }), { maxLength: 3 })
  .map((components) => toJsonText({ bomFormat: 'CycloneDX', specVersion: '1.5', version: 1, components }));

/** Bytes that are no document: empty, binary, truncated, a BOM, a zip header. */
const junk: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.constantFrom('', '{', '<', '<?xml', '\ufeff{}', 'null', '[]', '{"version":"2.1.0","runs":null}', '<!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;&a;</x>'),
  fc.uint8Array({ maxLength: 512 }).map((b) => Buffer.from(b)),
  fc.constant(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0])),
  text,
);

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A small well-formed document of the route's kind, in its first declared type: the carrier of hostile headers. */
export function benignUpload(path: string, types: readonly string[]): fc.Arbitrary<Upload> {
  const n = fc.integer({ min: 1, max: 50 });
  const document: fc.Arbitrary<string> = path.includes('sarif')
    ? n.map((i) => JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'Tool', version: '1.0' } }, results: [{ ruleId: `R${i}`, level: 'error', message: { text: 'm' }, locations: [{ physicalLocation: { artifactLocation: { uri: `src/f${i}.ts` }, region: { startLine: i } } }] }] }] }))
    : path.includes('coverage') ? n.map((i) => `SF:src/f${i}.ts\nDA:1,1\nLF:${i}\nLH:1\nend_of_record\n`)
      : path.includes('test-report') ? n.map((i) => `<?xml version="1.0" encoding="UTF-8"?><testsuite name="s${i}"><testcase classname="s" name="t${i}"/></testsuite>`)
        : n.map((i) => JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.5', version: 1, components: [{ type: 'library', name: `lib${i}`, version: '1.0.0', purl: `pkg:npm/lib${i}@1.0.0` }] }));
  return document.map((d) => ({ body: Buffer.from(d, 'utf8'), contentType: path.includes('coverage') ? 'text/plain' : types[0] }));
}
