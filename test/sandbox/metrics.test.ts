/* eslint-disable @typescript-eslint/no-unsafe-member-access -- raw JSON bodies of the admin routes */
/**
 * The sandbox's metrics endpoint over real HTTP, read with the real client: counters that follow
 * each pipe's flow on the sandbox clock, the flow and scrape levers, idle services, and the state
 * file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ManagementClient } from '../../lib/api';
import type { PipeReading } from '../../lib/schemas';
import type { Sandbox, SandboxOptions } from '../../sandbox/index';
import { caught } from '../support/caught';
import { sandboxManagementClient } from '../support/sandbox-clients';
import { admin, mgmt } from '../support/sandbox-http';
import { startTestSandbox } from '../support/sandbox';

const T0 = Date.parse('2026-08-03T09:00:00Z');
const MINUTE = 60_000;
const dir = mkdtempSync(join(tmpdir(), 'sandbox-metrics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const open: { sandbox: Sandbox; client: ManagementClient }[] = [];
afterEach(async () => {
  for (const { sandbox, client } of open.splice(0)) {
    client.close();
    await sandbox.close();
  }
});

/** A current-profile sandbox on a clock that moves only when the test moves it. */
async function start(options: SandboxOptions = {}) {
  const sandbox = await startTestSandbox({ profile: 'current', now: () => T0, ...options });
  const client = sandboxManagementClient(sandbox.info, { label: 'metrics test' });
  open.push({ sandbox, client });
  return { sandbox, client };
}

function pipeId(sandbox: Sandbox, name: string): string {
  const pipe = sandbox.store.state.pipes.find((p) => p.name === name);
  if (!pipe) throw new Error(`no seeded pipe ${name}`);
  return pipe.id;
}

async function pipeReading(client: ManagementClient, sandbox: Sandbox, name: string) {
  const pipe = sandbox.store.state.pipes.find((p) => p.name === name);
  if (!pipe?.serviceId) throw new Error(`no seeded pipe ${name}`);
  const reading = await client.getServiceMetrics(pipe.serviceId);
  return reading.pipes.find((p) => p.pipeId === pipe.id) as PipeReading;
}

const flow = (sandbox: Sandbox, pipe: string, body?: unknown) =>
  admin(sandbox, body === undefined ? 'DELETE' : 'PUT', `/pipes/${pipe}/flow`, body);

describe('counters on the sandbox clock', () => {
  it('a Running streaming pipe moves 600 events a minute in and out, from when it was made', async () => {
    const { sandbox, client } = await start();
    expect(await pipeReading(client, sandbox, 'orders-kafka')).toMatchObject({
      name: 'orders-kafka',
      source: 'kafka',
      state: 'Running',
      fetchedEvents: 0,
      sentEvents: 0,
      errors: 0,
    });
    sandbox.clock.advance(5 * MINUTE);
    const later = await pipeReading(client, sandbox, 'orders-kafka');
    expect(later).toMatchObject({ fetchedEvents: 3000, sentEvents: 3000, errors: 0 });
    expect(later.sentBytes).toBeGreaterThan(0);
    expect(later.latencyMs).toBeGreaterThan(0);
  });

  it('stopped and failed pipes stay still; a started pipe moves from the moment it starts', async () => {
    const { sandbox, client } = await start();
    sandbox.clock.advance(10 * MINUTE);
    expect(await pipeReading(client, sandbox, 'clicks-kinesis')).toMatchObject({
      state: 'Stopped',
      fetchedEvents: 0,
      sentEvents: 0,
    });
    expect(await pipeReading(client, sandbox, 'events-object-storage')).toMatchObject({
      source: 's3',
      state: 'Failed',
      sentEvents: 0,
    });
    await client.pipeStateCommand(
      sandbox.info.serviceId,
      pipeId(sandbox, 'clicks-kinesis'),
      'start',
    );
    sandbox.clock.advance(2 * MINUTE);
    expect(await pipeReading(client, sandbox, 'clicks-kinesis')).toMatchObject({
      state: 'Running',
      sentEvents: 1200,
    });
  });
});

describe('PUT /_sandbox/pipes/{id}/flow', () => {
  it('stalls a pipe (fetched grows, sent stays) and DELETE brings back the steady flow', async () => {
    const { sandbox, client } = await start();
    sandbox.clock.advance(MINUTE);
    const set = await flow(sandbox, 'orders-kafka', { fetchedPerMinute: 100, sentPerMinute: 0 });
    expect(set.status).toBe(200);
    expect(set.json.rates).toEqual({ fetchedPerMinute: 100, sentPerMinute: 0, errorsPerMinute: 0 });
    sandbox.clock.advance(30 * MINUTE);
    expect(await pipeReading(client, sandbox, 'orders-kafka')).toMatchObject({
      fetchedEvents: 600 + 3000,
      sentEvents: 600,
    });
    expect((await flow(sandbox, 'orders-kafka')).json.rates.sentPerMinute).toBe(600);
    sandbox.clock.advance(MINUTE);
    expect(await pipeReading(client, sandbox, 'orders-kafka')).toMatchObject({
      fetchedEvents: 3600 + 600,
      sentEvents: 1200,
    });
  });

  it('makes a pipe error; omitted rates keep the steady flow', async () => {
    const { sandbox, client } = await start();
    await flow(sandbox, pipeId(sandbox, 'orders-kafka'), { errorsPerMinute: 12 });
    sandbox.clock.advance(5 * MINUTE);
    expect(await pipeReading(client, sandbox, 'orders-kafka')).toMatchObject({
      errors: 60,
      sentEvents: 3000,
    });
  });

  it('a database pipe advances its batch ids, not event counters, and stalls the same way', async () => {
    const { sandbox, client } = await start();
    const name = 'users-postgres-cdc';
    sandbox.setPipeState(pipeId(sandbox, name), 'Running');
    sandbox.clock.advance(10 * MINUTE);
    const moving = await pipeReading(client, sandbox, name);
    expect(moving).toMatchObject({
      source: 'postgres',
      lastFetchedBatchId: 60,
      lastSentBatchId: 60,
    });
    expect(moving.sentEvents).toBeUndefined();
    expect(moving.fetchedEvents).toBeUndefined();
    expect(moving.eventsPerTable).toEqual([{ table: 'users', eventType: 'insert', events: 6000 }]);
    await flow(sandbox, name, { sentPerMinute: 0 });
    sandbox.clock.advance(10 * MINUTE);
    expect(await pipeReading(client, sandbox, name)).toMatchObject({
      lastFetchedBatchId: 120,
      lastSentBatchId: 60,
    });
    const reading = await client.getServiceMetrics(sandbox.info.serviceId);
    expect(reading.cdc.cpuLimit).toBeGreaterThan(0);
  });

  it('a pipe set to Failed keeps the totals it had and moves no more', async () => {
    const { sandbox, client } = await start();
    sandbox.clock.advance(3 * MINUTE);
    sandbox.setPipeState(pipeId(sandbox, 'orders-kafka'), 'Failed');
    sandbox.clock.advance(10 * MINUTE);
    expect(await pipeReading(client, sandbox, 'orders-kafka')).toMatchObject({
      state: 'Failed',
      fetchedEvents: 1800,
      sentEvents: 1800,
    });
  });

  it('a Degraded pipe shows its state and keeps moving', async () => {
    const { sandbox, client } = await start();
    const set = await admin(sandbox, 'PUT', `/pipes/${pipeId(sandbox, 'orders-kafka')}/state`, {
      state: 'Degraded',
    });
    expect(set.status).toBe(200);
    sandbox.clock.advance(MINUTE);
    expect(await pipeReading(client, sandbox, 'orders-kafka')).toMatchObject({
      state: 'Degraded',
      sentEvents: 600,
    });
  });

  it('refuses a bad body with one line naming the field; an unknown pipe is a 404', async () => {
    const { sandbox } = await start();
    const negative = await flow(sandbox, 'orders-kafka', { sentPerMinute: -1 });
    expect(negative.status).toBe(400);
    expect(negative.json.error).toMatch(/^BAD_REQUEST: Body validation failed: sentPerMinute: /);
    const typo = await flow(sandbox, 'orders-kafka', { sentPerMin: 0 });
    expect(typo.status).toBe(400);
    expect(typo.json.error).toContain('sentPerMin');
    expect((await flow(sandbox, 'no-such-pipe', {})).status).toBe(404);
    expect((await admin(sandbox, 'GET', '/pipes/orders-kafka/flow')).json.rates).toEqual({
      fetchedPerMinute: 600,
      sentPerMinute: 600,
      errorsPerMinute: 0,
    });
  });

  it('a name two pipes share is refused: use the id', async () => {
    const { sandbox } = await start();
    sandbox.store.state.pipes[1].name = 'orders-kafka';
    const res = await flow(sandbox, 'orders-kafka', {});
    expect(res.status).toBe(409);
    expect(res.json.error).toContain('use an id');
  });
});

describe('services whose pipes the answer does not show', () => {
  it('an idle service answers only its service-info metric, and reading it does not wake it', async () => {
    const { sandbox, client } = await start();
    const idle = sandbox.info.idleServiceId!;
    sandbox.clock.advance(MINUTE);
    expect(await client.getServiceMetrics(idle)).toEqual({
      serviceId: idle,
      serviceName: 'analytics-dev',
      organizationId: sandbox.info.organizationId,
      clusterStatus: 'idle',
      scrape: 'full',
      version: '25.8',
      observed: false,
      pipes: [],
      cdc: {},
    });
    expect(sandbox.store.service(idle)?.state).toBe('idle');
    expect((await caught(client.listPipes(idle))).name).toBe('ServiceIdleError');
  });

  it('a service set to scrape partially answers its service-info metric alone, until set back', async () => {
    const { sandbox, client } = await start();
    const serviceId = sandbox.info.serviceId;
    const set = await admin(sandbox, 'PUT', `/services/${serviceId}/scrape`, { scrape: 'partial' });
    expect(set.status).toBe(200);
    expect(await client.getServiceMetrics(serviceId)).toMatchObject({
      clusterStatus: 'running',
      scrape: 'partial',
      observed: false,
      pipes: [],
    });
    await admin(sandbox, 'PUT', `/services/${serviceId}/scrape`, { scrape: 'full' });
    expect((await client.getServiceMetrics(serviceId)).observed).toBe(true);
    const bad = await admin(sandbox, 'PUT', `/services/${serviceId}/scrape`, { scrape: 'half' });
    expect(bad.status).toBe(400);
  });
});

describe('the endpoint', () => {
  it('answers every service in one organization-wide call', async () => {
    const { sandbox, client } = await start();
    const readings = await client.getOrganizationMetrics();
    expect(readings.map((r) => r.serviceId)).toEqual(sandbox.info.serviceIds);
    expect(readings.map((r) => r.observed)).toEqual([true, true, false]);
  });

  it('filtered_metrics=true leaves out the server’s own metrics; another value is a JSON 400', async () => {
    const { sandbox } = await start();
    const path = `/services/${sandbox.info.serviceId}/prometheus`;
    const full = await mgmt(sandbox, 'GET', path);
    const filtered = await mgmt(sandbox, 'GET', `${path}?filtered_metrics=true`);
    expect(full.text).toContain('ClickHouseProfileEvents_Query');
    expect(filtered.text).not.toContain('ClickHouseProfileEvents_Query');
    expect(filtered.text).toContain('ClickPipes_SentEvents_Total');
    const bad = await mgmt(sandbox, 'GET', `${path}?filtered_metrics=yes`);
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe(
      'BAD_REQUEST: invalid filtered_metrics "yes": expected true or false',
    );
  });

  it('writes pipe names with quotes, backslashes and newlines so they read back as they are', async () => {
    const { sandbox, client } = await start();
    const odd = 'orders "eu" \\ west\nline two';
    sandbox.store.state.pipes.find((p) => p.name === 'orders-kafka')!.name = odd;
    const reading = await client.getServiceMetrics(sandbox.info.serviceId);
    expect(reading.pipes.map((p) => p.name)).toContain(odd);
  });

  it('counts against the key’s rate limit like every management call', async () => {
    const { sandbox, client } = await start({
      rateLimits: { management: { limit: 2, windowMs: 10_000 } },
    });
    const path = `/services/${sandbox.info.serviceId}/prometheus`;
    await client.getServiceMetrics(sandbox.info.serviceId);
    expect((await mgmt(sandbox, 'GET', path)).status).toBe(200);
    const limited = await mgmt(sandbox, 'GET', path);
    expect(limited.status).toBe(429);
    expect(limited.json.error).toMatch(/^TOO_MANY_REQUESTS: /);
    expect(limited.headers.get('x-ratelimit-reset')).toBe('10');
  });
});

describe('the state file', () => {
  it('keeps flows and totals across a restart: the lines continue where they were', async () => {
    const stateFile = join(dir, 'flows.json');
    const first = await start({ stateFile });
    first.sandbox.clock.advance(MINUTE);
    await flow(first.sandbox, 'orders-kafka', { fetchedPerMinute: 100, sentPerMinute: 0 });
    await admin(first.sandbox, 'PUT', `/services/${first.sandbox.info.serviceId}/scrape`, {
      scrape: 'partial',
    });
    first.sandbox.clock.advance(MINUTE);
    for (const { sandbox, client } of open.splice(0)) {
      client.close();
      await sandbox.close();
    }

    const second = await start({ stateFile });
    expect(second.sandbox.store.state.metrics?.partialServices).toEqual([
      second.sandbox.info.serviceId,
    ]);
    await admin(second.sandbox, 'PUT', `/services/${second.sandbox.info.serviceId}/scrape`, {
      scrape: 'full',
    });
    second.sandbox.clock.advance(MINUTE);
    expect(await pipeReading(second.client, second.sandbox, 'orders-kafka')).toMatchObject({
      fetchedEvents: 600 + 200,
      sentEvents: 600,
    });
    expect(second.sandbox.store.state.metrics?.partialServices).toEqual([]);
  });
});
