import { CloudOpsError, type ErrorOptions } from '../errors';

/** A rotation step cannot proceed; names the secret (and the step when known), never a value. */
export class RotationError extends CloudOpsError {
  override name = 'RotationError';
  readonly secretId: string;
  constructor(message: string, options: ErrorOptions & { secretId: string }) {
    super(message, options);
    this.secretId = options.secretId;
  }
}
