export {
  createSecretsManagerEmulator,
  type SecretsManagerEmulator,
  type SecretsManagerEmulatorOptions,
} from './emulator';
export { type RotationEvent, type RotationInvoker, type RotationTiming } from './rotation';
export {
  secretsManagerState,
  AWSCURRENT,
  AWSPENDING,
  AWSPREVIOUS,
  type SecretsManagerState,
} from './state';
