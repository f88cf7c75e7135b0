import { expect } from 'chai';
import { agentDecider, AgentEvent, AGENT_TRANSITIONS } from '../../../domain/agents/agent';
import { attestationRow, ATTESTATION_ROWS, credentialRow, CREDENTIAL_ROWS, SEALING_KEY_EFFECT } from '../../../domain/agents/credential-state';
import { credentialBinding, reportBytes, sealingKeyBytes } from '../../../domain/agents/attestation';
import { deciderSpec } from '../../support/decider-spec';

const now = new Date('2026-11-25T12:00:00.000Z');
const at = now.toISOString();
const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');
const registered: AgentEvent = { type: 'AgentRegistered', data: { id: 7, accountId: 1, version: '0.11.0', mode: 'delegated', labels: [], maxConcurrent: 1, registeredAt: at } };
const pinned: AgentEvent = { type: 'AgentSigningKeyPinned', data: { id: 7, publicKey: key(1), generated: false, sealingKeyWithdrawn: false, at } };
const sealed = (createdAt: string): AgentEvent => ({ type: 'AgentSealingKeyAccepted', data: { id: 7, publicKey: key(2), createdAt, at } });
const spec = deciderSpec(agentDecider);

describe('Agent decider (domain/agents/agent.ts, spec 1 §2.7, §3.3)', () => {
  it('[S1.2.7-01] [S1.2.7-02] the first hello creates the row: mode as announced, max_concurrent 1', () => {
    spec.given([]).when({ type: 'Hello', agentId: 7, accountId: 1, version: '0.11.0', mode: 'local', labels: ['linux', 'dmz'], now })
      .then([{ type: 'AgentRegistered', data: { id: 7, accountId: 1, version: '0.11.0', mode: 'local', labels: ['dmz', 'linux'], maxConcurrent: 1, registeredAt: at } }]);
  });

  it('a repeated hello with the same facts records nothing; a changed version is recorded', () => {
    spec.given([registered]).when({ type: 'Hello', agentId: 7, accountId: 1, version: '0.11.0', mode: 'delegated', labels: [], now }).then([]);
    spec.given([registered]).when({ type: 'Hello', agentId: 7, accountId: 1, version: '0.12.0', mode: 'delegated', labels: [], now })
      .then([{ type: 'AgentHelloChanged', data: { id: 7, version: '0.12.0', mode: 'delegated', labels: [], at } }]);
  });

  it('[S1.2.7-03] [S1.8.2-11] max_concurrent is 1 to 16; 0 and 17 are refused (400)', () => {
    spec.given([registered]).when({ type: 'SetMaxConcurrent', maxConcurrent: 16, now }).then([{ type: 'AgentLimitSet', data: { id: 7, maxConcurrent: 16, previous: 1, at } }]);
    for (const n of [0, 17, 2.5]) spec.given([registered]).when({ type: 'SetMaxConcurrent', maxConcurrent: n, now }).thenRefused('invalid');
    spec.given([]).when({ type: 'SetMaxConcurrent', maxConcurrent: 2, now }).thenRefused('not_found');
  });

  it('[S1.4.7-26] the newest signed sealing key wins; an older or equal one is 409', () => {
    spec.given([registered, pinned]).when({ type: 'AnnounceSealingKey', publicKey: key(2), createdAt: '2026-11-25T11:00:00.000Z', signature: 'valid', now })
      .then([sealed('2026-11-25T11:00:00.000Z')]);
    spec.given([registered, pinned, sealed('2026-11-25T11:00:00.000Z')]).when({ type: 'AnnounceSealingKey', publicKey: key(3), createdAt: '2026-11-25T10:00:00.000Z', signature: 'valid', now }).thenRefused('conflict');
    spec.given([registered, pinned, sealed('2026-11-25T11:00:00.000Z')]).when({ type: 'AnnounceSealingKey', publicKey: key(3), createdAt: '2026-11-25T11:30:00.000Z', signature: 'valid', now })
      .then([{ type: 'AgentSealingKeyAccepted', data: { id: 7, publicKey: key(3), createdAt: '2026-11-25T11:30:00.000Z', at } }]);
  });

  it('[S1.4.7-27] a bad signature is 403; without a pinned signing key nothing can be verified (409)', () => {
    spec.given([registered, pinned]).when({ type: 'AnnounceSealingKey', publicKey: key(2), createdAt: at, signature: 'invalid', now }).thenRefused('forbidden');
    spec.given([registered]).when({ type: 'AnnounceSealingKey', publicKey: key(2), createdAt: at, signature: 'valid', now }).thenRefused('conflict');
  });

  it('[S1.3.3-05] [S1.3.3-06] [S1.3.3-07] pinning, replacing or removing the signing key and deleting the sealing key withdraw it; a newer key restores it (S1.3.3-08)', () => {
    const history = [registered, pinned, sealed('2026-11-25T11:00:00.000Z')];
    spec.given(history).when({ type: 'PinSigningKey', publicKey: key(9), generated: true, now })
      .then([{ type: 'AgentSigningKeyPinned', data: { id: 7, publicKey: key(9), generated: true, sealingKeyWithdrawn: true, at } }]);
    spec.given(history).when({ type: 'RemoveSigningKey', now }).then([{ type: 'AgentSigningKeyRemoved', data: { id: 7, sealingKeyWithdrawn: true, at } }]);
    spec.given(history).when({ type: 'DeleteSealingKey', now }).then([{ type: 'AgentSealingKeyWithdrawn', data: { id: 7, at } }]);
    const withdrawn: AgentEvent = { type: 'AgentSealingKeyWithdrawn', data: { id: 7, at } };
    // the same key again is not newer: it stays withheld; a newer one is accepted
    spec.given([...history, withdrawn]).when({ type: 'AnnounceSealingKey', publicKey: key(2), createdAt: '2026-11-25T11:00:00.000Z', signature: 'valid', now }).thenRefused('conflict');
    spec.given([...history, withdrawn]).when({ type: 'AnnounceSealingKey', publicKey: key(4), createdAt: '2026-11-25T11:00:01.000Z', signature: 'valid', now })
      .then([{ type: 'AgentSealingKeyAccepted', data: { id: 7, publicKey: key(4), createdAt: '2026-11-25T11:00:01.000Z', at } }]);
  });

  it('[S1.4.7-11] a signing key is 32 bytes of base64', () => {
    spec.given([registered]).when({ type: 'PinSigningKey', publicKey: Buffer.alloc(31).toString('base64'), generated: false, now }).thenRefused('invalid');
    spec.given([registered]).when({ type: 'PinSigningKey', publicKey: 'generate', generated: false, now }).thenRefused('invalid');
  });

  it('[S1.3.3-01] [S1.3.3-02] [S1.3.3-03] [S1.3.3-04] the §3.3 rows, read from the facts', () => {
    expect(CREDENTIAL_ROWS[credentialRow({ mode: 'delegated', signingKeyPinned: true, sealingKeyVerified: true })]).to.equal('Sealed end to end (verified sealing key)');
    expect(CREDENTIAL_ROWS[credentialRow({ mode: 'delegated', signingKeyPinned: true, sealingKeyVerified: false })]).to.equal('No verified sealing key: credentials withheld');
    expect(CREDENTIAL_ROWS[credentialRow({ mode: 'delegated', signingKeyPinned: false, sealingKeyVerified: true })]).to.equal('No verified sealing key: credentials withheld');
    expect(ATTESTATION_ROWS[attestationRow({ signingKeyPinned: true })]).to.equal('Results attested');
    expect(ATTESTATION_ROWS[attestationRow({ signingKeyPinned: false })]).to.equal('Results unsigned');
    for (const command of AGENT_TRANSITIONS.registered) expect(SEALING_KEY_EFFECT).to.have.property(command);
  });

  it('the canonical bytes of ADR 0017', () => {
    expect(Buffer.from(reportBytes('result', 7, 12, 2, 'AB')).toString()).to.equal('vigil-agent-result/v1\n7\n12\n2\nab');
    expect(Buffer.from(sealingKeyBytes(7, key(2), at)).toString()).to.equal(`vigil-agent-sealing-key/v1\n7\n${key(2)}\n${at}`);
    expect(credentialBinding(3, 1, { kind: 'https_token', host: 'Git.Example', username: 'oauth2' })).to.equal('vigil-sealed-credential/v1\n3\n1\nhttps-token\ngit.example\noauth2');
  });
});
