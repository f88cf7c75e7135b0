import { expect } from 'chai';
import { KnexTimeoutError } from 'knex';
import { cleanText, fitRow, fitText } from '../../../projections/engine/column-fit';
import { describeError, isTransient } from '../../../projections/engine/event-failures';

describe('Projections: values fit their columns (ADR 0011)', () => {
  it('replaces U+0000 and lone surrogates by U+FFFD and keeps surrogate pairs', () => {
    expect(cleanText('plain')).to.equal('plain');
    expect(cleanText('a\u0000b\u0000')).to.equal('a\ufffdb\ufffd');
    expect(cleanText('x\ud800y')).to.equal('x\ufffdy');
    expect(cleanText('\udc00')).to.equal('\ufffd');
    expect(cleanText('end\ud83d')).to.equal('end\ufffd');
    expect(cleanText('pair \ud83d\ude00 ok')).to.equal('pair \ud83d\ude00 ok');
    expect(cleanText('\ude00\ud83d')).to.equal('\ufffd\ufffd');
  });

  it('cuts a string to the column width in code points, never inside a surrogate pair', () => {
    expect(fitText('abcdef', { chars: 3, bytes: null })).to.equal('abc');
    expect(fitText('abc', { chars: 3, bytes: null })).to.equal('abc');
    const emoji = '\ud83d\ude00';
    // Three code points in six UTF-16 units: fits a varchar(3) whole.
    expect(fitText(emoji.repeat(3), { chars: 3, bytes: null })).to.equal(emoji.repeat(3));
    expect(fitText(emoji.repeat(4), { chars: 3, bytes: null })).to.equal(emoji.repeat(3));
    expect(fitText('a\u0000bcdef', { chars: 3, bytes: null })).to.equal('a\ufffdb');
    expect(fitText('x'.repeat(10), undefined)).to.equal('x'.repeat(10));
  });

  it('cuts a string to the bytes of a MySQL TEXT column, whole characters only', () => {
    expect(fitText('é'.repeat(10), { chars: null, bytes: 7 })).to.equal('é'.repeat(3));
    expect(fitText('\ud83d\ude00\ud83d\ude00', { chars: null, bytes: 6 })).to.equal('\ud83d\ude00');
    expect(fitText('abc', { chars: null, bytes: 3 })).to.equal('abc');
    expect(Buffer.byteLength(fitText('€'.repeat(30000), { chars: null, bytes: 65535 }))).to.be.at.most(65535);
  });

  it('fits a row without copying it when nothing changes, and leaves non-strings alone', () => {
    const limits = new Map([['name', { chars: 4, bytes: null }]]);
    const row = { id: 1, name: 'abcd', other: 'free text', flag: true, none: null };
    expect(fitRow(row, limits)).to.equal(row);
    const fitted = fitRow({ ...row, name: 'a\u0000cdef' }, limits);
    expect(fitted).to.deep.equal({ ...row, name: 'a\ufffdcd' });
  });

  it('describes a database error without the statement knex puts in front of it (it carries values on MySQL)', () => {
    const mysql = Object.assign(new Error("insert into `accounts` (`password_hash`) values ('scrypt$secret') - Data too long for column 'username' at row 1"), {
      code: 'ER_DATA_TOO_LONG', sqlMessage: "Data too long for column 'username' at row 1",
    });
    expect(describeError(mysql)).to.equal("ER_DATA_TOO_LONG: Data too long for column 'username' at row 1");
    const pg = Object.assign(new Error('insert into "t" ("a") values ($1) - value too long for type character varying(3)'), { code: '22001' });
    expect(describeError(pg)).to.equal('22001: value too long for type character varying(3)');
    expect(describeError(new TypeError("Cannot read properties of null (reading 'id')"))).to.equal("TypeError: Cannot read properties of null (reading 'id')");
    expect(describeError(new Error('x'.repeat(5000)))).to.have.length(1000);
  });

  it('tells errors of the database or the connection (the step is retried) from errors of the event (it is set aside)', () => {
    expect(isTransient(Object.assign(new Error('deadlock'), { code: '40P01' }))).to.equal(true);
    expect(isTransient(Object.assign(new Error('deadlock'), { code: 'ER_LOCK_DEADLOCK' }))).to.equal(true);
    expect(isTransient(Object.assign(new Error('gone'), { code: 'ECONNRESET' }))).to.equal(true);
    expect(isTransient(Object.assign(new Error('aborted'), { code: '25P02' }))).to.equal(true);
    expect(isTransient(new KnexTimeoutError('timeout'))).to.equal(true);
    expect(isTransient(Object.assign(new Error('too long'), { code: '22001' }))).to.equal(false);
    expect(isTransient(Object.assign(new Error('duplicate'), { code: 'ER_DUP_ENTRY' }))).to.equal(false);
    expect(isTransient(new TypeError('x'))).to.equal(false);
  });
});
