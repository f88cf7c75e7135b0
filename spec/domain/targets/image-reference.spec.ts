import { expect } from 'chai';
import { DomainError } from '../../../domain/shared/decider';
import { parseImageReference, validateImageReference } from '../../../domain/targets/image-reference';

const DIGEST = `sha256:${'a'.repeat(64)}`;

describe('container image references', () => {
  const valid: [string, { registry: string | null; path: string; tag: string | null; digest: string | null }][] = [
    ['alpine', { registry: null, path: 'alpine', tag: null, digest: null }],
    ['alpine:3.20', { registry: null, path: 'alpine', tag: '3.20', digest: null }],
    ['library/alpine:latest', { registry: null, path: 'library/alpine', tag: 'latest', digest: null }],
    ['registry.example/team/app:1.2.3-rc_1', { registry: 'registry.example', path: 'team/app', tag: '1.2.3-rc_1', digest: null }],
    ['localhost:5000/app', { registry: 'localhost:5000', path: 'app', tag: null, digest: null }],
    ['localhost/app:dev', { registry: 'localhost', path: 'app', tag: 'dev', digest: null }],
    [`ghcr.io/org/my-app@${DIGEST}`, { registry: 'ghcr.io', path: 'org/my-app', tag: null, digest: DIGEST }],
    [`ghcr.io/org/my__app:1@${DIGEST}`, { registry: 'ghcr.io', path: 'org/my__app', tag: '1', digest: DIGEST }],
    ['[::1]:5000/app', { registry: '[::1]:5000', path: 'app', tag: null, digest: null }],
  ];
  for (const [image, parts] of valid) {
    it(`accepts ${image}`, () => {
      expect(parseImageReference(image)).to.deep.equal(parts);
    });
  }

  const invalid: [string, unknown, RegExp][] = [
    ['empty', '', /required/],
    ['a space', 'alpine latest', /spaces/],
    ['capitals in the path', 'team/MyApp', /lower case/],
    ['a short digest', 'alpine@sha256:abc', /64/],
    ['another digest algorithm', `alpine@md5:${'a'.repeat(32)}`, /sha256/],
    ['two @', `alpine@${DIGEST}@${DIGEST}`, /more than one/],
    ['a tag starting with a dot', 'alpine:.x', /tag/],
    ['an empty tag', 'alpine:', /tag/],
    ['a tag of 129 characters', `alpine:${'t'.repeat(129)}`, /tag/],
    ['a path component ending in a separator', 'team/app-', /path component/],
    ['an empty path component', 'team//app', /path component/],
    ['no repository', ':latest', /names no repository/],
    ['an invalid registry', 'bad_host.example/app', /registry/],
  ];
  for (const [why, image, detail] of invalid) {
    it(`refuses (400) ${why} with a detail saying so`, () => {
      let error: unknown;
      try {
        validateImageReference(image);
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(DomainError);
      expect((error as DomainError).kind).to.equal('invalid');
      expect((error as DomainError).message).to.match(detail);
    });
  }

  it('answers the reference trimmed, as given', () => {
    expect(validateImageReference('  alpine:3.20 ')).to.equal('alpine:3.20');
  });
});
