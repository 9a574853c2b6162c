/**
 * The provision-alerts handler as deployed: settings from env, credentials from the sandbox's
 * Secrets Manager over HTTP, the version table in DynamoDB (dynalite, the real SDK client), the
 * alerts in the sandbox.
 */
import type { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv, secretsManagerClientFromEnv } from '../../cli/connect';
import { createHandler } from '../../functions/provision-alerts/handler';
import { DynamoVersionStore } from '../../lib/alerts';
import type { AlertEvent } from '../../lib/events';
import { clearCredentialsCache } from '../../lib/credentials';
import { createLogger } from '../../lib/log';
import type { LocalDynamo } from '../support/local-dynamo';
import type { Sandbox } from '../../sandbox/index';
import { declared, iso, requestEvent, syncedEvent, tileAlert } from './alert-events';
import {
  backendFor,
  makeDashboard,
  sandboxWithVersions,
  storedAlerts,
  VERSION_TABLE,
} from './alerts-helpers';

let sb: Sandbox;
let dynamo: LocalDynamo;
let secrets: SecretsManagerClient;
const read: string[] = [];
const context = {} as Context;

beforeAll(async () => {
  ({ sb, dynamo } = await sandboxWithVersions());
  const real = secretsManagerClientFromEnv(sandboxEnv(sb.info));
  // Records which secrets the function reads (the sandbox's log has no secret ids).
  secrets = new Proxy(real, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver) as unknown;
      // The functions read their secrets with GetSecretValue only.
      return (command: GetSecretValueCommand) => {
        read.push(String(command.input.SecretId));
        return target.send(command);
      };
    },
  });
});
afterEach(() => {
  clearCredentialsCache();
  read.length = 0;
});
afterAll(async () => {
  secrets.destroy();
  await Promise.all([sb.close(), dynamo.close()]);
});

/** The deployed env (secret ids, no values) plus overrides. */
function deployedEnv(extra: Record<string, string | undefined> = {}) {
  return {
    CLOUDOPS_API_URL: sb.info.apiUrl,
    CLOUDOPS_OBSERVABILITY_URL: sb.info.observabilityUrl,
    CLOUDOPS_ORGANIZATION_ID: sb.info.organizationId,
    CLOUDOPS_SERVICE_ID: sb.info.serviceId,
    CLOUDOPS_KEY_SECRET_ID: sb.info.keySecretId,
    CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: sb.info.observabilityTokenSecretId,
    CLOUDOPS_ALERTS_VERSION_TABLE: VERSION_TABLE,
    // The source of requestEvent()'s requests (alert-events.ts).
    CLOUDOPS_ALERT_REQUEST_SOURCES: 'team.payments',
    CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000/1s',
    CLOUDOPS_LOG_LEVEL: 'silent',
    ...extra,
  };
}

function handlerWith(env: Record<string, string | undefined>) {
  return createHandler({
    env,
    secretsManager: secrets,
    dynamo: dynamo.client,
    logger: createLogger({ level: 'silent' }),
  });
}

const batch = (...events: AlertEvent[]) => ({
  Records: events.map((e, i) => ({ messageId: `m-${i}`, body: JSON.stringify(e) })),
});

describe('provision-alerts function (managed mode, secrets from Secrets Manager)', () => {
  it('keeps the newest declaration across invocations: v1, v3 (unchanged), then a delayed v2', async () => {
    const dash = await makeDashboard(backendFor(sb), 'fn-order');
    const wh = sb.info.webhookId;
    const A = [declared(wh, 'Errors', 'A', 1)];
    const handler = handlerWith(deployedEnv());
    expect(
      await handler(
        batch(syncedEvent(dash, A, iso(1000)), syncedEvent(dash, A, iso(3000))),
        context,
      ),
    ).toEqual({ batchItemFailures: [] });
    // A later invocation (maybe another instance: a new handler, same table) gets the old one.
    const late = syncedEvent(dash, [declared(wh, 'Latency', 'C', 3)], iso(2000));
    expect(await handlerWith(deployedEnv())(batch(late), context)).toEqual({
      batchItemFailures: [],
    });
    expect(
      storedAlerts(sb)
        .filter((a) => a.dashboard === dash.id)
        .map((a) => a.name),
    ).toEqual(['A']);
    const stored = await new DynamoVersionStore({
      client: dynamo.client,
      tableName: VERSION_TABLE,
    }).get(`service/${sb.info.serviceId}#d/dashboards%2Ffn-order.yaml`);
    expect(stored).toBe(iso(3000));
    // Managed mode needs one credential: the management key (the token is never read).
    expect(new Set(read)).toEqual(new Set([sb.info.keySecretId]));
  });
});

describe('provision-alerts function (open-source mode)', () => {
  it('works with only the token secret: the management key is neither needed nor read', async () => {
    const dash = await makeDashboard(backendFor(sb), 'fn-oss');
    const handler = handlerWith(
      deployedEnv({
        CLOUDOPS_OBSERVABILITY_MODE: 'open-source',
        CLOUDOPS_API_URL: undefined,
        CLOUDOPS_SERVICE_ID: undefined,
        CLOUDOPS_KEY_SECRET_ID: undefined,
      }),
    );
    const event = requestEvent(
      'oss/1',
      tileAlert(dash, 'Errors', sb.info.webhookId, 'OSS alert', 5),
      iso(1000),
    );
    sb.requestLog.clear();
    expect(await handler(batch(event), context)).toEqual({ batchItemFailures: [] });
    expect(storedAlerts(sb).filter((a) => a.name === 'OSS alert')).toHaveLength(1);
    expect(read).toEqual([sb.info.observabilityTokenSecretId]);
    const surfaces = new Set(sb.requestLog.entries().map((e) => e.surface));
    expect(surfaces).toEqual(new Set(['secretsmanager', 'observability'])); // no management API
  });
});

describe('provision-alerts function configuration', () => {
  it('fails at start naming what is missing', () => {
    expect(() => handlerWith(deployedEnv({ CLOUDOPS_ALERTS_VERSION_TABLE: undefined }))).toThrow(
      /set CLOUDOPS_ALERTS_VERSION_TABLE/,
    );
    expect(() => handlerWith(deployedEnv({ CLOUDOPS_KEY_SECRET_ID: undefined }))).toThrow(
      /CLOUDOPS_KEY_SECRET_ID \(or CLOUDOPS_KEY_ID and CLOUDOPS_KEY_SECRET\)/,
    );
    expect(() => handlerWith(deployedEnv({ CLOUDOPS_SERVICE_ID: undefined }))).toThrow(
      /CLOUDOPS_SERVICE_ID/,
    );
    expect(() =>
      handlerWith(
        deployedEnv({
          CLOUDOPS_OBSERVABILITY_MODE: 'open-source',
          CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: undefined,
        }),
      ),
    ).toThrow(/CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID \(or CLOUDOPS_OBSERVABILITY_TOKEN\)/);
  });
});
