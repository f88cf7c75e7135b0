import { RecordedEvent } from '../../domain/shared/event-envelope';
import { Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';

type Handler = (w: RowWriter, e: RecordedEvent<any>) => Promise<unknown> | void;

/** sso_subjects: which account each identity-provider subject signs on as (issue #14). */
const handlers: Record<string, Handler> = {
  SsoSubjectBound: (w, e) => w.insert('sso_subjects', {
    subject_key: e.data.subjectKey, account_id: e.data.accountId, issuer: e.data.issuer, subject: e.data.subject, via: e.data.via, bound_at: e.metadata.at,
  }, ['subject_key']),
};

export const ssoProjection: Projection = {
  name: 'identity-sso',
  handles: new Set(Object.keys(handlers)),
  tables: ['sso_subjects'],
  async apply(w, events) {
    for (const e of events) await handlers[e.type](w, e);
  },
};
