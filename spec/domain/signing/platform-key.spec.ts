import { platformKeyDecider } from '../../../domain/signing/platform-key';
import { deciderSpec } from '../../support/decider-spec';

describe('the platform key decider (spec 1 §8.3)', () => {
  it('[S1.8.3-16] a stored key is kept: generating again decides nothing, so no second key is ever stored', () => {
    const key = { sealed: { alg: 'A256GCM' as const, kid: 'k', iv: 'aQ==', ct: 'aQ==', tag: 'aQ==' }, publicKeyPem: 'PEM', fingerprint: 'f' };
    const now = new Date('2026-01-01T00:00:00Z');
    deciderSpec(platformKeyDecider).given([]).when({ type: 'StoreGeneratedKey', key, now }).then([{ type: 'PlatformSigningKeyGenerated', data: { ...key, at: now.toISOString() } }]);
    deciderSpec(platformKeyDecider).given([{ type: 'PlatformSigningKeyGenerated', data: { ...key, at: now.toISOString() } }])
      .when({ type: 'StoreGeneratedKey', key: { ...key, fingerprint: 'other' }, now }).then([]);
  });

});
