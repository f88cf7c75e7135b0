import { refuse } from '../shared/decider';

/**
 * Container image references: [registry-host[:port]/]path[:tag][@sha256:digest], the grammar of the
 * distribution/reference package that docker and the scanners use, so that what is accepted here
 * can be pulled there. Refusals say which part is wrong.
 */

const MAX_NAME_LENGTH = 255;
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN_LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?';
const REGISTRY = new RegExp(`^(?:${DOMAIN_LABEL}(?:\\.${DOMAIN_LABEL})*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]+)?$`);
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

export interface ImageReference {
  readonly registry: string | null;
  readonly path: string;
  readonly tag: string | null;
  readonly digest: string | null;
}

/** Parses an image reference or refuses (400) with a detail naming the faulty part. */
export function parseImageReference(raw: unknown): ImageReference {
  if (typeof raw !== 'string' || raw.trim() === '') throw refuse.invalid('image is required, e.g. registry.example/team/app:1.2 or alpine@sha256:<64 hex>');
  const image = raw.trim();
  if (/[\s\u0000-\u001f\u007f]/.test(image)) throw refuse.invalid(`image "${image}" must not contain spaces or control characters`);

  const [beforeDigest, digest, ...extra] = image.split('@');
  if (extra.length > 0) throw refuse.invalid(`image "${image}" has more than one "@"`);
  if (digest !== undefined && !DIGEST.test(digest)) {
    throw refuse.invalid(`image digest "${digest}" is not valid: expected sha256: followed by 64 lower-case hex digits`);
  }

  // A tag is the part after the last ':' that follows the last '/'; an earlier ':' is a registry port.
  const lastSlash = beforeDigest.lastIndexOf('/');
  const tagColon = beforeDigest.indexOf(':', lastSlash + 1);
  const name = tagColon === -1 ? beforeDigest : beforeDigest.slice(0, tagColon);
  const tag = tagColon === -1 ? null : beforeDigest.slice(tagColon + 1);
  if (tag !== null && !TAG.test(tag)) {
    throw refuse.invalid(`image tag "${tag}" is not valid: letters, digits, "_", "." and "-", at most 128, not starting with "." or "-"`);
  }
  if (name === '') throw refuse.invalid(`image "${image}" names no repository`);
  if (name.length > MAX_NAME_LENGTH) throw refuse.invalid(`image name is longer than ${MAX_NAME_LENGTH} characters`);

  const components = name.split('/');
  // docker's rule: the first component is a registry when it has a dot, a port, is localhost or has capitals.
  const first = components[0];
  const hasRegistry = components.length > 1 && (/[.:]/.test(first) || first === 'localhost' || first !== first.toLowerCase());
  const registry = hasRegistry ? components.shift()! : null;
  if (registry !== null && !REGISTRY.test(registry)) throw refuse.invalid(`image registry "${registry}" is not a valid host[:port]`);
  for (const component of components) {
    if (component !== component.toLowerCase()) throw refuse.invalid(`image repository "${components.join('/')}" must be lower case`);
    if (!PATH_COMPONENT.test(component)) {
      throw refuse.invalid(`image path component "${component}" is not valid: lower-case letters and digits, separated by ".", "_", "__" or "-"`);
    }
  }
  return { registry, path: components.join('/'), tag, digest: digest ?? null };
}

/** Refuses (400) an invalid image reference; answers it trimmed, as it will be stored and pulled. */
export function validateImageReference(raw: unknown): string {
  parseImageReference(raw);
  return (raw as string).trim();
}
