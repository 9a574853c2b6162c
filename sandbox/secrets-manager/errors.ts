/**
 * An error the emulator answers as AWS does for JSON 1.1 services: HTTP 400 with
 * `{"__type": "<ExceptionName>", "message": "..."}`, which the SDK turns into the
 * modelled exception class (ResourceNotFoundException, ...). Messages never carry values.
 */
export class SecretsManagerFault extends Error {
  override name = 'SecretsManagerFault';
  constructor(
    readonly type: SecretsManagerErrorType,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

type SecretsManagerErrorType =
  | 'ResourceNotFoundException'
  | 'InvalidRequestException'
  | 'InvalidParameterException'
  | 'ResourceExistsException'
  | 'MissingAuthenticationTokenException'
  | 'SerializationException'
  | 'UnknownOperationException'
  | 'InternalServiceError'
  | 'AccessDeniedException';

export const notFound = (message = "Secrets Manager can't find the specified secret.") =>
  new SecretsManagerFault('ResourceNotFoundException', message);
export const invalidRequest = (message: string) =>
  new SecretsManagerFault('InvalidRequestException', message);
export const invalidParameter = (message: string) =>
  new SecretsManagerFault('InvalidParameterException', message);
export const resourceExists = (message: string) =>
  new SecretsManagerFault('ResourceExistsException', message);
