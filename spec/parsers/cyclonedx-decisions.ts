import type { Verdict } from './support';

type Json = Record<string, any>;

/** The CycloneDX corpus decisions and the independent component walk, shared with the import spec over HTTP (not a spec file). */

export const DECISIONS: Record<string, { verdict: Verdict; why: string; pattern?: RegExp }> = {
  'sbom/cyclonedx-1.4/bom-examples__vex-affected.json': { verdict: 'refuse', why: 'S1.4.3-53: a VEX-only BOM lists no component', pattern: /no component/ },
  'sbom/cyclonedx-1.4/bom-examples__vex-case9-multi-bom.json': { verdict: 'refuse', why: 'S1.4.3-53', pattern: /no component/ },
  'sbom/cyclonedx-1.5/spec__empty-components-1.5.json': { verdict: 'refuse', why: 'S1.4.3-53: components=[]', pattern: /no component/ },
  'sbom/cyclonedx-1.6/spec__metadata-tool-1.6.json': { verdict: 'refuse', why: 'S1.4.3-53: tools only, no component', pattern: /no component/ },
  'sbom/cyclonedx-1.4/trivy-0.38.3__image.json': { verdict: 'refuse', why: 'S1.4.3-52: strict, fails the 1.4 schema', pattern: /1\.4 schema at \/components\/\d+\/licenses/ },
  'sbom/cyclonedx-1.6/syft__dir-golden-1.6.json': { verdict: 'refuse', why: 'strict: redacted serialNumber fails the schema', pattern: /at \/serialNumber/ },
  'sbom/other/cyclonedx-1.3-json__laravel.json': { verdict: 'refuse', why: 'S1.4.3-52', pattern: /CycloneDX 1\.3; only 1\.4, 1\.5 and 1\.6/ },
  'sbom/other/cyclonedx-1.7-json__trivy-npm.json': { verdict: 'refuse', why: 'S1.4.3-52: 1.7 is not 1.4 to 1.6', pattern: /CycloneDX 1\.7/ },
  'scanners/syft/syft__cyclonedx-1.4-dir.golden.json': { verdict: 'refuse', why: 'strict: redacted placeholders fail the schema', pattern: /schema at \// },
  'scanners/syft/syft__cyclonedx-1.4-image.golden.json': { verdict: 'refuse', why: 'strict: redacted placeholders fail the schema', pattern: /schema at \// },
  'scanners/syft/syft__cyclonedx-1.6-image.golden.json': { verdict: 'refuse', why: 'strict: redacted placeholders fail the schema', pattern: /schema at \// },
};

/** Components counted by a separate recursive walk over the JSON. */
export function componentNames(doc: Json): string[] {
  const walk = (list: unknown): string[] => (Array.isArray(list) ? list.flatMap((c: Json) => [c.name, ...walk(c.components)]) : []);
  return walk(doc.components);
}
