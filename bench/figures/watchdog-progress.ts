/**
 * The watchdog's progress figures: how long a stalled pipe goes untold, and whether quiet pipes
 * raise anything. Each run is the watchdog's own (`runWatchdog`, as the consumer Lambda calls it)
 * reading an in-process sandbox's metrics endpoint over real HTTP at the real limit (10 requests
 * per 10 s per key); the sandbox's counters move with a fake clock the client's limiter and the
 * watchdog share, so a day of 5-minute runs takes seconds.
 *
 *   npx tsx bench/figures/watchdog-progress.ts
 *
 * - watchdog_stall_detected_minutes: a pipe that kept fetching (100/min) but stopped sending at
 *   t=0, a 5-minute schedule, the default 30-minute threshold: minutes from t=0 to the run that
 *   tells the stall, the worst over five schedule phases (goal <= 35).
 * - watchdog_false_alarms_quiet_pipes_100: 100 Running pipes with no traffic at all (10 services
 *   of 10), none configured to expect traffic, 24 h of 5-minute runs: notices about them (goal 0).
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sandboxEnv } from '../../cli/connect';
import { createManagementClient } from '../../lib/api';
import { RateLimiterRegistry } from '../../lib/api/rate-limiter';
import { staticCredentials } from '../../lib/credentials';
import { runWatchdog, type WatchdogNotice } from '../../lib/pipes/watchdog';
import { parseWatchdogConfig, type WatchdogConfigInput } from '../../lib/pipes/watchdog-config';
import { managementAuth } from '../../lib/schemas';
import type { Notice } from '../../lib/watch/notice';
import type { Notifier } from '../../lib/watch/notifiers/types';
import { LocalWatchStore } from '../../lib/watch/local-store';
import type { Sandbox } from '../../sandbox/index';
import { fakeClock, type FakeClock } from '../fake-clock';
import type { Figure } from './types';
import { startLimitedSandbox } from '../limited-world';

const COMMAND = 'npx tsx bench/figures/watchdog-progress.ts';
const MINUTE = 60_000;
const SCHEDULE = 5 * MINUTE;

interface World {
  sb: Sandbox;
  fake: FakeClock;
  serviceIds: string[];
  pipeIds: string[];
  flow(pipeId: string, rates: Record<string, number>): Promise<void>;
  /** A watchdog with its own records, and every notice it delivered. */
  watchdog(input?: Partial<WatchdogConfigInput>): { run(): Promise<void>; told: WatchdogNotice[] };
  close(): Promise<void>;
}

/** `services` services of `pipesPerService` Running kafka pipes each, beside the seed's. */
async function world(services: number, pipesPerService: number): Promise<World> {
  const fake = fakeClock();
  const sb = await startLimitedSandbox(fake);
  const state = sb.store.state;
  const template = state.pipes.find((p) => p.source?.kafka && p.state === 'Running')!;
  const serviceTemplate = state.services.find((s) => s.id === sb.info.serviceId)!;
  const serviceIds: string[] = [];
  const pipeIds: string[] = [];
  const createdAt = new Date(fake.epoch()).toISOString();
  for (let i = 0; i < services; i++) {
    const id = randomUUID();
    serviceIds.push(id);
    state.services.push({ ...structuredClone(serviceTemplate), id, name: `svc-${i}` });
    for (let j = 0; j < pipesPerService; j++) {
      const pipeId = randomUUID();
      pipeIds.push(pipeId);
      state.pipes.push({
        ...structuredClone(template),
        id: pipeId,
        serviceId: id,
        name: `pipe-${i}-${j}`,
        state: 'Running',
        createdAt,
      });
    }
  }
  const env = sandboxEnv({ ...sb.info, serviceIds });
  const client = createManagementClient({
    baseUrl: env.CLOUDOPS_API_URL,
    credentials: staticCredentials(
      'bench key',
      {
        organizationId: sb.info.organizationId,
        keyId: sb.info.keyId,
        keySecret: sb.info.keySecret,
      },
      managementAuth,
    ),
    clock: fake.clock,
    limiters: new RateLimiterRegistry(fake.clock),
  });
  return {
    sb,
    fake,
    serviceIds,
    pipeIds,
    async flow(pipeId, rates) {
      const res = await fetch(`${sb.info.apiUrl}/_sandbox/pipes/${pipeId}/flow`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(rates),
      });
      if (!res.ok) throw new Error(`flow of ${pipeId}: HTTP ${res.status} ${await res.text()}`);
    },
    watchdog(input = {}) {
      const config = parseWatchdogConfig({
        organizationId: sb.info.organizationId,
        serviceIds,
        ...input,
      });
      const store = new LocalWatchStore();
      const told: WatchdogNotice[] = [];
      const notifier: Notifier = {
        name: 'bench',
        send: (n: Notice) => {
          told.push(n as WatchdogNotice);
          return Promise.resolve();
        },
      };
      return {
        told,
        async run() {
          const result = await runWatchdog(config, {
            api: client,
            store,
            notifiers: [notifier],
            now: fake.epoch,
          });
          if (result.errors.length > 0)
            throw new Error(`watchdog run: ${result.errors.map((e) => e.message).join('; ')}`);
        },
      };
    },
    async close() {
      client.close();
      await sb.close();
    },
  };
}

/**
 * Minutes from the stall (t=0) to the run that tells it, the schedule's runs falling `phase`
 * minutes after the stall; three runs of steady flow before it.
 */
async function stallDetectedMinutes(phaseMinutes: number): Promise<number | undefined> {
  const w = await world(1, 1);
  try {
    const [pipeId] = w.pipeIds;
    const watchdog = w.watchdog();
    for (let i = 0; i < 3; i++) {
      await watchdog.run();
      w.fake.advance(SCHEDULE);
    }
    const stalledAt = w.fake.epoch();
    await w.flow(pipeId, { fetchedPerMinute: 100, sentPerMinute: 0 });
    w.fake.advance(phaseMinutes * MINUTE);
    for (let run = 0; run < 24; run++) {
      await watchdog.run();
      const told = watchdog.told.find(
        (n) => n.subject === 'pipe' && n.pipeId === pipeId && n.kind === 'stalled',
      );
      if (told) return Math.round((w.fake.epoch() - stalledAt) / MINUTE);
      w.fake.advance(SCHEDULE);
    }
    return undefined;
  } finally {
    await w.close();
  }
}

/** Notices about 100 quiet pipes over 24 h of 5-minute runs, and the requests it took. */
async function quietPipesFalseAlarms() {
  const w = await world(10, 10);
  try {
    for (const pipeId of w.pipeIds) await w.flow(pipeId, { fetchedPerMinute: 0, sentPerMinute: 0 });
    const watchdog = w.watchdog();
    const quiet = new Set(w.pipeIds);
    w.sb.requestLog.clear();
    const runs = (24 * 60) / 5 + 1;
    for (let run = 0; run < runs; run++) {
      await watchdog.run();
      w.fake.advance(SCHEDULE);
    }
    const management = w.sb.requestLog.entries().filter((e) => e.surface === 'management');
    const alarms = watchdog.told.filter((n) => n.subject === 'pipe' && quiet.has(n.pipeId));
    return {
      runs,
      alarms: alarms.length,
      kinds: [...new Set(alarms.map((n) => n.kind))],
      requests: management.length,
      metricsReads: management.filter((e) => e.path.endsWith('/prometheus')).length,
    };
  } finally {
    await w.close();
  }
}

export async function measure(): Promise<Figure[]> {
  const phases = [0, 1, 2, 3, 4];
  const detected: (number | undefined)[] = [];
  for (const phase of phases) detected.push(await stallDetectedMinutes(phase));
  const missed = detected.some((m) => m === undefined);
  const worst = missed ? Number.POSITIVE_INFINITY : Math.max(...(detected as number[]));
  const quiet = await quietPipesFalseAlarms();
  return [
    {
      name: 'watchdog_stall_detected_minutes',
      value: worst,
      goal: '<= 35',
      met: worst <= 35,
      command: COMMAND,
      note: `runs 0-4 min after the stall (5-min schedule, 30-min threshold) told it after ${detected.map((m) => m ?? 'never').join('/')} min`,
    },
    {
      name: 'watchdog_false_alarms_quiet_pipes_100',
      value: quiet.alarms,
      goal: '= 0',
      met: quiet.alarms === 0,
      command: COMMAND,
      note: `10 services x 10 quiet pipes, ${quiet.runs} runs over 24 h: ${quiet.requests} requests (${quiet.metricsReads} metrics reads)${quiet.kinds.length ? `; told: ${quiet.kinds.join(', ')}` : ''}`,
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await measure(), null, 2));
}
