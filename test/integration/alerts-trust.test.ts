/**
 * provision-alerts takes events only from their owners, as deployed: the handler from env,
 * credentials from the sandbox's Secrets Manager, the version table in dynalite, alerts in the
 * sandbox. A forged `Dashboard Synced` (which, with no alerts, would delete a dashboard's
 * alerts) and a request from a source nobody configured are refused and logged, and nothing is
 * written: no alert call, no version claimed.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv, secretsManagerClientFromEnv } from '../../cli/connect';
import { createHandler } from '../../functions/provision-alerts/handler';
import { clearCredentialsCache } from '../../lib/credentials';
import type { AlertEvent } from '../../lib/events';
import { createLogger } from '../../lib/log';
import type { Sandbox } from '../../sandbox/index';
import type { LocalDynamo } from '../support/local-dynamo';
import { declared, iso, requestEvent, syncedEvent, tileAlert } from './alert-events';
import {
  alertWrites,
  backendFor,
  makeDashboard,
  sandboxWithVersions,
  storedAlerts,
  VERSION_TABLE,
} from './alerts-helpers';

let sb: Sandbox;
let dynamo: LocalDynamo;
let secrets: SecretsManagerClient;

beforeAll(async () => {
  ({ sb, dynamo } = await sandboxWithVersions());
  secrets = secretsManagerClientFromEnv(sandboxEnv(sb.info));
});
afterAll(async () => {
  clearCredentialsCache();
  secrets.destroy();
  await Promise.all([sb.close(), dynamo.close()]);
});

function deployed(requestSources?: string) {
  const lines: string[] = [];
  const handler = createHandler({
    env: {
      CLOUDOPS_API_URL: sb.info.apiUrl,
      CLOUDOPS_OBSERVABILITY_URL: sb.info.observabilityUrl,
      CLOUDOPS_ORGANIZATION_ID: sb.info.organizationId,
      CLOUDOPS_SERVICE_ID: sb.info.serviceId,
      CLOUDOPS_KEY_SECRET_ID: sb.info.keySecretId,
      CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: sb.info.observabilityTokenSecretId,
      CLOUDOPS_ALERTS_VERSION_TABLE: VERSION_TABLE,
      CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000/1s',
      CLOUDOPS_ALERT_REQUEST_SOURCES: requestSources,
    },
    secretsManager: secrets,
    dynamo: dynamo.client,
    logger: createLogger({ level: 'info', sink: (line) => lines.push(line) }),
  });
  const refusals = () =>
    lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.message === 'alert event refused');
  return { handler, refusals };
}

const batch = (...events: AlertEvent[]) => ({
  Records: events.map((e, i) => ({ messageId: `m-${i}`, body: JSON.stringify(e) })),
});

const versionItems = async () =>
  (await dynamo.client.send(new ScanCommand({ TableName: VERSION_TABLE }))).Items ?? [];

describe('events only from their owners', () => {
  it('a forged Dashboard Synced (not from the sync) is refused and logged; the alerts stay', async () => {
    const dash = await makeDashboard(backendFor(sb), 'trust-synced');
    const wh = sb.info.webhookId;
    const owner = deployed();
    // The sync's real event declares one alert.
    const real = syncedEvent(dash, [declared(wh, 'Errors', 'Kept', 1)], iso(1000));
    expect(await owner.handler(batch(real), {} as Context)).toEqual({ batchItemFailures: [] });
    expect(storedAlerts(sb).filter((a) => a.dashboard === dash.id)).toHaveLength(1);
    const versions = await versionItems();
    sb.requestLog.clear();

    // Someone else puts a newer "synced, no alerts" on the bus.
    const forged = { ...syncedEvent(dash, [], iso(9000)), source: 'team.payments' };
    const attacked = deployed('team.payments');
    expect(await attacked.handler(batch(forged), {} as Context)).toEqual({
      batchItemFailures: [],
    });
    expect(attacked.refusals()).toEqual([
      expect.objectContaining({
        level: 'error',
        messageId: 'm-0',
        source: 'team.payments',
        detailType: 'Dashboard Synced',
        reason: expect.stringMatching(/only from source cloudops/) as string,
      }),
    ]);
    expect(alertWrites(sb)).toBe(0);
    expect(
      storedAlerts(sb)
        .filter((a) => a.dashboard === dash.id)
        .map((a) => a.name),
    ).toEqual(['Kept']);
    expect(await versionItems()).toEqual(versions);
  });

  it('an alert request from a source not configured is refused; a configured one is provisioned', async () => {
    const dash = await makeDashboard(backendFor(sb), 'trust-request');
    const wh = sb.info.webhookId;
    const event = requestEvent('trust/r1', tileAlert(dash, 'Latency', wh, 'Planted', 5), iso(1000));
    const none = deployed();
    const versions = await versionItems();
    sb.requestLog.clear();
    expect(await none.handler(batch(event), {} as Context)).toEqual({ batchItemFailures: [] });
    expect(none.refusals()[0]?.reason).toMatch(/no request source is configured/);
    const other = deployed('team.billing');
    await other.handler(batch(event), {} as Context);
    expect(other.refusals()[0]?.reason).toMatch(/only from team\.billing, not team\.payments/);
    expect(alertWrites(sb)).toBe(0);
    expect(await versionItems()).toEqual(versions);

    const allowed = deployed('team.billing,team.payments');
    expect(await allowed.handler(batch(event), {} as Context)).toEqual({ batchItemFailures: [] });
    expect(allowed.refusals()).toEqual([]);
    expect(
      storedAlerts(sb)
        .filter((a) => a.dashboard === dash.id)
        .map((a) => a.name),
    ).toEqual(['Planted']);
  });
});
