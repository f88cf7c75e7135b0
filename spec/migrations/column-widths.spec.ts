import { expect } from 'chai';
import { COLUMN_WIDTHS } from '../../domain/shared/column-widths';
import { describeEachEngine } from '../support/databases';

/**
 * The named widths are what the migrations made: a limit read from COLUMN_WIDTHS can never let
 * through a text longer than its column (issue #17). Checked on every engine, since each declares
 * its own varchar.
 */
describeEachEngine('Column widths named in domain/shared/column-widths.ts', ({ engine, get }) => {
  it('each named width is the declared width of its column', async () => {
    const knex = get().db.knex;
    const schema = engine === 'mysql' ? knex.raw('DATABASE()') : knex.raw('current_schema()');
    for (const [column, expected] of Object.entries(COLUMN_WIDTHS)) {
      const [table, name] = column.split('.');
      const row = await knex('information_schema.columns')
        .where({ table_schema: schema, table_name: table, column_name: name })
        .first(knex.raw('character_maximum_length AS width'));
      expect(row, `${column} exists`).to.not.equal(undefined);
      expect(Number(row.width), column).to.equal(expected);
    }
  });
});
