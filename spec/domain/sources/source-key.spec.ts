import { sourceKeyDecider } from '../../../domain/sources/source-key';
import { deciderSpec } from '../../support/decider-spec';

/** Who holds an integration key among the declared sources (one key names one source, spec 1 §2.5). */
describe('source key reservation', () => {
  const spec = deciderSpec(sourceKeyDecider);
  const assigned = (slug: string) => ({ type: 'SourceKeyAssigned' as const, data: { apiKeyId: 4, slug } });

  it('assigns a free key to a source', () => {
    spec.given([]).when({ type: 'AssignSourceKey', apiKeyId: 4, slug: 'ci' }).then([assigned('ci')]);
  });

  it('records nothing when the source already holds the key', () => {
    spec.given([assigned('ci')]).when({ type: 'AssignSourceKey', apiKeyId: 4, slug: 'ci' }).then([]);
  });

  it('moves a key to another source once released', () => {
    spec.given([assigned('ci'), { type: 'SourceKeyReleased', data: { apiKeyId: 4, slug: 'ci' } }])
      .when({ type: 'AssignSourceKey', apiKeyId: 4, slug: 'nightly' }).then([assigned('nightly')]);
  });

  it('releases a key only for the source holding it: another source\'s hold stays', () => {
    spec.given([assigned('ci')]).when({ type: 'ReleaseSourceKey', apiKeyId: 4, slug: 'ci' }).then([{ type: 'SourceKeyReleased', data: { apiKeyId: 4, slug: 'ci' } }]);
    spec.given([assigned('ci'), { type: 'SourceKeyReleased', data: { apiKeyId: 4, slug: 'ci' } }, assigned('nightly')])
      .when({ type: 'ReleaseSourceKey', apiKeyId: 4, slug: 'ci' }).then([]);
    spec.given([]).when({ type: 'ReleaseSourceKey', apiKeyId: 4, slug: 'ci' }).then([]);
  });
});
