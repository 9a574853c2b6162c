/**
 * Before a command talks to a service: can its address be reached at all? A refused connection
 * or an unknown host fails here after a few quick attempts, in one line naming the URL and the
 * setting to check, instead of a minute of backoff inside the command. Anything else (a slow
 * answer, a timeout) is left to the command's own timeouts and retries.
 */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { CliFailure } from './failure';

/** The env settings that hold each service's address, and what a person calls it. */
const SERVICE_URLS = {
  CLOUDOPS_API_URL: 'the management API',
  CLOUDOPS_OBSERVABILITY_URL: 'the observability API',
  AWS_ENDPOINT_URL_SECRETS_MANAGER: 'Secrets Manager',
} as const;
export type ServiceUrlSetting = keyof typeof SERVICE_URLS;

/** Errors that say the address is surely wrong or nothing listens there. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

interface ReachOptions {
  attempts?: number;
  /** First pause between attempts; doubles each time. */
  delayMs?: number;
  /** Per connection attempt; no answer in time counts as reachable (the command decides). */
  connectTimeoutMs?: number;
  signal?: AbortSignal;
}

function tryConnect(url: URL, timeoutMs: number): Promise<string | undefined> {
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (code: string | undefined) => {
      socket.destroy();
      resolve(code);
    };
    socket.setTimeout(timeoutMs, () => done(undefined));
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done(UNREACHABLE.has(error.code ?? '') ? error.code : undefined),
    );
  });
}

/** Resolves when every configured URL accepts a connection; else a CliFailure for the first that does not. */
export async function assertReachable(
  env: Record<string, string | undefined>,
  settings: readonly ServiceUrlSetting[],
  options: ReachOptions = {},
): Promise<void> {
  const { attempts = 3, delayMs = 150, connectTimeoutMs = 3_000, signal } = options;
  await Promise.all(
    [...new Set(settings)].map(async (setting) => {
      const raw = env[setting];
      if (!raw || !URL.canParse(raw)) return; // unset or malformed: the command's config check names it
      const url = new URL(raw);
      let code: string | undefined;
      for (let attempt = 1; attempt <= attempts; attempt++) {
        code = await tryConnect(url, connectTimeoutMs);
        if (code === undefined || signal?.aborted) return;
        if (attempt < attempts)
          await sleep(delayMs * 2 ** (attempt - 1), undefined, { signal }).catch(() => {});
      }
      const why =
        code === 'ECONNREFUSED' ? 'connection refused' : `${code}: host not found or unreachable`;
      throw new CliFailure(
        `cannot reach ${SERVICE_URLS[setting]} at ${url.origin} (${why}, ${attempts} attempts): ` +
          `check ${setting}${url.hostname === '127.0.0.1' || url.hostname === 'localhost' ? ', and that `cloudops sandbox` is still running' : ''}`,
      );
    }),
  );
}
