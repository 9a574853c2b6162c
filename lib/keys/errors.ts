import { CloudOpsError } from '../errors';

/** A rotation step cannot proceed; names the secret (and the step when known), never a value. */
export class RotationError extends CloudOpsError {
  override name = 'RotationError';
  constructor(
    readonly secretId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
