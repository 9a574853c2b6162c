/**
 * The pipe watchdog under seeded faults: a scripted timeline (sandbox clock, no sleeps) over
 * every pipe of the service. A run whose listing failed is followed by another run before
 * the script moves on (the schedule's next run). The notifications sent must equal the
 * fault-free ones, in content and number (no duplicates, none lost).
 */
import { describe, expect, it } from 'vitest';
import { runWatchdog, type WatchdogNotice } from '../../lib/pipes/watchdog';
import { parseWatchdogConfig } from '../../lib/pipes/watchdog-config';
import { LocalWatchStore } from '../../lib/watch/local-store';
import type { Sandbox } from '../../sandbox/index';
import { pipeOf, recordingNotifier } from '../integration/watchdog-helpers';
import { closeAfterEach } from '../support/close-after-each';
import {
  describeTrace,
  faultSandbox,
  faultTrace,
  managementClient,
  RATES,
  seededRuns,
  spec,
} from './helpers';

const MIN = 60_000;
const open = closeAfterEach<Sandbox>();

/** [minute, state per pipe index ('gone' removes it)]: transitions, a stuck pipe, a flap, a loss. */
const SCRIPT: [number, string[]][] = [
  [0, ['Running', 'Failed', 'Provisioning']],
  [5, ['Failed', 'Failed', 'Provisioning']],
  [10, ['Failed', 'Running', 'Provisioning']],
  [15, ['Running', 'Running', 'Provisioning']],
  [20, ['Stopped', 'Running', 'Provisioning']],
  [21, ['Running', 'Stopped', 'Provisioning']],
  [22, ['Stopped', 'Running', 'Provisioning']],
  [23, ['Running', 'Stopped', 'Provisioning']],
  [35, ['Running', 'Running', 'Provisioning']],
  [40, ['Running', 'gone', 'Running']],
  [50, ['InternalError', 'gone', 'Running']],
  [70, ['InternalError', 'gone', 'Running']],
];

interface Outcome {
  /** Pipe notifications (the service-level self-watch notices are in `selfWatch`). */
  notifications: string[];
  selfWatch: string[];
  runs: number;
  failedRuns: number;
  /** Streaks of 3+ consecutive runs that could not list (each must be announced once). */
  longStreaks: number;
}

async function scenario(rate: number | undefined, seed: number): Promise<Outcome> {
  const sb = await faultSandbox();
  open.push(sb);
  // Two attempts per listing (not ten), so faults get through to the watchdog and the
  // "a failed listing is retried by the next run" path is exercised.
  const api = managementClient(sb, { maxAttempts: 2 });
  const pipeIds = sb.store.state.pipes
    .filter((p) => p.serviceId === sb.info.serviceId)
    .slice(0, 3)
    .map((p) => p.id);
  const notifier = recordingNotifier();
  const store = new LocalWatchStore();
  const config = parseWatchdogConfig({
    organizationId: sb.info.organizationId,
    serviceIds: [sb.info.serviceId],
    includePipes: pipeIds,
  });
  if (rate !== undefined) sb.faults.set(spec(seed, rate));

  let minute = 0;
  let runs = 0;
  let failedRuns = 0;
  let longStreaks = 0;
  for (const [at, states] of SCRIPT) {
    sb.clock.advance((at - minute) * MIN);
    minute = at;
    states.forEach((state, i) => {
      const id = pipeIds[i];
      if (state === 'gone') sb.store.state.pipes = sb.store.state.pipes.filter((p) => p.id !== id);
      else sb.setPipeState(id, state);
    });
    for (let attempt = 1; ; attempt += 1) {
      if (attempt > 10) throw new Error(`watchdog never listed at minute ${at} (seed ${seed})`);
      runs += 1;
      const result = await runWatchdog(config, {
        api,
        store,
        notifiers: [notifier],
        now: () => sb.clock.now(),
      });
      expect(result.errors.filter((e) => e.stage !== 'list')).toEqual([]);
      if (result.errors.length === 0) {
        if (attempt - 1 >= config.selfWatchAfterFailures) longStreaks += 1;
        break;
      }
      failedRuns += 1;
    }
  }
  sb.faults.clear();
  api.close();
  if (rate !== undefined) console.log(describeTrace(`watchdog rate ${rate}`, faultTrace(sb)));
  // Ids are random per sandbox: name them by role so two sandboxes compare.
  const names: [string, string][] = [
    [sb.info.organizationId, 'org'],
    [sb.info.serviceId, 'service'],
    ...pipeIds.map((id, i): [string, string] => [id, `pipe${i}`]),
  ];
  const anonymize = (text: string) => names.reduce((t, [id, name]) => t.replaceAll(id, name), text);
  const text = (n: WatchdogNotice) => anonymize(JSON.stringify(n));
  return {
    notifications: notifier.sent.filter((n) => pipeOf(n) !== '').map(text),
    selfWatch: notifier.sent.filter((n) => pipeOf(n) === '').map((n) => n.kind),
    longStreaks,
    runs,
    failedRuns,
  };
}

describe('pipe watchdog under seeded faults', () => {
  const { seed, baseline } = seededRuns(scenario);

  it('fault-free: the scripted timeline gives its notifications', async () => {
    const c = await baseline();
    expect(c.failedRuns).toBe(0);
    expect(c.selfWatch).toEqual([]);
    const kinds = c.notifications.map((n) => (JSON.parse(n) as WatchdogNotice).kind);
    for (const kind of ['new', 'transition', 'recovery', 'stuck', 'flapping', 'gone'] as const)
      expect(kinds, kind).toContain(kind);
  });

  for (const rate of RATES) {
    it(`rate ${rate * 100} %, seed ${seed}: the same notifications as without faults`, async () => {
      const c = await baseline();
      const faulty = await scenario(rate, seed);
      console.log(
        `watchdog rate ${rate}: ${faulty.runs} runs for ${SCRIPT.length} script steps, ${faulty.failedRuns} could not list`,
      );
      expect(faulty.notifications).toEqual(c.notifications);
      // "Could not list N runs in a row" is announced once per long streak, then its recovery.
      expect(faulty.selfWatch).toEqual(
        Array.from({ length: faulty.longStreaks }, () => ['watchdog', 'recovery']).flat(),
      );
    });
  }
});
