// The SDK's committed types (sdk/src/openapi.ts) are what `npm run sdk:generate` makes of the
// document the API serves: rendered here from a running test app's GET /v1/openapi.json, they must
// be identical. On failure, run `npm run sdk:generate` and commit the result.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { GENERATED_TYPES_PATH, renderTypes, servedDocument } from '../scripts/generate-sdk-types.ts';
import { createTestApp, type TestApp } from './support/app.ts';

describe('SDK types generated from the OpenAPI document', () => {
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp(); });
  afterAll(async () => { await t?.close(); });

  it('the committed sdk/src/openapi.ts equals the types rendered from the served document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const rendered = await renderTypes(JSON.parse(res.body));
    const committed = await readFile(GENERATED_TYPES_PATH, 'utf8');
    // Compared as lines so a failure shows where they differ, not two 200 KB strings.
    expect(committed.split('\n')).toEqual(rendered.split('\n'));
  });

  it('the generator builds the same document without a database as the running app serves', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(await servedDocument()).toEqual(JSON.parse(res.body));
  });

  it('the comparison can fail: a route schema change shows in the rendered types', async () => {
    const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).body);
    doc.paths['/v1/destinations'].post.requestBody.content['application/json'].schema.properties.nickname = { type: 'string' };
    const rendered = await renderTypes(doc);
    const committed = await readFile(GENERATED_TYPES_PATH, 'utf8');
    expect(rendered).not.toEqual(committed);
    expect(rendered).toContain('nickname?: string;');
  });
});
