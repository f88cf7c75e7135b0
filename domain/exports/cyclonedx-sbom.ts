import { cycloneDxHead } from './cyclonedx-vex';
import type { DocumentContext } from './model';

/** One component of a target's inventory and who saw it (spec 1 §4.3: build, scanner or both). */
export interface SbomComponent {
  name: string;
  version: string | null;
  purl: string | null;
  type: string;
  source: 'build' | 'scanner' | 'both';
}

const CDX_TYPES = new Set(['application', 'framework', 'library', 'container', 'platform', 'operating-system', 'device', 'device-driver', 'firmware', 'file', 'machine-learning-model', 'data', 'cryptographic-asset']);

/** Components merged by purl (build and scanner seeing one purl make it "both"), sorted, each once. */
export function mergeInventory(build: readonly SbomComponent[], scanner: readonly SbomComponent[]): SbomComponent[] {
  const merged = new Map<string, SbomComponent>();
  const keyOf = (c: SbomComponent) => c.purl ?? `${c.name}@${c.version ?? ''}`;
  for (const c of build) if (!merged.has(keyOf(c))) merged.set(keyOf(c), { ...c });
  for (const c of scanner) {
    const held = merged.get(keyOf(c));
    if (!held) merged.set(keyOf(c), { ...c, source: 'scanner' });
    else if (held.source === 'build') held.source = 'both';
  }
  return [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
}

/** CycloneDX 1.6 SBOM of a target's inventory; each component says its source in the property vigil:source. */
export function* cycloneDxSbom(ctx: DocumentContext, components: readonly SbomComponent[]): Generator<string> {
  yield cycloneDxHead(ctx);
  yield ',"components":[';
  let first = true;
  const refs = new Set<string>();
  for (const c of components) {
    let ref = c.purl ?? `${c.name}@${c.version ?? ''}`;
    for (let n = 2; refs.has(ref); n++) ref = `${c.purl ?? c.name}#${n}`;
    refs.add(ref);
    const component: Record<string, unknown> = { type: CDX_TYPES.has(c.type) ? c.type : 'library', 'bom-ref': ref, name: c.name };
    if (c.version) component.version = c.version;
    if (c.purl) component.purl = c.purl;
    component.properties = [{ name: 'vigil:source', value: c.source }];
    yield (first ? '' : ',') + JSON.stringify(component);
    first = false;
  }
  yield ']}';
}
