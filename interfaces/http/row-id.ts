import { Type } from '@sinclair/typebox';

/**
 * Ids are SQL integer columns (32-bit signed): a larger number names no row and would fail the
 * query with the database's range error (a 500, found by the fuzz suite), so a request naming one
 * is refused (400) by the schema like any other malformed value.
 */
export const MAX_ROW_ID = 2_147_483_647;

/** A request's id of a row (path, query or body): 1 to MAX_ROW_ID. */
export const RowId = (options: { description?: string } = {}) => Type.Integer({ minimum: 1, maximum: MAX_ROW_ID, ...options });
