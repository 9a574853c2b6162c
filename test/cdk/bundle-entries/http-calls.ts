/**
 * Bundled by test/cdk/bundling-shims.test.ts with the stack's esbuild options and run in a child
 * process: the HTTP core and the notifiers' POST make real requests to the URL in argv[2], then
 * node-fetch is asked for what the shims refuse. Prints one JSON line of what happened.
 */
import nodeFetch from 'node-fetch';
import * as z from 'zod/mini';
import { ApiError } from '../../../lib/api/errors';
import { HttpCore } from '../../../lib/api/http';
import { postJson } from '../../../lib/watch/notifiers/http';

const baseUrl = process.argv[2] ?? '';
const core = new HttpCore({
  baseUrl,
  auth: { label: 'bundle-test', header: () => Promise.resolve('Bearer bundle-test') },
  envelope: 'observability',
  rateLimit: false,
  retry: { maxAttempts: 1 },
});
const dashboard = z.object({ id: z.string(), name: z.string() });

async function failure(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'no error';
  } catch (error) {
    if (error instanceof ApiError)
      return `ApiError ${error.status} ${error.code}: ${error.apiMessage}`;
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

const got = await core.request({
  method: 'GET',
  path: { path: '/api/v2/dashboards/d1', route: '/api/v2/dashboards/{id}' },
  schema: dashboard,
});
const created = await core.request({
  method: 'POST',
  path: { path: '/api/v2/dashboards', route: '/api/v2/dashboards' },
  body: { name: 'posted' },
  schema: dashboard,
});
const missing = await failure(() =>
  core.request({
    method: 'GET',
    path: { path: '/api/v2/dashboards/gone', route: '/api/v2/dashboards/{id}' },
    schema: dashboard,
  }),
);
await postJson('webhook', `${baseUrl}/hook`, '{"text":"hello"}', {});
const dataUrl = await failure(() => nodeFetch('data:text/plain,hello'));
const formBody = await failure(() =>
  nodeFetch(`${baseUrl}/form`, { method: 'POST', body: new FormData() }),
);
core.close();
console.log(JSON.stringify({ got, created, missing, dataUrl, formBody }));
