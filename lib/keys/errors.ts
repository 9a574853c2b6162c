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

/**
 * A key command (adopt, revoke) that refuses or cannot finish; `subject` names the key (record
 * id, suffix) or the secret it was about, never a value.
 */
export class KeyCommandError extends CloudOpsError {
  override name = 'KeyCommandError';
  readonly subject: string;
  constructor(message: string, options: ErrorOptions & { subject: string }) {
    super(message, options);
    this.subject = options.subject;
  }
}
