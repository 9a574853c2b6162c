/**
 * An API URL given with the API's own prefix (`.../v1`, `.../api/v2`) or a trailing slash works:
 * lib/config.ts normalises it once, for the CLI and the deployed functions alike, and no request
 * goes to `/v1/v1/...`. Real HTTP against the sandbox, whose request log is the ground truth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../cli/connect';
import { EVERY_OPERATION } from '../../lib/all-clients';
import { clientSettings, createClients, envCredentials } from '../../lib/clients';
import { readConnectionEnv } from '../../lib/config';
import type { Sandbox } from '../../sandbox/index';
import { runCapture } from '../support/cli';
import { startTestSandbox } from '../support/sandbox';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

const paths = () => sb.requestLog.entries().map((e) => e.path);

describe('API URLs with or without their prefix', () => {
  it.each([
    ['with /v1 and /api/v2', '/v1', '/api/v2'],
    ['with a trailing slash', '/v1/', '/api/v2/'],
    ['bare, with a slash', '/', '/'],
  ])('%s: the clients reach both APIs at the paths the contract names', async (_, api, obs) => {
    const env = {
      ...sandboxEnv(sb.info),
      CLOUDOPS_API_URL: sb.info.apiUrl + api,
      CLOUDOPS_OBSERVABILITY_URL: sb.info.observabilityUrl + obs,
      CLOUDOPS_OBSERVABILITY_MODE: 'open-source',
    };
    const config = readConnectionEnv(env);
    expect(config.CLOUDOPS_API_URL).toBe(sb.info.apiUrl);
    expect(config.CLOUDOPS_OBSERVABILITY_URL).toBe(sb.info.observabilityUrl);
    const clients = createClients(clientSettings(config, envCredentials(config)), EVERY_OPERATION);
    sb.requestLog.clear();
    try {
      await clients.requireManagement().listPipes(sb.info.serviceId);
      await clients.backend().listDashboards();
    } finally {
      clients.close();
    }
    expect(paths()).toEqual([
      `/v1/organizations/${sb.info.organizationId}/services/${sb.info.serviceId}/pipes`,
      '/api/v2/dashboards',
    ]);
  });

  it('the CLI with CLOUDOPS_API_URL ending in /v1 checks the pipes, never asking /v1/v1', async () => {
    const env = { ...sandboxEnv(sb.info), CLOUDOPS_API_URL: `${sb.info.apiUrl}/v1` };
    sb.requestLog.clear();
    const run = await runCapture(['pipes', 'check', '--json'], { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(paths().length).toBeGreaterThan(0);
    expect(paths().filter((p) => p.startsWith('/v1/v1'))).toEqual([]);
  });
});
