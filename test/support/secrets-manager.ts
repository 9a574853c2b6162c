import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** The real SDK client pointed at a local emulator, with dummy credentials. */
export function sdkClient(endpoint: string): SecretsManagerClient {
  return new SecretsManagerClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
}

/** A ClientRequestToken as the SDK makes them (AWS wants 32-64 characters). */
export const token = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
