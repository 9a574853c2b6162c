/**
 * Create on an API without idempotency, where a repeated POST makes a second object (alerts,
 * dashboards): POST; when its outcome is unknown (no answer, a 5xx or 429, an unreadable 2xx),
 * re-list and look for the object by the marker its body carries, and POST again only when it
 * is absent. A list that keeps failing ends the create: not knowing whether the first POST
 * landed, a second one could duplicate it.
 */
import { CloudOpsError } from '../errors';
import { systemClock, type Clock } from './clock';
import { ApiError, TransportError } from './errors';

export interface CreateOnceOptions<T> {
  /** One POST. Also the place for a check before every POST (it may throw to stop). */
  create(): Promise<T>;
  /** One list, searched for the object the POST makes (by its marker); undefined when absent. */
  find(): Promise<T | undefined>;
  /** POSTs at most (each unknown outcome is followed by a re-list). @default 5 */
  attempts?: number;
  /** A timed-out POST may still land: wait this long before looking for it. @default 1000 */
  settleMs?: number;
  /** Called once per POST whose outcome is unknown, before the re-list. */
  onUnknown?(error: unknown): void;
  signal?: AbortSignal;
  /** @default systemClock */
  clock?: Pick<Clock, 'sleep'>;
}

export interface CreatedOnce<T> {
  value: T;
  /** `answer`: a POST answered; `list`: a POST whose answer was lost is found by the re-list. */
  via: 'answer' | 'list';
  /**
   * POSTs sent again because one whose outcome was unknown was not in the re-list: that one
   * may still land later, next to the object returned here (a late copy).
   */
  resent: number;
}

/** Every POST had an unknown outcome and no re-list showed the object. */
export class CreateNotConfirmedError extends CloudOpsError {
  override name = 'CreateNotConfirmedError';
}

/**
 * True when a failed POST may have been applied all the same. Definite failures: a 4xx other
 * than 429 (refused), and any error that is not an API or transport error (nothing was sent).
 */
function outcomeUnknown(error: unknown): boolean {
  if (error instanceof TransportError) return true;
  if (!(error instanceof ApiError)) return false;
  return !(error.status >= 400 && error.status < 500 && error.status !== 429);
}

export async function createOnce<T>(options: CreateOnceOptions<T>): Promise<CreatedOnce<T>> {
  const attempts = options.attempts ?? 5;
  const clock = options.clock ?? systemClock;
  let unknownSent = 0;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const value = await options.create();
      return { value, via: 'answer', resent: unknownSent };
    } catch (error) {
      if (options.signal?.aborted || !outcomeUnknown(error)) throw error;
      options.onUnknown?.(error);
      if (error instanceof TransportError && error.kind === 'timeout')
        await clock.sleep(options.settleMs ?? 1000, options.signal);
      const found = await findOnce(options, error);
      if (found !== undefined) return { value: found, via: 'list', resent: unknownSent };
      unknownSent += 1;
      if (attempt >= attempts) {
        throw new CreateNotConfirmedError(
          `create not confirmed after ${attempts} attempt(s): ${messageOf(error)}`,
          { cause: error },
        );
      }
    }
  }
}

/**
 * One re-list. It is a GET, which the HTTP core already retries with backoff (retry.ts):
 * retrying it again here multiplied those attempts (5 × the core's) and their waits.
 */
async function findOnce<T>(
  options: CreateOnceOptions<T>,
  createError: unknown,
): Promise<T | undefined> {
  try {
    return await options.find();
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new CloudOpsError(
      `create outcome unknown (${messageOf(createError)}), and the list to look for it failed too ` +
        `(${messageOf(error)}); not created again, so it cannot be created twice`,
      { cause: error },
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
