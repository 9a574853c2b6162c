/**
 * Watchdog benchmark: 200 services x 20 pipes against the sandbox (its own process, as a
 * real API would be) with a 100 requests/s limit. Prints per pass: requests made (goal: one
 * per service), wall time over the rate-limit floor (goal <= 1.1), failed requests (goal 0).
 * Run: npx tsx bench/watchdog.ts [services] [pipesPerService]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import fetch from 'node-fetch';
import { createManagementClient, type FetchLike } from '../lib/api';
import { staticCredentials } from '../lib/credentials';
import type { Notifier } from '../lib/notify/types';
import { LocalStateStore } from '../lib/pipes/store';
import { parseWatchdogConfig, runWatchdog } from '../lib/pipes/watchdog';
import { managementAuth, type Pipe } from '../lib/schemas';
import { startSandbox, type SandboxInfo } from '../sandbox/index';

const SERVICES = Number(process.argv[2] ?? 200);
const PIPES = Number(process.argv[3] ?? 20);
const LIMIT = { limit: 100, windowMs: 1_000 };
const ROOT = path.resolve(import.meta.dirname, '..');

// 1. Seed a state file with the services and pipes, in process.
const dir = mkdtempSync(path.join(tmpdir(), 'bench-watchdog-'));
const stateFile = path.join(dir, 'sandbox.json');
const seeder = await startSandbox({ port: 0, stateFile });
const template = seeder.store.state.pipes[0];
const serviceIds: string[] = [];
for (let s = 0; s < SERVICES; s++) {
  const id = randomUUID();
  serviceIds.push(id);
  seeder.store.state.services.push({ id, name: `bench-${s}`, team: 'bench' });
  for (let p = 0; p < PIPES; p++) {
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

// 2. Serve it from a separate process with the benchmark's rate limit.
const child = spawn(
  path.join(ROOT, 'node_modules/.bin/tsx'),
  [
    path.join(ROOT, 'cli/main.ts'),
    'sandbox',
    '--state',
    stateFile,
    '--management-rate-limit',
    '100/1s',
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const info = await new Promise<SandboxInfo>((resolve, reject) => {
  child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  createInterface({ input: child.stdout }).once('line', (line) =>
    resolve(JSON.parse(line) as SandboxInfo),
  );
});

// 3. Count what the client really sends.
const sent: number[] = [];
const answeredAt: number[] = [];
const counting: FetchLike = async (url, init) => {
  const response = await fetch(url, init);
  sent.push(response.status);
  answeredAt.push(performance.now());
  return response;
};
const api = createManagementClient({
  baseUrl: info.apiUrl,
  credentials: staticCredentials(
    'bench',
    { organizationId: info.organizationId, keyId: info.keyId, keySecret: info.keySecret },
    managementAuth,
  ),
  rateLimit: LIMIT,
  fetch: counting,
});
let delivered = 0;
const counter: Notifier = {
  name: 'count',
  send: () => {
    delivered += 1;
    return Promise.resolve();
  },
};
const config = parseWatchdogConfig({ organizationId: info.organizationId, serviceIds });
const store = new LocalStateStore();
/** N requests at L per window need at least ceil(N/L) - 1 full windows after the first burst. */
const floorMs = (Math.ceil(SERVICES / LIMIT.limit) - 1) * LIMIT.windowMs;

async function pass(label: string) {
  sent.length = 0;
  answeredAt.length = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await runWatchdog(config, { api, store, notifiers: [counter], now: Date.now });
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const failed = sent.filter((status) => status >= 400).length;
  const ratio = floorMs > 0 ? wallMs / floorMs : NaN;
  console.log(
    JSON.stringify({
      pass: label,
      services: SERVICES,
      pipesChecked: result.checked,
      requests: sent.length,
      requestsPerService: sent.length / SERVICES,
      failedRequests: failed,
      watchdogErrors: result.errors.length,
      notifications: result.notifications.length,
      wallMs: Math.round(wallMs),
      floorMs,
      // Where the time went: the API's answers (paced by the limiter) vs the watchdog's own work after the last one.
      firstWindowAnsweredMs: Math.round((answeredAt[LIMIT.limit - 1] ?? NaN) - started),
      lastAnswerMs: Math.round(Math.max(...answeredAt) - started),
      afterLastAnswerMs: Math.round(started + wallMs - Math.max(...answeredAt)),
      ratioToFloor: Number(ratio.toFixed(3)),
      // CPU of the watchdog process (client + decisions + store); the sandbox runs apart.
      clientCpuMs: Math.round((used.user + used.system) / 1000),
      loadAverage1m: Number(loadavg()[0].toFixed(2)),
      goals: {
        onePerService: sent.length === SERVICES,
        ratioAtMost1_1: ratio <= 1.1,
        zeroFailed: failed === 0,
      },
    }),
  );
}

try {
  // First pass: every pipe is new. Second pass, after the window has passed: steady state.
  await pass('first (all pipes new)');
  await new Promise((resolve) => setTimeout(resolve, LIMIT.windowMs + 100));
  await pass('steady state');
  console.log(JSON.stringify({ delivered }));
} finally {
  api.close();
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
