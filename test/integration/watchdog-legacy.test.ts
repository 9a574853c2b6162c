/**
 * A table a deployed watchdog wrote before lib/watch (pipe records, the service record and the
 * drift record posing as a pipe, with notices pending in them) is read as it is: the records
 * carry on from their versions and the pending notices are delivered once, as what they were.
 */
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagementClient } from '../../lib/api';
import { noticeDrift } from '../../lib/dashboards/drift-notice';
import type { Plan } from '../../lib/dashboards/plan';
import { silentLogger } from '../../lib/log';
import { runWatchdog } from '../../lib/pipes/watchdog';
import { parseWatchdogConfig } from '../../lib/pipes/watchdog-config';
import type { Notice } from '../../lib/watch/notice';
import type { Notifier } from '../../lib/watch/notifiers/types';
import type { Sandbox } from '../../sandbox/index';
import { startLocalDynamo, type LocalDynamo } from '../support/local-dynamo';
import { clientFor, startWatchdogSandbox } from './watchdog-helpers';

const HOUR = 3_600_000;
let sb: Sandbox;
let client: ManagementClient;
let dynamo: LocalDynamo;
let doc: DynamoDBDocumentClient;

beforeAll(async () => {
  sb = await startWatchdogSandbox();
  client = clientFor(sb);
  dynamo = await startLocalDynamo();
  doc = DynamoDBDocumentClient.from(dynamo.client);
});
afterAll(async () => {
  client.close();
  await dynamo.close();
  await sb.close();
});

function recording(name: string) {
  const sent: Notice[] = [];
  const notifier: Notifier = { name, send: (n) => Promise.resolve(void sent.push(n)) };
  return { notifier, sent };
}

const put = (item: Record<string, unknown>) =>
  doc.send(new PutCommand({ TableName: dynamo.tableName, Item: item }));
const get = async (pk: string, sk: string) =>
  (await doc.send(new GetCommand({ TableName: dynamo.tableName, Key: { pk, sk } }))).Item;

/** A notice as the previous release stored it: pipe-shaped, released by a crashed run. */
const pending = (notification: Record<string, unknown>) => ({
  notification,
  remaining: ['memory'],
  attempts: 1,
});

describe('a watch table written before lib/watch', () => {
  it('the watchdog reads its pipe and service records, delivers what they owed, and carries on', async () => {
    const [kafka] = sb.info.pipeIds as [string];
    const org = sb.info.organizationId;
    const svc = sb.info.serviceId;
    const failedAt = sb.clock.now() - HOUR;
    const at = new Date(failedAt).toISOString();
    sb.setPipeState(kafka, 'Running');
    await put({
      pk: `${org}#${svc}`,
      sk: '#service',
      organizationId: org,
      serviceId: svc,
      consecutiveFailures: 0,
      announced: false,
      idle: false,
      baselineAt: failedAt - HOUR,
      pending: [],
      version: 7,
    });
    await put({
      pk: `${org}#${svc}`,
      sk: kafka,
      organizationId: org,
      serviceId: svc,
      pipeId: kafka,
      pipeName: 'orders-kafka',
      state: 'Failed',
      since: failedAt,
      lastSeenAt: failedAt,
      lastNotifiedAt: failedAt,
      announced: { kind: 'transition', state: 'Failed', severity: 'critical', since: failedAt },
      changes: [failedAt],
      flapping: false,
      stuckNotified: false,
      gone: false,
      restarts: [],
      pending: [
        pending({
          id: `${org}/${svc}/${kafka}/transition/${failedAt}`,
          kind: 'transition',
          severity: 'critical',
          organizationId: org,
          serviceId: svc,
          pipeId: kafka,
          pipeName: 'orders-kafka',
          from: 'Running',
          to: 'Failed',
          at,
          since: at,
          message: 'Pipe orders-kafka went from Running to Failed',
        }),
      ],
      version: 3,
    });

    const { notifier, sent } = recording('memory');
    const result = await runWatchdog(
      parseWatchdogConfig({ organizationId: org, serviceIds: [svc], includePipes: [kafka] }),
      { api: client, store: dynamo.store(), notifiers: [notifier], now: () => sb.clock.now() },
    );
    expect(result.errors).toEqual([]);
    // The owed notice, as the pipe notice it was, then the recovery it is now (no "new" pipe).
    expect(sent.map((n) => `${n.subject}:${n.kind}:${n.dedupKey}:${n.resolves}`)).toEqual([
      `pipe:transition:pipe/${org}/${svc}/${kafka}/health:false`,
      `pipe:recovery:pipe/${org}/${svc}/${kafka}/health:true`,
    ]);
    // Two writes from version 3: the claim, then the delivery struck off.
    expect(await get(`${org}#${svc}`, kafka)).toMatchObject({
      state: 'Running',
      pending: [],
      version: 5,
    });
    // The service record is read (its baseline holds: no pipe is "new") and, unchanged, not written.
    expect(await get(`${org}#${svc}`, '#service')).toMatchObject({ version: 7 });
  });

  it('the drift report reads the drift record that posed as a pipe, and its pending notice', async () => {
    const drifted = Date.parse('2026-01-01T00:00:00.000Z');
    const at = new Date(drifted).toISOString();
    await put({
      pk: 'dashboards#prod',
      sk: 'drift',
      organizationId: 'dashboards',
      serviceId: 'prod',
      pipeId: 'drift',
      pipeName: 'dashboards of prod',
      state: 'Drifted',
      since: drifted,
      lastSeenAt: drifted,
      lastNotifiedAt: drifted,
      announced: { kind: 'new', state: 'Drifted', severity: 'warning', since: drifted },
      changes: [],
      flapping: false,
      stuckNotified: false,
      gone: false,
      restarts: [],
      pending: [
        pending({
          id: `dashboards/prod/drift/new/${drifted}`,
          kind: 'transition',
          severity: 'warning',
          organizationId: 'dashboards',
          serviceId: 'prod',
          pipeId: 'drift',
          pipeName: 'dashboards of prod',
          from: 'InSync',
          to: 'Drifted',
          at,
          since: at,
          message:
            'Dashboards of prod drifted from s3://b/dashboards/: Plan: 0 to create, 1 to update',
          about: 'dashboards',
          markdown: '```diff\n~ dashboard "x"\n```',
        }),
      ],
      version: 5,
    });
    const inSync: Plan = {
      changes: [],
      counts: { create: 0, update: 0, delete: 0, unchanged: 1, conflict: 0 },
      alertCounts: { create: 0, update: 0, delete: 0 },
      notes: [],
      pending: false,
      owner: 'prod',
      alertsRead: false,
    };
    const { notifier, sent } = recording('memory');
    const told = await noticeDrift(
      inSync,
      { owner: 'prod', source: 's3://b/dashboards/' },
      {
        store: dynamo.store(),
        notifiers: [notifier],
        logger: silentLogger,
        now: () => drifted + HOUR,
      },
    );
    expect(told.errors).toEqual([]);
    expect(sent.map((n) => `${n.subject}:${n.kind}:${n.from}->${n.to}`)).toEqual([
      'dashboards:transition:InSync->Drifted',
      'dashboards:recovery:Drifted->InSync',
    ]);
    expect(sent[0]).toMatchObject({ owner: 'prod', markdown: '```diff\n~ dashboard "x"\n```' });
    expect(await get('dashboards#prod', 'drift')).toMatchObject({
      state: 'InSync',
      pending: [],
      version: 7,
    });
  });
});
