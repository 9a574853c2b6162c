/**
 * The August 2026 alert fields through the CLI over HTTP to the sandbox (current profile), on
 * the management API (managed) and on `/api/v2` (open-source): apply writes them, the next plan
 * shows no changes (an unset field is no drift), a change is planned old -> new and sent in full,
 * state PENDING is shown as a state, a promql source with no table and a field cloudops does not
 * know is resolved by name, a dashboard filter with `appliesToSourceIds` is written and compared,
 * and pull into an empty folder plans back to no changes.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startDashboardsSandbox, type DashboardsSandbox } from '../support/dashboards-sandbox';
import { mgmt } from '../support/sandbox-http';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'cloudops-august-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

interface StoredAlert {
  id: string;
  name: string | null;
  state: string;
  dashboardId?: string;
  numConsecutiveWindows?: number | null;
  scheduleOffsetMinutes?: number | null;
  scheduleStartAt?: string | null;
  channels: { type: string; webhookId?: string; emailRecipients?: string[] }[];
}

/** A dashboard whose alerts use the August fields, over a log source and a promql one. */
function dashboard(opts: { windows: number; offset?: number; email: boolean }): string {
  const rate = [
    '      - name: Errors keep coming',
    '        threshold: 10',
    '        thresholdType: above',
    '        interval: 15m',
    `        numConsecutiveWindows: ${opts.windows}`,
    ...(opts.offset !== undefined ? [`        scheduleOffsetMinutes: ${opts.offset}`] : []),
    '        channel: { type: webhook, webhook: "${WEBHOOK_NAME}" }',
  ];
  const count = opts.email
    ? [
        '      - name: Errors at the hour',
        '        threshold: 100',
        '        thresholdType: above',
        '        interval: 1h',
        "        scheduleStartAt: '2026-09-01T06:00:00Z'",
        '        channel: { type: email, emailRecipients: [oncall@example.com, team@example.com] }',
      ]
    : [
        '      - name: Errors at the hour',
        '        threshold: 100',
        '        thresholdType: above',
        '        interval: 1h',
        "        scheduleStartAt: '2026-09-01T06:00:00Z'",
        '        channel: { type: webhook, webhook: "${WEBHOOK_NAME}" }',
      ];
  return [
    'key: team/august',
    'name: August alerts',
    'filters:',
    '  - name: Service',
    '    expression: ServiceName',
    '    source: Logs',
    "    appliesToSourceIds: ['${PROMETHEUS_ID}']",
    'tiles:',
    '  - key: rate',
    '    name: Error rate',
    '    x: 0',
    '    y: 0',
    '    w: 12',
    '    h: 4',
    '    config:',
    '      displayType: line',
    '      source: Logs',
    "      select: [{ aggFn: count, where: 'level:error', whereLanguage: lucene }]",
    '    alerts:',
    ...rate,
    '  - key: count',
    '    name: Error count',
    '    x: 12',
    '    y: 0',
    '    w: 12',
    '    h: 4',
    '    config:',
    '      displayType: number',
    '      source: Logs',
    "      select: [{ aggFn: count, where: 'level:error', whereLanguage: lucene }]",
    '    alerts:',
    ...count,
    '  - name: Targets up',
    '    x: 0',
    '    y: 4',
    '    w: 8',
    '    h: 4',
    '    config:',
    '      displayType: line',
    '      source: Prometheus',
    '      select: [{ aggFn: min, valueExpression: up }]',
    '      fitYAxisToData: true',
    '  - name: Patterns',
    '    x: 8',
    '    y: 4',
    '    w: 8',
    '    h: 4',
    '    config: { displayType: event_patterns, source: Logs, select: Body }',
    '  - name: Share',
    '    x: 16',
    '    y: 4',
    '    w: 8',
    '    h: 4',
    '    config:',
    '      displayType: pie',
    '      source: Logs',
    '      groupBy: ServiceName',
    '      limit: 5',
    '      orderBy: count desc',
    '      select: [{ aggFn: count }]',
    '',
  ].join('\n');
}

describe.each([
  { mode: 'managed', email: true },
  { mode: 'open-source', email: false },
] as const)('August 2026 alert fields ($mode)', ({ mode, email }) => {
  let ds: DashboardsSandbox;
  let dir: string;
  const alerts = () =>
    (ds.sb.store.state.alerts as unknown as StoredAlert[]).filter((a) =>
      ['Errors keep coming', 'Errors at the hour'].includes(a.name ?? ''),
    );
  const byName = (name: string) => alerts().find((a) => a.name === name)!;
  const write = (text: string) => writeFile(path.join(dir, 'august.yaml'), text);

  beforeAll(async () => {
    ds = await startDashboardsSandbox('current', (sb) => {
      const hook = sb.store.state.webhooks.find((w) => w.id === sb.store.state.seed.webhookId)!;
      return { CLOUDOPS_OBSERVABILITY_MODE: mode, CLOUDOPS_VAR_WEBHOOK_NAME: hook.name };
    });
    // A promql source: no table, and a field this client does not know.
    const created = await mgmt(
      ds.sb,
      'POST',
      `/services/${ds.sb.info.serviceId}/observability/sources`,
      {
        name: 'Prometheus',
        kind: 'promql',
        connection: ds.sb.store.state.sources[0].connection,
        from: { databaseName: 'default' },
        promqlScrapeLabels: { job: ['api'] },
      },
    );
    expect(created.status, created.text).toBe(200);
    ds.env.CLOUDOPS_VAR_PROMETHEUS_ID = (created.json as { result: { id: string } }).result.id;
    dir = await mkdtemp(path.join(root, `${mode}-`));
  });
  afterAll(() => ds.sb.close());

  it('apply writes the fields; the next plan shows no changes', async () => {
    await write(dashboard({ windows: 3, offset: 5, email }));
    const applied = await ds.cli('apply', '--dir', dir, '--auto-approve');
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(byName('Errors keep coming')).toMatchObject({
      numConsecutiveWindows: 3,
      scheduleOffsetMinutes: 5,
    });
    const hour = byName('Errors at the hour');
    expect(hour).toMatchObject({ scheduleStartAt: '2026-09-01T06:00:00Z' });
    expect(hour.numConsecutiveWindows ?? null).toBe(null);
    if (email)
      expect(hour.channels).toEqual([
        { type: 'email', emailRecipients: ['oncall@example.com', 'team@example.com'] },
      ]);
    const stored = ds.sb.store.state.dashboards.find((d) => d.name === 'August alerts');
    const logs = ds.sb.store.state.sources.find(
      (s) => s.name === 'Logs' && s.serviceId === ds.sb.info.serviceId,
    )!;
    expect((stored as unknown as { filters: unknown }).filters).toEqual([
      {
        name: 'Service',
        expression: 'ServiceName',
        sourceId: logs.id,
        appliesToSourceIds: [ds.env.CLOUDOPS_VAR_PROMETHEUS_ID],
      },
    ]);
    const plan = await ds.cli('plan', '--dir', dir, '--detailed-exitcode');
    expect(plan.out).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('a changed or dropped field is planned old -> new with the state, and sent in full', async () => {
    byName('Errors keep coming').state = 'PENDING';
    await write(
      dashboard({ windows: 2, email }).replace('expression: ServiceName', 'expression: Service'),
    );
    const plan = await ds.cli('plan', '--dir', dir, '--detailed-exitcode');
    expect(plan.code, plan.err).toBe(2);
    expect(plan.out).toContain('    ~ filters[0].expression: "ServiceName" → "Service"\n');
    const id = byName('Errors keep coming').id;
    expect(plan.out).toContain(
      `~ alert "Errors keep coming" on tile "Error rate" (${id}, state PENDING)`,
    );
    expect(plan.out).toMatch(/numConsecutiveWindows: 3 → 2\n/);
    expect(plan.out).toMatch(/scheduleOffsetMinutes: 5 → \(removed\)\n/);
    const json = await ds.cli('plan', '--dir', dir, '--format', 'json');
    const planned = (JSON.parse(json.out) as { changes: { alerts: { state?: string }[] }[] })
      .changes[0].alerts;
    expect(planned).toEqual([expect.objectContaining({ action: 'update', state: 'PENDING' })]);

    const applied = await ds.cli('apply', '--dir', dir, '--auto-approve');
    expect(applied.code, applied.out + applied.err).toBe(0);
    const rate = byName('Errors keep coming');
    expect(rate.numConsecutiveWindows).toBe(2);
    expect(rate.scheduleOffsetMinutes ?? 0).toBe(0);
    // Untouched alerts keep what they had: the update re-sent nothing it should not.
    expect(byName('Errors at the hour')).toMatchObject({ scheduleStartAt: '2026-09-01T06:00:00Z' });
    const again = await ds.cli('plan', '--dir', dir, '--detailed-exitcode');
    expect([again.code, again.out]).toEqual([0, expect.stringContaining('No changes.')]);
  });

  it.runIf(!email)(
    'an email channel is refused at plan time on /api/v2, with no write',
    async () => {
      const other = await mkdtemp(path.join(root, `${mode}-email-`));
      await writeFile(path.join(other, 'august.yaml'), dashboard({ windows: 2, email: true }));
      const writes = ds.writes().length;
      const plan = await ds.cli('plan', '--dir', other);
      expect(plan.code).toBe(1);
      expect(plan.err).toContain(
        '\n  august.yaml:42:26 tiles[1].alerts[0].channel.type: email channels are for managed observability; /api/v2 takes webhooks only\n',
      );
      expect(ds.writes().length).toBe(writes);
    },
  );

  it('pull into an empty folder round-trips every field; pull --json shows the state', async () => {
    byName('Errors keep coming').state = 'PENDING';
    const empty = await mkdtemp(path.join(root, `${mode}-pull-`));
    const pulled = await ds.cli('pull', '--dir', empty, '--target', 'team/august', '--json');
    expect(pulled.code, pulled.err).toBe(0);
    const listed = JSON.parse(pulled.out) as {
      files: { file: string; alerts: { name: string; tile: string; state: string }[] }[];
    };
    expect(listed.files.map((f) => f.file)).toEqual([path.join('team', 'august.yaml')]);
    expect(listed.files[0].alerts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'Errors keep coming',
          tile: 'Error rate',
          state: 'PENDING',
        }),
        expect.objectContaining({ name: 'Errors at the hour', tile: 'Error count', state: 'OK' }),
      ]),
    );
    const text = await readFile(path.join(empty, 'team', 'august.yaml'), 'utf8');
    expect(text).not.toContain('PENDING');
    const file = parse(text) as { tiles: { name: string; config: unknown; alerts?: unknown[] }[] };
    const tile = (name: string) => file.tiles.find((t) => t.name === name)!;
    const hook = ds.sb.store.state.webhooks.find((w) => w.id === ds.sb.store.state.seed.webhookId)!;
    expect(tile('Error rate').alerts).toMatchObject([
      { numConsecutiveWindows: 2, channel: { type: 'webhook', webhook: hook.name } },
    ]);
    expect(tile('Error rate').alerts![0]).not.toHaveProperty('scheduleOffsetMinutes');
    expect(tile('Error count').alerts).toEqual([
      expect.objectContaining({
        scheduleStartAt: '2026-09-01T06:00:00Z',
        ...(email
          ? {
              channel: {
                type: 'email',
                emailRecipients: ['oncall@example.com', 'team@example.com'],
              },
            }
          : {}),
      }),
    ]);
    expect(tile('Targets up').config).toMatchObject({ source: 'Prometheus', fitYAxisToData: true });
    expect(tile('Patterns').config).toEqual({
      displayType: 'event_patterns',
      source: 'Logs',
      select: 'Body',
    });
    expect(tile('Share').config).toMatchObject({ limit: 5, orderBy: 'count desc' });
    expect((parse(text) as { filters: unknown }).filters).toEqual([
      {
        name: 'Service',
        expression: 'Service',
        source: 'Logs',
        appliesToSourceIds: [ds.env.CLOUDOPS_VAR_PROMETHEUS_ID],
      },
    ]);
    const plan = await ds.cli('plan', '--dir', empty, '--detailed-exitcode');
    expect([plan.code, plan.out]).toEqual([0, expect.stringContaining('No changes.')]);
  });
});
