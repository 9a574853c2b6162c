/**
 * POST JSON with a timeout, retrying 5xx, 429 and network errors with backoff (injected sleep).
 * Redirects are never followed: a destination URL carries its own token (a Slack webhook) or a
 * signature, which a 3xx would hand to whatever host it names. A 3xx is a failed delivery.
 */
import fetch from 'node-fetch';
import { NotifyError, type HttpPostOptions } from './types';

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function postJson(
  notifier: string,
  url: string,
  body: string,
  headers: Record<string, string>,
  options: HttpPostOptions = {},
  signal?: AbortSignal,
): Promise<void> {
  const attempts = options.attempts ?? 3;
  const sleep = options.sleep ?? realSleep;
  let last: NotifyError | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await sleep((options.backoffMs ?? 200) * 2 ** (attempt - 2));
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 5000);
    let status: number;
    let text: string;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
        redirect: 'manual',
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      status = response.status;
      // Read the body so the connection is reusable; a little of it helps diagnosis.
      text = (await response.text()).slice(0, 200);
    } catch (error) {
      if (signal?.aborted) throw new NotifyError('aborted', { notifier, cause: error });
      const reason = timeout.aborted ? 'timed out' : (error as Error).message;
      last = new NotifyError(`request failed: ${reason}`, { notifier, cause: error });
      continue;
    }
    if (status >= 200 && status < 300) return;
    if (status >= 300 && status < 400)
      throw new NotifyError(`receiver answered ${status}, a redirect: not followed`, {
        notifier,
        status,
      });
    last = new NotifyError(`receiver answered ${status}: ${text}`, { notifier, status });
    // Other 4xx mean the request itself is wrong: retrying cannot help.
    if (status < 500 && status !== 429) throw last;
  }
  throw new NotifyError(
    `gave up after ${attempts} attempts (${last?.message ?? 'unknown error'})`,
    { notifier, status: last?.status, cause: last },
  );
}
