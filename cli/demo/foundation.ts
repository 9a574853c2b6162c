/** The foundation tour: pipes, keys with hashData, dashboards and alerts, a retried 429. */
import { ApiError, createManagementClient } from '../../lib/api';
import { staticCredentials } from '../../lib/credentials';
import { generateKeyMaterial, hashDataFor } from '../../lib/keys/material';
import { managementAuth, pipeSourceKind } from '../../lib/schemas';
import { expectThat, say, type DemoStep } from './context';
import { CliFailure } from '../failure';
import { UNIT_MS } from '../../lib/duration';

const pipesStep: DemoStep = {
  title: 'Pipes: list a service, read one pipe and its settings',
  async run({ sandbox, clients, io }) {
    const management = clients.requireManagement();
    const serviceId = sandbox.info.serviceId;
    const pipes = await management.listPipes(serviceId);
    say.table(io, [
      ['PIPE', 'SOURCE', 'STATE'],
      ...pipes.map((p) => [p.name, pipeSourceKind(p), p.state]),
    ]);
    const first = pipes[0];
    expectThat(first !== undefined, 'the seeded service has pipes');
    const pipe = await management.getPipe(serviceId, first.id);
    const settings = await management.getPipeSettings(serviceId, first.id);
    const set = Object.entries(settings).filter(([, v]) => v !== null && v !== undefined);
    say.line(
      io,
      `${pipe.name}: ${pipe.scaling?.replicas ?? '?'} replica(s) → ${pipe.destination?.database ?? '?'}.${pipe.destination?.table ?? '?'}, ` +
        `${pipe.fieldMappings?.length ?? 0} field mappings, ${set.length} settings (${set
          .slice(0, 2)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(', ')}…)`,
    );
  },
};

const keysStep: DemoStep = {
  title: 'Keys: create one with hashData (the secret never leaves this machine), use it, update it',
  async run({ sandbox, clients, io }) {
    const management = clients.requireManagement();
    const material = generateKeyMaterial();
    const expireAt = new Date(sandbox.clock.now() + UNIT_MS.d).toISOString();
    const created = await management.createKey({
      name: `cloudops-demo-${Date.now()}`,
      roles: ['developer'],
      expireAt,
      hashData: hashDataFor(material),
    });
    expectThat(created.keySecret === undefined, 'no key secret comes back with hashData');
    say.ok(
      io,
      `created key "${created.key.name}" (suffix ${created.key.keySuffix}, role developer, expires ${created.key.expireAt ?? 'never'})`,
    );
    say.ok(io, 'the service answered without a key secret: it stores only the hashes');

    const asNewKey = createManagementClient({
      baseUrl: sandbox.info.apiUrl,
      credentials: staticCredentials(
        `key …${material.keyId.slice(-4)}`,
        { organizationId: sandbox.info.organizationId, ...material },
        managementAuth,
      ),
    });
    try {
      const pipes = await asNewKey.listPipes(sandbox.info.serviceId);
      say.ok(io, `authenticated as the new key: it lists ${pipes.length} pipes`);
      try {
        await asNewKey.listKeys();
        throw new CliFailure('demo check failed: a developer key could list keys');
      } catch (error) {
        expectThat(
          error instanceof ApiError && error.status === 403,
          'a developer key gets 403 on keys',
        );
        say.ok(io, `but it may not manage keys: ${error.status} ${error.code ?? ''}`.trimEnd());
      }
    } finally {
      asNewKey.close();
    }

    const shorter = new Date(sandbox.clock.now() + UNIT_MS.d / 2).toISOString();
    const updated = await management.updateKey(created.key.id, {
      name: `${created.key.name}-renamed`,
      expireAt: shorter,
    });
    say.ok(io, `updated it: name "${updated.name}", expires ${updated.expireAt ?? 'never'}`);
  },
};

const observabilityStep: DemoStep = {
  title: 'Dashboards and alerts: create through the management API, update through /api/v2',
  async run({ sandbox, clients, io }) {
    const management = clients.requireManagement();
    const observability = clients.observability;
    expectThat(observability !== undefined, 'the observability client is configured');
    const serviceId = sandbox.info.serviceId;
    const dashboards = await management.listDashboards(serviceId);
    for (const d of dashboards)
      say.line(
        io,
        `dashboard "${d.name}": ${d.tiles.length} tile${d.tiles.length === 1 ? '' : 's'}`,
      );
    const board = dashboards.find((d) => d.tiles.length > 0);
    expectThat(board !== undefined, 'a seeded dashboard has tiles');
    const tile = board.tiles[0];

    const declared = {
      name: 'demo: too few events',
      message: 'Event volume dropped below the threshold',
      source: 'tile',
      dashboardId: board.id,
      tileId: tile.id,
      threshold: 100,
      thresholdType: 'below',
      interval: '5m',
      channel: { type: 'webhook', webhookId: sandbox.info.webhookId },
    } as const;
    const alert = await management.createAlert(serviceId, declared);
    say.ok(io, `created alert "${alert.name}" on tile "${tile.name}" (id ${alert.id})`);

    // An update replaces the alert (today's service wants the full body, not a patch).
    const raised = await observability.updateAlert(alert.id, { ...declared, threshold: 250 });
    expectThat(raised.threshold === 250, 'the alert threshold was updated');
    say.ok(
      io,
      `updated the alert through the observability API: threshold 100 → ${raised.threshold}`,
    );

    // PUT replaces the tile list: resending each tile's current id is what keeps it (and its alerts).
    const tiles = board.tiles.map((t, i) => (i === 0 ? { ...t, h: t.h + 1 } : t));
    const after = await observability.updateDashboard(board.id, {
      name: board.name,
      tags: board.tags,
      tiles,
    });
    const kept = after.tiles.filter((t) => board.tiles.some((b) => b.id === t.id)).length;
    expectThat(kept === board.tiles.length, 'every tile id survived the update');
    const stillThere = await management.getAlert(serviceId, alert.id);
    say.ok(
      io,
      `updated dashboard "${board.name}" (tile "${tile.name}" taller): ${kept}/${board.tiles.length} tile ids kept, alert ${stillThere.id} still watching`,
    );
  },
};

const rateLimitStep: DemoStep = {
  title: 'Rate limits: the service answers 429, the client waits for the reset and retries',
  async run({ sandbox, clients, io }) {
    const management = clients.requireManagement();
    sandbox.faults.queue({ route: 'GET /v1/.*/pipes$', kind: '429', count: 1 });
    const before = sandbox.requestLog.entries().length;
    const started = Date.now();
    const pipes = await management.listPipes(sandbox.info.serviceId);
    const waited = ((Date.now() - started) / 1000).toFixed(1);
    const statuses = sandbox.requestLog
      .entries()
      .slice(before)
      .map((entry) => entry.status);
    expectThat(statuses[0] === 429 && statuses.at(-1) === 200, 'a 429 was answered, then a 200');
    say.ok(
      io,
      `requests: ${statuses.join(' → ')}; waited ${waited} s for the reset; ${pipes.length} pipes listed`,
    );
  },
};

export const foundationSteps: DemoStep[] = [pipesStep, keysStep, observabilityStep, rateLimitStep];
