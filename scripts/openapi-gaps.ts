/**
 * Lists the operations of the OpenAPI document whose success answer declares no schema: a route
 * added without `responses: {200: {schema}}` (and with no entry in openapi-answers.ts) shows here
 * before spec/interfaces/http/ops/openapi.spec.ts fails on it.   npx tsx scripts/openapi-gaps.ts
 */
import { buildOpenApi } from '../interfaces/http/openapi';
import { allRoutes } from '../interfaces/http/routes';
import type { Services } from '../interfaces/http/services';

const doc = buildOpenApi(allRoutes({} as Services), { title: 'Vigil API', version: '0' }) as { paths: Record<string, Record<string, { responses: Record<string, { content?: unknown }> }>> };
let gaps = 0;
for (const [p, ops] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(ops)) {
    for (const [status, answer] of Object.entries(op.responses)) {
      const s = Number(status);
      if (s < 300 && s !== 204 && !answer.content) { gaps++; console.log(`${method.toUpperCase()} ${p} ${s}`); }
    }
  }
}
console.log(`${gaps} success answer(s) without a schema`);
process.exit(gaps ? 1 : 0);
