/** One line for a failed command: what failed, where, and what to do; never a stack trace. */
import { CloudOpsError } from '../lib/errors';
import { redactText } from '../lib/redact';

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

/** The message for `cloudops <command>: …`; redacted, one line unless the error lists issues. */
export function describeFailure(error: unknown): string {
  if (error instanceof CliFailure) return error.message;
  if (error instanceof CloudOpsError) return `${error.name}: ${error.message}`;
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
