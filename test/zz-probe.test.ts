import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { createTestApp, type TestApp } from './support/app.ts';
describe('probe', () => {
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp(); });
  afterAll(async () => { await t.close(); });
  it('dumps', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    writeFileSync('/tmp/probe/openapi.json', JSON.stringify(r.json(), null, 2));
    const d = await t.app.inject({ method: 'GET', url: '/docs' });
    writeFileSync('/tmp/probe/docs.txt', JSON.stringify({ s: d.statusCode, h: d.headers, b: d.body.slice(0, 3000) }, null, 2));
    writeFileSync('/tmp/probe/routes.txt', t.app.printRoutes({ commonPrefix: false }));
  });
});
