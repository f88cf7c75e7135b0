import { expect } from 'chai';
import { generateKeyPairSync, sign } from 'node:crypto';
import { dsseEnvelope, exportStatement, IN_TOTO_PAYLOAD_TYPE, preAuthenticationEncoding } from '../../../domain/exports/in-toto';
import { requireCorpus } from '../../support/corpus';
import { attestationProblems, protoJsonProblems } from '../../support/attestation-protos';

const PREDICATE = { exporter: { name: 'Vigil', version: '0.1.0' }, format: 'csaf-vex', mediaType: 'application/json', scope: { kind: 'project', id: 1, name: 'Checkout' }, asOf: '2026-02-01T09:00:00.000Z', signingKey: { fingerprint: 'ab'.repeat(32) } };

function envelope(statement = exportStatement({ name: 'project-1.csaf.json', sha256: 'cd'.repeat(32) }, PREDICATE)) {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const payload = Buffer.from(statement, 'utf8');
  return JSON.parse(dsseEnvelope(IN_TOTO_PAYLOAD_TYPE, payload, sign('sha256', preAuthenticationEncoding(IN_TOTO_PAYLOAD_TYPE, payload), privateKey), `sha256:${'ab'.repeat(32)}`));
}

describe('in-toto Statement v1 in a DSSE envelope against the official protos of the corpus (schemas/in-toto/*.proto, schemas/dsse/envelope.proto)', function () {
  requireCorpus(this);

  it('the envelope Vigil writes is an io.intoto.Envelope and its payload an in_toto_attestation.v1.Statement, with the fields their specifications require', () => {
    expect(attestationProblems(envelope())).to.deep.equal([]);
  });

  it('the check is strict: an unknown member, a wrong type, bytes that are not base64, a missing digest or _type are found', () => {
    const e = envelope();
    expect(attestationProblems({ ...e, signature: 'x' })).to.include('$.signature: no such field in .io.intoto.Envelope');
    expect(attestationProblems({ ...e, payloadType: 7 })).to.include('$.payloadType: a string');
    expect(attestationProblems({ ...e, signatures: [{ sig: 'not base64!' }] })).to.include('$.signatures[0].sig: bytes as base64');
    expect(attestationProblems({ ...e, signatures: [] })).to.include('$.signatures: at least one (envelope.proto)');
    const { payload: _p, ...noPayload } = e;
    expect(attestationProblems(noPayload)).to.include('$.payload: REQUIRED (envelope.md)');
    const statement = JSON.parse(Buffer.from(e.payload, 'base64').toString('utf8'));
    const wrapped = (s: unknown) => envelope(JSON.stringify(s));
    expect(attestationProblems(wrapped({ ...statement, subject: [{ name: 'x' }] }))).to.include('payload.subject[0].digest: each subject MUST have digest set (statement-v1.md)');
    expect(attestationProblems(wrapped({ ...statement, subject: [{ name: 'x', digest: { sha256: 5 } }] }))).to.include('payload.subject[0].digest.sha256: a string');
    expect(attestationProblems(wrapped({ ...statement, _type: 'https://in-toto.io/Statement/v0.1' }))).to.include('payload._type: https://in-toto.io/Statement/v1 (statement-v1.md)');
    expect(attestationProblems(wrapped({ ...statement, predicate: 'text' }))).to.include('payload.predicate: a Struct is a JSON object');
    expect(protoJsonProblems('in_toto_attestation.v1.Statement', { ...statement, predicate_type: statement.predicateType })).to.deep.equal([]);
  });

  it('PAE as DSSE v1 defines it, lengths in bytes (envelope.proto: "DSSEv1" SP LEN(type) SP type SP LEN(payload) SP payload)', () => {
    expect(preAuthenticationEncoding('application/vnd.in-toto+json', Buffer.from('héllo', 'utf8')).toString('utf8')).to.equal('DSSEv1 28 application/vnd.in-toto+json 6 héllo');
  });
});
