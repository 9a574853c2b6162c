export type {
  CredentialProvider,
  ManagementCredentialProvider,
  ObservabilityCredentialProvider,
} from './types';
export { parseSecret, parseSecretValue } from './parse';
export {
  AWSCURRENT,
  DEFAULT_CREDENTIALS_TTL_MS,
  fetchSecret,
  secretsManagerCredentials,
  type SecretsManagerCredentialsOptions,
} from './secrets-manager';
export { staticCredentials } from './static';
export {
  clearCredentialsCache,
  credentialsMiddleware,
  DEFAULT_CREDENTIALS_CACHE_KEY,
  type CredentialsContext,
  type CredentialsMiddlewareOptions,
} from './middleware';
