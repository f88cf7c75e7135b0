import { RecordedEvent } from '../../domain/shared/event-envelope';
import { Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';

type Handler = (w: RowWriter, e: RecordedEvent<any>) => Promise<unknown> | void;

/** second_factors: whether each account holds a local second factor, and how many backup codes are left (issue #14). */
const handlers: Record<string, Handler> = {
  SecondFactorEnrolmentBegun: (w, e) => w.upsert('second_factors', { account_id: e.data.accountId, status: 'pending', backup_codes_left: 0, updated_at: e.metadata.at }, ['account_id']),
  SecondFactorEnrolled: (w, e) => w.update('second_factors', { account_id: e.data.accountId }, { status: 'active', backup_codes_left: e.data.backupCodeHashes.length, updated_at: e.metadata.at }),
  SecondFactorBackupCodeConsumed: (w, e) => w.update('second_factors', { account_id: e.data.accountId }, { backup_codes_left: e.data.left, updated_at: e.metadata.at }),
  SecondFactorReset: (w, e) => w.delete('second_factors', { account_id: e.data.accountId }),
};

export const secondFactorProjection: Projection = {
  name: 'identity-second-factor',
  handles: new Set(Object.keys(handlers)),
  tables: ['second_factors'],
  async apply(w, events) {
    for (const e of events) await handlers[e.type](w, e);
  },
};
