/** One line for a failed command: what failed, where, and what to do; never a stack trace. */
import { CloudOpsError, ConfigError } from '../lib/errors';
import { redactText } from '../lib/redact';
import { linesForTerminal } from '../lib/text/terminal';
import { UsageError } from './args';
import { EXIT } from './exit';
import type { CliIO } from './io';

/** A failure the CLI explains itself (a file it cannot write, a service it cannot reach). */
export class CliFailure extends CloudOpsError {
  override name = 'CliFailure';
}

const firstLine = (text: string) => text.split('\n', 1)[0];

/** What the SDK's service exceptions carry (no import: the bin loads the SDK only when needed). */
interface SdkError {
  name: string;
  message: string;
  $metadata: { httpStatusCode?: number };
}

const isSdkError = (error: unknown): error is SdkError =>
  error instanceof Error && typeof (error as Partial<SdkError>).$metadata === 'object';

/**
 * The settings behind a credential an API refused with 401 (an ApiError's `status` and `path`,
 * read without importing the API client into the bin's small entry).
 */
export function unauthorizedHint(error: unknown, env: CliIO['env'] = {}): string | undefined {
  if (!(error instanceof CloudOpsError)) return undefined;
  const { status, path } = error as { status?: unknown; path?: unknown };
  if (status !== 401 || typeof path !== 'string') return undefined;
  return refusedCredentialHint(path.startsWith('/api/') ? 'observability' : 'management', env);
}

/** The settings to check when `api` refused its credential (a 401). */
export function refusedCredentialHint(
  api: 'management' | 'observability',
  env: CliIO['env'] = {},
): string {
  const observability = api === 'observability';
  const [bySecret, byValue] = observability
    ? ['CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID', 'CLOUDOPS_OBSERVABILITY_TOKEN']
    : ['CLOUDOPS_KEY_SECRET_ID', 'CLOUDOPS_KEY_ID and CLOUDOPS_KEY_SECRET'];
  const settings = env[bySecret]
    ? `the secret ${bySecret} names (it wins over ${byValue})`
    : `${byValue} (or ${bySecret})`;
  const what = observability
    ? 'the observability API refused the token'
    : 'the management API refused the key';
  return `${what}: check ${settings}; \`cloudops doctor\` checks every setting`;
}

/**
 * The message for `cloudops <command>: …`; redacted, one line unless the error lists issues,
 * and safe for a terminal (an error can quote the service's own text).
 */
export function describeFailure(error: unknown, env: CliIO['env'] = {}): string {
  return linesForTerminal(describe(error, env));
}

function describe(error: unknown, env: CliIO['env']): string {
  if (error instanceof CliFailure) return error.message;
  if (error instanceof CloudOpsError) {
    const hint = unauthorizedHint(error, env);
    return `${error.name}: ${error.message}${hint ? ` — ${hint}` : ''}`;
  }
  if (isSdkError(error)) {
    const status = error.$metadata.httpStatusCode;
    return redactText(
      `AWS answered ${error.name}${status ? ` (HTTP ${status})` : ''}: ${firstLine(error.message)}`,
    );
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? firstLine(error.message) : String(error);
  return (
    redactText(`${message}${code && !message.includes(code) ? ` (${code})` : ''}`) +
    ' — an unexpected failure: --debug shows the stack trace'
  );
}

/** An abort, however it surfaced: our signal, or a prompt's own Ctrl-C (readline's AbortError). */
const isInterrupt = (error: unknown, signal: AbortSignal) =>
  signal.aborted ||
  (error instanceof Error &&
    (error.name === 'AbortError' || (error as { code?: string }).code === 'ABORT_ERR'));

/** Prints a command's failure and returns its exit code: 130 interrupted, 64 usage or setup, else 1. */
export function reportFailure(
  command: string,
  error: unknown,
  context: { io: CliIO; signal: AbortSignal; debug: boolean },
): number {
  const { io, signal, debug } = context;
  if (isInterrupt(error, signal)) {
    io.err(`cloudops ${command}: interrupted`);
    return EXIT.interrupted;
  }
  if (error instanceof UsageError) {
    io.err(`cloudops ${command}: ${error.message}\nRun \`cloudops ${command} --help\` for usage.`);
    return EXIT.usage;
  }
  io.err(`cloudops ${command}: ${describeFailure(error, io.env)}`);
  // A setting missing or invalid: the run never started, like a mistyped flag.
  if (error instanceof ConfigError) return EXIT.usage;
  if (debug && error instanceof Error && error.stack) io.err(redactText(error.stack));
  return EXIT.failure;
}
