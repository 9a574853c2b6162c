import * as z from 'zod/mini';
import { safeInteger } from '../schemas/builders';
import { ValidationError } from '../errors';
import { parseOrThrow } from '../format-issues';
import { KNOWN_PIPE_STATES, type KnownPipeState } from '../schemas';
import type { Severity } from '../watch/notice';

type PipeCategory = 'healthy' | 'transitional' | 'degraded' | 'failed' | 'stopped' | 'unknown';

const stateList = (defaults: readonly KnownPipeState[]) =>
  z._default(z.array(z.string().check(z.minLength(1))), [...defaults]);

/** The state model; every list can be replaced, unknown option names are rejected. */
export const classifyOptionsSchema = z.strictObject({
  healthy: stateList(['Running', 'Completed', 'Snapshot']),
  transitional: stateList(['Provisioning', 'Setup', 'Stopping', 'Pausing', 'Modifying', 'Resync']),
  degraded: stateList(['Degraded']),
  failed: stateList(['Failed', 'InternalError']),
  stopped: stateList(['Stopped', 'Paused']),
  /** A transitional state held longer than this is reported as stuck. */
  stuckAfterMs: z._default(z.number().check(safeInteger(), z.positive()), 30 * 60_000),
  /** Pipe ids that are meant to be stopped: Stopped/Paused is not a problem for them. */
  expectedStopped: z._default(z.array(z.string().check(z.minLength(1))), []),
});
type ClassifyOptionsInput = z.input<typeof classifyOptionsSchema>;
type ClassifyOptions = z.output<typeof classifyOptionsSchema>;

/** Validate options, naming every bad field. */
export function parseClassifyOptions(input: ClassifyOptionsInput = {}): ClassifyOptions {
  const options = parseOrThrow(
    classifyOptionsSchema,
    input,
    'classify options',
    'invalid pipe state model',
  );
  const seen = new Map<string, string>();
  for (const category of ['healthy', 'transitional', 'degraded', 'failed', 'stopped'] as const) {
    for (const state of options[category]) {
      const other = seen.get(state);
      if (other)
        throw new ValidationError(
          `pipe state "${state}" is listed as both ${other} and ${category}`,
        );
      seen.set(state, category);
    }
  }
  return options;
}

export interface Classification {
  category: PipeCategory;
  /** Set when the state itself is a problem; transitional states only become one when stuck. */
  severity: Severity | undefined;
  /** True for states the real service is documented to send. */
  known: boolean;
}

/** Where a state stands in the model. Any unlisted string is `unknown`, never an error. */
export function classifyState(
  state: string,
  pipeId: string,
  options: ClassifyOptions,
): Classification {
  const known = (KNOWN_PIPE_STATES as readonly string[]).includes(state);
  if (options.healthy.includes(state)) return { category: 'healthy', severity: undefined, known };
  if (options.transitional.includes(state))
    return { category: 'transitional', severity: undefined, known };
  if (options.degraded.includes(state)) return { category: 'degraded', severity: 'warning', known };
  if (options.failed.includes(state)) return { category: 'failed', severity: 'critical', known };
  if (options.stopped.includes(state)) {
    const expected = options.expectedStopped.includes(pipeId);
    return { category: 'stopped', severity: expected ? undefined : 'warning', known };
  }
  return { category: 'unknown', severity: 'warning', known };
}
