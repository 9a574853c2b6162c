/**
 * How much each pipe has moved, on the sandbox clock. A pipe's totals are a straight line between
 * changes: the totals at the last change plus its rates times the minutes since. Reading them
 * changes nothing; a change of rates or of the pipe's state first settles the totals at that
 * moment (`settleFlow`), so a restart from the state file continues the same lines.
 */
import { UNIT_MS } from '../../lib/duration';
import type { Pipe } from '../../lib/schemas';
import type { SandboxState } from '../store';
import type { FlowRates, MetricsState, PipeFlowRow } from './state';

export type FlowTotals = Pick<PipeFlowRow, 'fetched' | 'sent' | 'errors'>;

/** A Running pipe's flow unless a test sets another: 10 events a second in, 10 out, no errors. */
export const STEADY_FLOW: FlowRates = {
  fetchedPerMinute: 600,
  sentPerMinute: 600,
  errorsPerMinute: 0,
};
const STILL: FlowRates = { fetchedPerMinute: 0, sentPerMinute: 0, errorsPerMinute: 0 };
/** States in which a pipe moves data; every other state (Stopped, Failed, Paused...) is still. */
const MOVING_STATES = new Set(['Running', 'Degraded']);

export function metricsState(state: SandboxState): MetricsState {
  state.metrics ??= { flows: {}, partialServices: [] };
  return state.metrics;
}

/** The rates a pipe moves at now: its own (or the steady flow) while moving, none otherwise. */
export function currentRates(state: SandboxState, pipe: Pipe): FlowRates {
  if (!MOVING_STATES.has(pipe.state)) return STILL;
  return state.metrics?.flows[pipe.id]?.rates ?? STEADY_FLOW;
}

/** The totals at `now`; a pipe never changed since it was made starts from zero at `createdAt`. */
export function totalsAt(state: SandboxState, pipe: Pipe, now: number): FlowTotals {
  const row = state.metrics?.flows[pipe.id] ?? startOf(pipe, now);
  const minutes = Math.max(0, now - row.at) / UNIT_MS.m;
  const rates = currentRates(state, pipe);
  return {
    fetched: row.fetched + rates.fetchedPerMinute * minutes,
    sent: row.sent + rates.sentPerMinute * minutes,
    errors: row.errors + rates.errorsPerMinute * minutes,
  };
}

/** Fixes the totals at `now`; call before changing the pipe's state or rates. */
export function settleFlow(state: SandboxState, pipe: Pipe, now: number): PipeFlowRow {
  const flows = metricsState(state).flows;
  const rates = flows[pipe.id]?.rates;
  flows[pipe.id] = { ...(rates ? { rates } : {}), ...totalsAt(state, pipe, now), at: now };
  return flows[pipe.id];
}

/** Sets a pipe's rates from `now` on; undefined goes back to the steady flow. */
export function setFlowRates(
  state: SandboxState,
  pipe: Pipe,
  rates: FlowRates | undefined,
  now: number,
): void {
  const row = settleFlow(state, pipe, now);
  if (rates) row.rates = rates;
  else delete row.rates;
}

function startOf(pipe: Pipe, now: number): PipeFlowRow {
  const created = Date.parse(pipe.createdAt ?? '');
  return { fetched: 0, sent: 0, errors: 0, at: created <= now ? created : now };
}
