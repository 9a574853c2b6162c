export {
  createSecretsManagerEmulator,
  type SecretsManagerEmulator,
  type SecretsManagerEmulatorOptions,
} from './emulator';
export { type RotationEvent, type RotationInvoker } from './rotation';
export {
  secretsManagerState,
  AWSCURRENT,
  AWSPENDING,
  AWSPREVIOUS,
  type SecretsManagerState,
} from './state';
