import { expect } from 'chai';
import { CredentialRef, TargetCommand, targetDecider, TargetEvent, tokenHostOf } from '../../../domain/targets';
import { deciderSpec } from '../../support/decider-spec';

const spec = deciderSpec(targetDecider);
const now = new Date('2026-02-01T10:00:00.000Z');
const token: CredentialRef = { id: 5, kind: 'https_token' };
const key: CredentialRef = { id: 6, kind: 'ssh_key' };
const register = (url: string, credential?: CredentialRef | null): TargetCommand => ({ type: 'RegisterRepository', id: 1, actor: '1', now, url, credential });
const registered = (url: string, credential?: CredentialRef): TargetEvent[] => targetDecider.decide(register(url, credential), targetDecider.initialState());

describe('targets: the clone credential a repository names (issue #4)', () => {
  it('records the credential on the repository; none leaves the event as before', () => {
    expect(registered('https://git.example/o/r', token)[0].data).to.deep.include({ credential: token });
    expect(registered('https://git.example/o/r')[0].data).not.to.have.property('credential');
  });

  it('refuses an SSH key on a non-ssh URL and an HTTPS token on a non-https URL (400)', () => {
    expect(spec.given([]).when(register('https://git.example/o/r', key)).thenRefused('invalid').message).to.match(/sshKeyId 6 .* ssh URLs only/);
    spec.given([]).when(register('git://git.example/o/r', key)).thenRefused('invalid');
    expect(spec.given([]).when(register('http://git.example/o/r', token)).thenRefused('invalid').message).to.match(/https only/);
    spec.given([]).when(register('git@git.example:o/r.git', token)).thenRefused('invalid');
    expect(registered('git@git.example:o/r.git', key)[0].data).to.deep.include({ credential: key });
    expect(registered('ssh://git@git.example:2222/o/r', key)[0].data).to.deep.include({ credential: key });
  });

  it('an update sets, changes or clears the credential (null), and a new URL must still suit the one kept', () => {
    const history = registered('https://git.example/o/r', token);
    const update = (changes: object): TargetCommand => ({ type: 'UpdateTarget', id: 1, actor: '1', now, changes });
    const changes = (c: object) => (targetDecider.decide(update(c), history.reduce(targetDecider.evolve, targetDecider.initialState()))[0]?.data as { changes: object } | undefined)?.changes;
    expect(changes({ credential: null })).to.deep.equal({ credential: null });
    expect(changes({ credential: { id: 7, kind: 'https_token' } })).to.deep.equal({ credential: { id: 7, kind: 'https_token' } });
    expect(changes({ credential: { ...token } }), 'the same credential again changes nothing').to.equal(undefined);
    spec.given(history).when(update({ url: 'ssh://git@git.example/o/r' })).thenRefused('invalid');
    expect(changes({ url: 'ssh://git@git.example/o/r', credential: key })).to.deep.include({ credential: key });
  });

  it('[S1.4.2-03] a PATCH of a manual-only repository applies its url, name and credential (the schedule no longer brings the old fields back)', () => {
    const history = targetDecider.decide({ ...register('https://git.example/o/r'), scanManualOnly: true } as TargetCommand, targetDecider.initialState());
    const [event] = targetDecider.decide({ type: 'UpdateTarget', id: 1, actor: '1', now, changes: { url: 'https://git.example/o/moved', name: 'moved', credential: token } }, history.reduce(targetDecider.evolve, targetDecider.initialState()));
    expect((event.data as { changes: object }).changes).to.deep.equal({ name: 'moved', url: 'https://git.example/o/moved', identity: 'git.example/o/moved', credential: token });
  });

  it('a container image names no credential', () => {
    const history = targetDecider.decide({ type: 'RegisterContainer', id: 2, actor: '1', now, image: 'registry.example/a:1' }, targetDecider.initialState());
    spec.given(history).when({ type: 'UpdateTarget', id: 2, actor: '1', now, changes: { credential: null } }).thenRefused('invalid');
  });

  it('the host a token must be bound to: host, or host:port when not 443', () => {
    expect(tokenHostOf('https://Git.Example/o/r')).to.equal('git.example');
    expect(tokenHostOf('https://user@git.example:443/o/r')).to.equal('git.example');
    expect(tokenHostOf('https://git.example:8443/o/r')).to.equal('git.example:8443');
    expect(tokenHostOf('ssh://git@git.example/o/r')).to.equal('');
  });
});
