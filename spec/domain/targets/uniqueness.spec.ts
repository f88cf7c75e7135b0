import { expect } from 'chai';
import { fold } from '../../../domain/shared/decider';
import { TARGET_ALREADY_REGISTERED, TargetKeyCommand, targetKeyDecider, TargetKeyEvent, TargetKeyStatus, targetKeyTransitions } from '../../../domain/targets/uniqueness';
import { deciderSpec } from '../../support/decider-spec';
import { streams } from '../../../domain/shared/streams';

const spec = deciderSpec(targetKeyDecider);
const key = 'e4646a0b6ad635b2662b500c2ee7e29214495a3e6ab94bef07565f5264ba1a9f';
const reservedBy7: TargetKeyEvent = { type: 'TargetKeyReserved', data: { key, targetId: 7 } };
const releasedBy7: TargetKeyEvent = { type: 'TargetKeyReleased', data: { key, targetId: 7 } };
const reserve = (targetId: number): TargetKeyCommand => ({ type: 'Reserve', key, targetId });
const release = (targetId: number): TargetKeyCommand => ({ type: 'Release', key, targetId });

describe('target key reservation (uniqueness across target streams)', () => {
  it('reserves a free key', () => {
    spec.given([]).when(reserve(7)).then([reservedBy7]);
  });

  it('[S1.2.1-34] refuses a key another live target holds: 409 target-already-registered naming it', () => {
    const error = spec.given([reservedBy7]).when(reserve(9)).thenRefused('conflict', TARGET_ALREADY_REGISTERED);
    expect(error.extensions).to.deep.equal({ existingRepositoryId: 7 });
    expect(error.message).to.match(/repository 7 is already registered/);
  });

  it('reserving again for the holder records nothing, so a handler can retry', () => {
    spec.given([reservedBy7]).when(reserve(7)).then([]);
  });

  it('a released key can be taken by another target (the first was deleted or moved)', () => {
    spec.given([reservedBy7, releasedBy7]).when(reserve(9)).then([{ type: 'TargetKeyReserved', data: { key, targetId: 9 } }]);
  });

  it('only the holder releases; anyone else, or a free key, records nothing', () => {
    spec.given([reservedBy7]).when(release(7)).then([releasedBy7]);
    spec.given([reservedBy7]).when(release(9)).then([]);
    spec.given([]).when(release(7)).then([]);
    spec.given([reservedBy7, releasedBy7]).when(release(7)).then([]);
  });

  it('names a short stream per key', () => {
    expect(streams.targetKey(key)).to.equal(`target-key-${key}`);
  });

  describe('transition table', () => {
    const histories: Record<TargetKeyStatus, TargetKeyEvent[]> = { free: [releasedBy7], held: [reservedBy7] };
    for (const status of Object.keys(targetKeyTransitions) as TargetKeyStatus[]) {
      it(`${status}: accepts ${targetKeyTransitions[status].join(', ')}`, () => {
        const state = fold(targetKeyDecider, histories[status]);
        expect(state.status).to.equal(status);
        for (const type of targetKeyTransitions[status]) {
          expect(() => targetKeyDecider.decide({ type, key, targetId: 7 }, state)).not.to.throw();
        }
      });
    }
  });
});
