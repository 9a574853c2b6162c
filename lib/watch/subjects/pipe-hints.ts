/**
 * The first thing to check about a pipe, per condition: by the kind of notice when it names the
 * condition (stuck, flapping, gone, ... and the progress conditions), else by the state the pipe
 * is in. A recovery or a healthy pipe needs nothing.
 */
import type { Severity } from '../notice';

type Hint = (pipeId: string, state: string) => string;
const get = (id: string) => `\`cloudops pipes get ${id}\``;

const BY_KIND: Partial<Record<string, Hint>> = {
  stuck: (id, state) =>
    `${state} this long usually means the source cannot be reached: check its network access and credentials; ${get(id)}`,
  unknown: (id) =>
    `a state this cloudops does not know: check the service's changelog; ${get(id)} shows what it reports`,
  flapping: (id) =>
    `its state keeps changing: check the source's connectivity and the destination's load; ${get(id)}`,
  gone: () =>
    'two listings in a row lacked it: check whether it was deleted on purpose (the service console)',
  restart: (id) =>
    `an automatic start was made: if it fails again, check the source credentials; ${get(id)}`,
  stalled: (id) =>
    `Running but sending nothing: check that the destination table accepts inserts; ${get(id)}`,
  quiet: (id) => `nothing fetched or sent: check that the source still produces data; ${get(id)}`,
  erroring: (id) =>
    `batches fail: check the destination table's columns against the source's fields; ${get(id)}`,
};

const BY_STATE: Partial<Record<string, Hint>> = {
  Failed: (id) => `check the pipe's source credentials and the destination table; ${get(id)}`,
  InternalError: (id) =>
    `an error on the service's side: ${get(id)}, and open a support case if it stays`,
  Stopped: (id) =>
    `stopped without being expected to: start it (\`cloudops pipes start ${id}\`) or list it in CLOUDOPS_WATCHDOG_EXPECTED_STOPPED`,
  Paused: (id) =>
    `paused without being expected to: start it (\`cloudops pipes start ${id}\`) or list it in CLOUDOPS_WATCHDOG_EXPECTED_STOPPED`,
  Degraded: (id) =>
    `the service reports it degraded: check the source's lag and errors; ${get(id)}`,
};

export function pipeHint(n: {
  kind: string;
  severity: Severity;
  resolves: boolean;
  pipeId: string;
  to: string;
  from: string;
}): string | undefined {
  if (n.resolves || n.severity === 'info') return undefined;
  const state = n.to || n.from;
  return (BY_KIND[n.kind] ?? BY_STATE[state])?.(n.pipeId, state);
}
