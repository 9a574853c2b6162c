/* eslint-disable @typescript-eslint/no-unsafe-member-access -- raw JSON bodies of the HTTP API under test */
/**
 * The metrics endpoint of each sandbox profile over real HTTP, against API-FACTS ("Metrics
 * endpoint", written down as data in ./api-facts.ts): the text format, every metric's name, TYPE
 * and labels, which pipes carry which metrics, idle services, error bodies; and the spec's
 * snapshot, which has no such endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotFound, UnexpectedResponseError, type ManagementClient } from '../../lib/api';
import { parsePrometheusText, type PrometheusSample } from '../../lib/metrics';
import type { Sandbox } from '../../sandbox/index';
import { caught } from '../support/caught';
import { sandboxManagementClient } from '../support/sandbox-clients';
import { admin, basic, mgmt } from '../support/sandbox-http';
import { startTestSandbox } from '../support/sandbox';
import * as facts from './api-facts';

type Exposition = ReturnType<typeof parsePrometheusText>;

describe('current profile', () => {
  let sb: Sandbox;
  let client: ManagementClient;
  beforeAll(async () => {
    // A clock that moves only when told to, so the counters are exact.
    const t0 = Date.parse('2026-08-03T09:00:00Z');
    sb = await startTestSandbox({ profile: 'current', now: () => t0 });
    client = sandboxManagementClient(sb.info, { label: 'metrics contract' });
    // Every kind of pipe moving, one of them Degraded, so every documented family shows.
    const cdc = sb.store.state.pipes.find(
      (p) => p.source?.postgres && p.serviceId === sb.info.serviceId,
    )!;
    sb.setPipeState(cdc.id, 'Running');
    sb.setPipeState(sb.info.pipeIds[0], 'Degraded');
    sb.clock.advance(5 * 60_000);
  });
  afterAll(async () => {
    client.close();
    await sb.close();
  });

  const servicePath = (serviceId = sb.info.serviceId) => `/services/${serviceId}/prometheus`;

  async function exposition(path: string): Promise<Exposition> {
    const res = await mgmt(sb, 'GET', path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain\b/);
    return parsePrometheusText(res.text);
  }

  /** Every way a sample or family breaks the documented contract, one line each. */
  function breaches({ samples, families }: Exposition, serviceIds: readonly string[]): string[] {
    const problems: string[] = [];
    for (const [name, family] of families) {
      const fact = facts.METRIC_FAMILIES[name];
      if (fact && !fact.types.includes(family.type ?? ''))
        problems.push(`${name}: TYPE ${family.type}, documented ${fact.types.join(' or ')}`);
    }
    for (const sample of samples) problems.push(...sampleBreaches(sample, serviceIds));
    return problems;
  }

  function sampleBreaches(sample: PrometheusSample, serviceIds: readonly string[]): string[] {
    const at = `${sample.name} (line ${sample.line})`;
    const labels = sample.labels;
    const problems = facts.SERVICE_LABELS.filter((l) => !labels[l]).map((l) => `${at}: no ${l}`);
    if (labels.clickhouse_org !== sb.info.organizationId) problems.push(`${at}: another org`);
    if (!serviceIds.includes(labels.clickhouse_service)) problems.push(`${at}: another service`);
    if (facts.SERVER_METRIC.test(sample.name)) return problems;
    const fact = facts.METRIC_FAMILIES[sample.name];
    if (!fact) return [...problems, `${at}: not a documented metric`];
    const onPipe = labels.clickpipe_id !== undefined;
    const database = (facts.DATABASE_SOURCES as readonly string[]).includes(
      labels.clickpipe_source,
    );
    if (fact.scope === 'service' || fact.scope === 'database service') {
      if (onPipe) problems.push(`${at}: a service-wide metric with pipe labels`);
    } else {
      problems.push(...facts.PIPE_LABELS.filter((l) => !labels[l]).map((l) => `${at}: no ${l}`));
      if (fact.scope === 'streaming' && database) problems.push(`${at}: on a database pipe`);
      if (fact.scope === 'database' && !database) problems.push(`${at}: on a streaming pipe`);
    }
    return problems;
  }

  it('answers text/plain in the Prometheus format, every metric documented with its TYPE and labels', async () => {
    const text = await exposition(servicePath());
    expect(breaches(text, [sb.info.serviceId])).toEqual([]);
    const names = new Set(text.samples.map((s) => s.name));
    const documented = Object.keys(facts.METRIC_FAMILIES).filter((name) => names.has(name));
    // Every family but the one docs version's extra CDC latencies shows on this service.
    expect(documented.length).toBe(Object.keys(facts.METRIC_FAMILIES).length - 2);
  });

  it('ClickHouse_ServiceInfo is 1 with a documented cluster status, version and scrape', async () => {
    const { samples } = await exposition(servicePath());
    const info = samples.filter((s) => s.name === 'ClickHouse_ServiceInfo');
    expect(info).toHaveLength(1);
    expect(info[0].value).toBe(1);
    expect(facts.CLUSTER_STATUSES).toContain(info[0].labels.clickhouse_cluster_status);
    expect(facts.SCRAPES).toContain(info[0].labels.scrape);
    expect(info[0].labels.clickhouse_version).toBeTruthy();
  });

  it('ClickPipes_Info is 1 per pipe and carries its state, Degraded included', async () => {
    const { samples } = await exposition(servicePath());
    const info = samples.filter((s) => s.name === 'ClickPipes_Info');
    const pipes = sb.store.state.pipes.filter((p) => p.serviceId === sb.info.serviceId);
    expect(info.map((s) => [s.labels.clickpipe_id, s.labels.clickpipe_state, s.value])).toEqual(
      pipes.map((p) => [p.id, p.state, 1]),
    );
    expect(info.map((s) => s.labels.clickpipe_state)).toContain('Degraded');
  });

  it('an idle service answers 200 with its service-info metric alone (no 424, never woken)', async () => {
    const idle = sb.info.idleServiceId!;
    const text = await exposition(servicePath(idle));
    expect(breaches(text, [idle])).toEqual([]);
    expect(text.samples.map((s) => [s.name, s.labels.clickhouse_cluster_status])).toEqual([
      ['ClickHouse_ServiceInfo', 'idle'],
    ]);
    expect(sb.store.service(idle)?.state).toBe('idle');
  });

  it('the organization-wide answer covers every service, each family’s HELP and TYPE once', async () => {
    const res = await mgmt(sb, 'GET', '/prometheus?filtered_metrics=true');
    const text = parsePrometheusText(res.text);
    expect(breaches(text, sb.info.serviceIds)).toEqual([]);
    const info = text.samples.filter((s) => s.name === 'ClickHouse_ServiceInfo');
    expect(info.map((s) => s.labels.clickhouse_service)).toEqual(sb.info.serviceIds);
    // A second HELP or TYPE line would have failed the strict parse above.
    expect(text.samples.some((s) => facts.SERVER_METRIC.test(s.name))).toBe(false);
  });

  it('errors use the JSON envelope: a missing service is a 404, a wrong key a 401', async () => {
    const missing = await mgmt(sb, 'GET', servicePath('00000000-0000-4000-8000-000000000000'));
    expect(missing.status).toBe(404);
    expect(facts.managementError.safeParse(missing.json).success).toBe(true);
    expect(missing.json.error).toMatch(/^NOT_FOUND: /);
    const wrongKey = await mgmt(sb, 'GET', servicePath(), undefined, basic('nobody', 'nothing'));
    expect(wrongKey.status).toBe(401);
    expect(facts.managementError.safeParse(wrongKey.json).success).toBe(true);
  });

  it('the client reads it: every pipe of the service with its state and progress', async () => {
    const reading = await client.getServiceMetrics(sb.info.serviceId);
    expect(reading).toMatchObject({ clusterStatus: 'running', scrape: 'full', observed: true });
    const degraded = reading.pipes.find((p) => p.pipeId === sb.info.pipeIds[0]);
    expect(degraded).toMatchObject({ state: 'Degraded', sentEvents: 3000, fetchedEvents: 3000 });
  });

  it('a truncated answer is retried by the client and then read whole', async () => {
    await admin(sb, 'POST', '/faults', {
      queue: { route: `GET ${servicePath()}`, kind: 'truncate', count: 1 },
    });
    const reading = await client.getServiceMetrics(sb.info.serviceId);
    expect(reading.observed).toBe(true);
    await admin(sb, 'DELETE', '/faults');
  });
});

describe('spec profile (the snapshot has no metrics endpoint)', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ profile: 'spec' });
  });
  afterAll(() => sb.close());

  it.each([
    ['service', () => `/services/${sb.info.serviceId}/prometheus`],
    ['organization', () => '/prometheus'],
  ])('the %s path is the gateway’s HTML "Cannot GET" 404', async (_what, path) => {
    const res = await mgmt(sb, 'GET', path());
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain(`Cannot GET /v1/organizations/${sb.info.organizationId}`);
  });

  it('the client reports it as a typed unexpected answer, not as a missing service', async () => {
    const client = sandboxManagementClient(sb.info, { label: 'spec metrics' });
    try {
      const error = await caught(client.getServiceMetrics(sb.info.serviceId));
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect(isNotFound(error)).toBe(false);
    } finally {
      client.close();
    }
  });
});
