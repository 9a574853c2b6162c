export {
  createSecretsManagerEmulator,
  type CreateSecretSeed,
  type SecretsManagerEmulator,
  type SecretsManagerEmulatorOptions,
  type SecretsManagerRequestLogEntry,
} from './emulator';
export {
  ROTATION_STEPS,
  type RotationEvent,
  type RotationInvoker,
  type RotationStep,
} from './rotation';
export {
  secretsManagerState,
  AWSCURRENT,
  AWSPENDING,
  AWSPREVIOUS,
  type SecretsManagerState,
} from './state';
export { DEFAULT_ACCOUNT_ID, DEFAULT_REGION } from './store';
