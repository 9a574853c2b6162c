/**
 * What the on-call commands show of a pipe, pure: its state and source from this read (the
 * service's metrics, or its listing), and from the watchdog's record when one is kept: since
 * when it is in that state, when its sent counter last moved, the rates since the last reading,
 * and the conditions the watchdog has told and not yet closed.
 */
import type { PipeReading } from '../schemas/metrics';
import type { Severity } from '../watch/notice';
import { seenInListing, seenInMetrics, type ServiceObservation } from './observe';
import { ratePerMinute } from './progress';
import { FLOW, type ProgressReading } from './progress-record';
import type { ObservedPipe, PipeRecord } from './types';

export interface OpenCondition {
  /** `health` (the pipe's state), `progress` or `errors`. */
  condition: string;
  /** What it is called: the state (health), `stalled` / `quiet` (progress), `erroring`. */
  name: string;
  /** The condition's state as the watchdog keeps it (`piling-up` is a critical stall). */
  state: string;
  severity: Severity;
  since: string;
}

export interface PipeView {
  serviceId: string;
  pipeId: string;
  name: string;
  state: string;
  sourceKind?: string;
  /** When the pipe entered `state` (from the watchdog's record). */
  stateSince?: string;
  /** When the sent counter was last seen rising (a reading's time); absent when not seen. */
  lastProgressAt?: string;
  /** Per minute, from the record's last reading to this read. */
  sentPerMinute?: number;
  fetchedPerMinute?: number;
  errorsPerMinute?: number;
  /** This read's counters (a database pipe's are batch ids). */
  reading?: ProgressReading;
  /** The readings the watchdog kept, oldest first. */
  keptReadings?: ProgressReading[];
  conditions: OpenCondition[];
}

export interface ServiceView {
  serviceId: string;
  /** How the service was read; `idle`, `not observed` and `failed` show no pipes. */
  read: 'metrics' | 'listing' | 'idle' | 'not observed' | 'failed';
  message?: string;
  pipes: PipeView[];
  /** Every metric of each pipe as read (a metrics read only), by pipe id. */
  metrics: Record<string, PipeReading>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The view of one service's answer, beside the watchdog's records of it (none: `[]`). */
export function viewService(
  ids: { organizationId: string; serviceId: string },
  observation: ServiceObservation,
  records: readonly PipeRecord[],
  at: number,
): ServiceView {
  const base = { serviceId: ids.serviceId, pipes: [], metrics: {} };
  if ('kind' in observation) {
    const read = observation.kind === 'idle' ? 'idle' : 'failed';
    return { ...base, read, message: observation.message };
  }
  if (observation.via === 'metrics' && !observation.reading.observed) {
    const idle = observation.reading.clusterStatus === 'idle';
    return { ...base, read: idle ? 'idle' : 'not observed' };
  }
  const seen =
    observation.via === 'metrics'
      ? seenInMetrics(observation.reading, records, ids, at)
      : seenInListing(observation.pipes, ids);
  const byId = new Map(records.map((r) => [r.pipeId, r]));
  return {
    ...base,
    read: observation.via,
    pipes: seen.pipes.map((p) => viewPipe(p, byId.get(p.pipeId))),
    metrics:
      observation.via === 'metrics'
        ? Object.fromEntries(observation.reading.pipes.map((p) => [p.pipeId, p]))
        : {},
  };
}

function viewPipe(pipe: ObservedPipe, record: PipeRecord | undefined): PipeView {
  const view: PipeView = {
    serviceId: pipe.serviceId,
    pipeId: pipe.pipeId,
    name: pipe.pipeName,
    state: pipe.state,
    conditions: record && !record.gone ? openConditions(record) : [],
  };
  const sourceKind = pipe.sourceKind ?? record?.sourceKind;
  if (sourceKind) view.sourceKind = sourceKind;
  if (pipe.reading) view.reading = pipe.reading;
  if (!record || record.gone) return view;
  if (record.state === pipe.state) view.stateSince = iso(record.since);
  if (record.progress?.readings.length) view.keptReadings = record.progress.readings;
  // The watchdog keeps sentSince as progress only while it saw the pipe Running (progress.ts).
  return { ...view, ...sinceLastReading(record, pipe.reading, record.state === 'Running') };
}

/** Below this between two readings a rate is noise (whole events over seconds): use the kept ones. */
const MIN_RATE_SPAN_MS = 60_000;

/**
 * Rates and the last progress, from the record's last reading to this one; read within a minute
 * of the watchdog's run, the rates are those between its last two readings.
 */
function sinceLastReading(
  record: PipeRecord,
  now: ProgressReading | undefined,
  running: boolean,
): Pick<PipeView, 'lastProgressAt' | 'sentPerMinute' | 'fetchedPerMinute' | 'errorsPerMinute'> {
  const progress = record.progress;
  const last = progress?.readings.at(-1);
  if (!progress || !last) return {};
  const comparable = now !== undefined && now.counter === last.counter;
  const readings = comparable && now.at > last.at ? [...progress.readings, now] : progress.readings;
  const seenAt = lastProgressOf(progress, readings, running);
  const seen = seenAt === undefined ? {} : { lastProgressAt: iso(seenAt) };
  if (!comparable) return seen;
  const [from, to] =
    now.at - last.at >= MIN_RATE_SPAN_MS ? [last, now] : [progress.readings.at(-2), last];
  const rate = (field: 'sent' | 'fetched' | 'errors') =>
    from && ratePerMinute({ at: from.at, value: from[field] }, { at: to.at, value: to[field] });
  const out = {
    ...seen,
    sentPerMinute: rate('sent'),
    fetchedPerMinute: rate('fetched'),
    errorsPerMinute: rate('errors'),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/**
 * When progress was last seen. Running, `sentSince` is when sent last moved (or its clock
 * started), which may be older than the kept readings; not Running, the watchdog restarts that
 * clock at every run, so only a rise of sent between two readings counts.
 */
function lastProgressOf(
  progress: NonNullable<PipeRecord['progress']>,
  readings: readonly ProgressReading[],
  running: boolean,
): number | undefined {
  const rose = lastSentRise(readings);
  if (!running) return rose;
  return rose !== undefined && rose > progress.sentSince ? rose : progress.sentSince;
}

/** The time of the last reading whose sent counter rose from the one before it. */
function lastSentRise(readings: readonly ProgressReading[]): number | undefined {
  for (let i = readings.length - 1; i > 0; i -= 1) {
    const [before, after] = [readings[i - 1], readings[i]];
    if (before.sent === undefined || after.sent === undefined) continue;
    if (before.counter === after.counter && after.sent > before.sent) return after.at;
  }
  return undefined;
}

/** The names progress notices carry (lib/pipes/progress.ts): a flow that piles up is stalled. */
function conditionName(condition: 'health' | 'progress' | 'errors', state: string): string {
  if (condition === 'health') return state;
  if (condition === 'errors') return 'erroring';
  return state === FLOW.quiet ? 'quiet' : 'stalled';
}

/** The conditions told and not closed: the state's, the flow's, the errors'. */
function openConditions(record: PipeRecord): OpenCondition[] {
  const told = [
    ['health', record.announced],
    ['progress', record.progress?.flow.announced],
    ['errors', record.progress?.errors.announced],
  ] as const;
  return told.flatMap(([condition, problem]) =>
    problem
      ? [
          {
            condition,
            name: conditionName(condition, problem.state),
            state: problem.state,
            severity: problem.severity,
            since: iso(problem.since),
          },
        ]
      : [],
  );
}
