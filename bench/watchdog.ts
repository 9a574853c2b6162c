/**
 * Watchdog: 200 services x 20 pipes against the sandbox in its own process (as a real API
 * would be) with a 100 requests/s limit. Requests made (goal: one per service), failures
 * (goal 0), and wall time over the rate-limit floor (goal <= 1.1), where the floor is
 *
 *   (ceil(requests / limit) - 1) x window + the time the sandbox takes to serve ONE unthrottled
 *   batch of `limit` such requests,
 *
 * the batch measured in this run against a second sandbox process with no limit (same state).
 * Also reports where the rest went: when request #limit+1 started versus when the
 * limiter could have let it start had it counted a window from the request's start.
 *
 *   npx tsx bench/run.ts --only watchdog
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import fetch from 'node-fetch';
import { createManagementClient, type FetchLike, type RateLimitConfig } from '../lib/api';
import { staticCredentials } from '../lib/credentials';
import { runWatchdog } from '../lib/pipes/watchdog';
import { parseWatchdogConfig } from '../lib/pipes/watchdog-config';
import type { Notifier } from '../lib/watch/notifiers/types';
import { LocalWatchStore } from '../lib/watch/local-store';
import { managementAuth, type Pipe } from '../lib/schemas';
import { startSandbox, type SandboxInfo } from '../sandbox/index';
import type { Capture } from './capture';
import { median } from './stats';

const ROOT = path.resolve(import.meta.dirname, '..');
const LIMIT: RateLimitConfig = { limit: 100, windowMs: 1_000 };

export interface WatchdogPass {
  pass: string;
  requests: number;
  requestsPerService: number;
  failedRequests: number;
  watchdogErrors: number;
  notifications: number;
  wallMs: number;
  /** When answer #limit arrived (the first window's batch done). */
  firstBatchAnsweredMs: number;
  /** When request #limit+1 started. */
  secondBatchStartMs: number;
  /** secondBatchStart - (first start + window): what counting from the answer costs. */
  limiterDelayMs: number;
  /** When the last request started (a slot frees `window` after its answer, not its start). */
  lastStartMs: number;
  /** When the first window's first answer arrived. */
  firstAnswerMs: number;
  /** When the last answer arrived, and the watchdog's own work after it. */
  lastAnswerMs: number;
  afterLastAnswerMs: number;
  ratioToFloor: number;
  ratioToBareFloor: number;
}

export interface WatchdogBench {
  services: number;
  pipesPerService: number;
  limit: string;
  /** Unthrottled batches of `limit` requests, each timed start to last answer. */
  batchMs: number[];
  batchMedianMs: number;
  floorMs: number;
  bareFloorMs: number;
  passes: WatchdogPass[];
}

async function spawnSandbox(stateFile: string, limit: string, capture: Capture, label: string) {
  const child = spawn(
    path.join(ROOT, 'node_modules/.bin/tsx'),
    [
      path.join(ROOT, 'cli/main.ts'),
      'sandbox',
      '--profile',
      'current',
      '--state',
      stateFile,
      '--management-rate-limit',
      limit,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stderr.setEncoding('utf8').on('data', (t: string) => capture.add(`${label} stderr`, t));
  const info = await new Promise<SandboxInfo>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
    const lines = createInterface({ input: child.stdout });
    // The first line holds the seed credentials by design; later lines go to the leak scan.
    let first = true;
    lines.on('line', (line) => {
      if (!first) return capture.add(`${label} stdout`, line);
      first = false;
      resolve(JSON.parse(line) as SandboxInfo);
    });
  });
  return { child, info };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export async function benchWatchdog(
  capture: Capture,
  /** Receives the sandboxes' seed credentials (for the leak scan). */
  secretsInUse: Set<string>,
  services = 200,
  pipesPerService = 20,
): Promise<WatchdogBench> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-watchdog-'));
  const stateFile = path.join(dir, 'limited.json');
  const unlimitedFile = path.join(dir, 'unlimited.json');
  const children: ChildProcess[] = [];
  try {
    // 1. Seed a state file with the services and pipes, in process.
    // The service as it stands today: the watchdog reads each service's metrics endpoint.
    const seeder = await startSandbox({ profile: 'current', port: 0, stateFile });
    const template = seeder.store.state.pipes.find((p) => p.state === 'Running')!;
    const serviceTemplate = seeder.store.state.services.find(
      (s) => s.id === seeder.info.serviceId,
    )!;
    const serviceIds: string[] = [];
    for (let s = 0; s < services; s++) {
      const id = randomUUID();
      serviceIds.push(id);
      seeder.store.state.services.push({
        ...structuredClone(serviceTemplate),
        id,
        name: `bench-${s}`,
      });
      for (let p = 0; p < pipesPerService; p++) {
        const pipe: Pipe = {
          ...structuredClone(template),
          id: randomUUID(),
          serviceId: id,
          name: `bench-${s}-${p}`,
          state: 'Running',
        };
        seeder.store.state.pipes.push(pipe);
      }
    }
    seeder.store.changed();
    seeder.store.flush();
    await seeder.close();
    copyFileSync(stateFile, unlimitedFile);

    // 2. Two sandbox processes on the same state: the benchmark's limit, and none.
    const limited = await spawnSandbox(
      stateFile,
      `${LIMIT.limit}/${LIMIT.windowMs / 1000}s`,
      capture,
      'sandbox 100/1s',
    );
    children.push(limited.child);
    const unlimited = await spawnSandbox(unlimitedFile, '1000000/1s', capture, 'sandbox unlimited');
    children.push(unlimited.child);
    const { info } = limited;
    for (const i of [limited.info, unlimited.info]) {
      secretsInUse.add(i.keySecret);
      secretsInUse.add(i.observabilityToken);
    }

    const credentials = staticCredentials(
      'bench',
      { organizationId: info.organizationId, keyId: info.keyId, keySecret: info.keySecret },
      managementAuth,
    );
    const startedAt: number[] = [];
    const answeredAt: number[] = [];
    const statuses: number[] = [];
    const counting: FetchLike = async (url, init) => {
      startedAt.push(performance.now());
      const response = await fetch(url, init);
      statuses.push(response.status);
      answeredAt.push(performance.now());
      return response;
    };
    const reset = () => {
      startedAt.length = 0;
      answeredAt.length = 0;
      statuses.length = 0;
    };

    // 3. One unthrottled batch: `limit` metrics reads at once, fresh client, no limiter.
    const batchMs: number[] = [];
    const batch = async () => {
      const api = createManagementClient({
        baseUrl: unlimited.info.apiUrl,
        credentials,
        rateLimit: false,
      });
      try {
        const started = performance.now();
        await Promise.all(serviceIds.slice(0, LIMIT.limit).map((id) => api.getServiceMetrics(id)));
        batchMs.push(performance.now() - started);
      } finally {
        api.close();
      }
    };

    // 4. The watchdog passes, through the real client and its limiter, against the limit.
    const api = createManagementClient({
      baseUrl: info.apiUrl,
      credentials,
      rateLimit: LIMIT,
      fetch: counting,
    });
    const counter: Notifier = { name: 'count', send: () => Promise.resolve() };
    const config = parseWatchdogConfig({ organizationId: info.organizationId, serviceIds });
    const store = new LocalWatchStore();
    const windows = Math.ceil(services / LIMIT.limit);
    const bareFloorMs = (windows - 1) * LIMIT.windowMs;
    const rawPasses: {
      label: string;
      started: number;
      wallMs: number;
      result: Awaited<ReturnType<typeof runWatchdog>>;
    }[] = [];
    const passes: Omit<WatchdogPass, 'ratioToFloor'>[] = [];
    const pass = async (label: string) => {
      reset();
      const started = performance.now();
      const result = await runWatchdog(config, { api, store, notifiers: [counter], now: Date.now });
      const wallMs = performance.now() - started;
      rawPasses.push({ label, started, wallMs, result });
      const sortedStarts = [...startedAt].sort((a, b) => a - b);
      const sortedAnswers = [...answeredAt].sort((a, b) => a - b);
      const secondStart = (sortedStarts[LIMIT.limit] ?? NaN) - started;
      passes.push({
        pass: label,
        requests: statuses.length,
        requestsPerService: statuses.length / services,
        failedRequests: statuses.filter((s) => s >= 400).length,
        watchdogErrors: result.errors.length,
        notifications: result.notifications.length,
        wallMs: Math.round(wallMs),
        firstBatchAnsweredMs: Math.round((sortedAnswers[LIMIT.limit - 1] ?? NaN) - started),
        secondBatchStartMs: Math.round(secondStart),
        limiterDelayMs: Math.round(secondStart - (sortedStarts[0] - started + LIMIT.windowMs)),
        lastStartMs: Math.round(sortedStarts.at(-1)! - started),
        firstAnswerMs: Math.round(sortedAnswers[0] - started),
        lastAnswerMs: Math.round(sortedAnswers.at(-1)! - started),
        afterLastAnswerMs: Math.round(started + wallMs - sortedAnswers.at(-1)!),
        ratioToBareFloor: Number((wallMs / bareFloorMs).toFixed(3)),
      });
    };
    try {
      // Warm both sandbox processes alike (JIT, connections) so the batch and the passes
      // compare like with like; the limited one then waits out its window.
      await batch();
      batchMs.length = 0;
      await Promise.all(serviceIds.slice(0, LIMIT.limit).map((id) => api.getServiceMetrics(id)));
      await new Promise((resolve) => setTimeout(resolve, LIMIT.windowMs + 100));
      // Batches alternate with the passes so both see the same machine load.
      await batch();
      await pass('first (all pipes new)');
      await batch();
      // After the window has passed, as the next scheduled run would be.
      await new Promise((resolve) => setTimeout(resolve, LIMIT.windowMs + 100));
      await batch();
      await pass('steady state');
      await batch();
    } finally {
      api.close();
    }
    const batchMedianMs = median(batchMs);
    const floorMs = bareFloorMs + batchMedianMs;
    capture.add(
      'watchdog notifications',
      JSON.stringify(rawPasses.map((p) => p.result.notifications)),
    );
    return {
      services,
      pipesPerService,
      limit: `${LIMIT.limit}/${LIMIT.windowMs}ms`,
      batchMs: batchMs.map(Math.round),
      batchMedianMs: Math.round(batchMedianMs),
      floorMs: Math.round(floorMs),
      bareFloorMs,
      passes: passes.map((p, i) => ({
        ...p,
        ratioToFloor: Number((rawPasses[i].wallMs / floorMs).toFixed(3)),
      })),
    };
  } finally {
    await Promise.all(children.map(stop));
    rmSync(dir, { recursive: true, force: true });
  }
}
