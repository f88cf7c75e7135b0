import { createHash } from 'node:crypto';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { KevCatalogue } from '../../application/enrichment/ports';
import type { KevEntry } from '../../domain/enrichment/feed-events';
import { FeedRefusal } from '../../domain/enrichment/feed-refusal';
import { KEV_SCHEMA } from './kev-schema';

const LABEL = 'The KEV catalogue';
const VERSION = /^[0-9A-Za-z][0-9A-Za-z._-]{0,63}$/;

let validator: ValidateFunction | null = null;

function validate(): ValidateFunction {
  if (validator) return validator;
  // strict off: the official schema carries a "url" keyword Ajv's strict mode would reject.
  const ajv = new Ajv({ strict: false, allErrors: false });
  addFormats(ajv);
  validator = ajv.compile(KEV_SCHEMA);
  return validator;
}

/**
 * Reads a KEV catalogue (JSON) and refuses it (FeedRefusal) when it is not UTF-8, not complete JSON
 * (a truncated download), not valid against the official schema, declares a count other than the
 * number it lists (partial), or lists a CVE twice.
 */
export function parseKevCatalogue(bytes: Buffer): KevCatalogue {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new FeedRefusal('malformed', `${LABEL} is not UTF-8 text.`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw new FeedRefusal(bytes.length === 0 ? 'partial' : 'malformed', `${LABEL} is not complete JSON (${bytes.length} bytes): truncated or not a catalogue.`);
  }
  const check = validate();
  if (!check(document)) {
    throw new FeedRefusal('malformed', `${LABEL} does not follow the official KEV schema: ${describe(check.errors?.[0])}.`);
  }
  const d = document as {
    catalogVersion: string; dateReleased: string; count: number;
    vulnerabilities: Array<{ cveID: string; vendorProject: string; product: string; vulnerabilityName: string; dateAdded: string; dueDate: string; knownRansomwareCampaignUse?: string }>;
  };
  if (!VERSION.test(d.catalogVersion)) throw new FeedRefusal('malformed', `${LABEL} has a catalogVersion Vigil cannot compare (letters, digits, dots and dashes, at most 64).`);
  if (Number.isNaN(Date.parse(d.dateReleased))) throw new FeedRefusal('malformed', `${LABEL} has a dateReleased that is not a date-time.`);
  if (d.count !== d.vulnerabilities.length) {
    throw new FeedRefusal('partial', `${LABEL} declares ${d.count} vulnerabilities but lists ${d.vulnerabilities.length}: a partial catalogue.`);
  }
  const seen = new Set<string>();
  const entries: KevEntry[] = [];
  for (const v of d.vulnerabilities) {
    if (seen.has(v.cveID)) throw new FeedRefusal('malformed', `${LABEL} lists ${v.cveID} twice.`);
    seen.add(v.cveID);
    entries.push({
      cve: v.cveID, dateAdded: v.dateAdded, vendorProject: v.vendorProject.slice(0, 512), product: v.product.slice(0, 512),
      name: v.vulnerabilityName.slice(0, 2000), dueDate: v.dueDate, ransomware: v.knownRansomwareCampaignUse?.slice(0, 32) ?? null,
    });
  }
  return { version: d.catalogVersion, dateReleased: d.dateReleased, count: d.count, entries, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** The first schema error, located, without echoing the document's values. */
function describe(error: ErrorObject | undefined): string {
  if (!error) return 'invalid';
  const at = error.instancePath || '(the document)';
  return `${at} ${error.message ?? 'is invalid'}`;
}
