/** CLI side of the connection: settings from env, credentials from env or Secrets Manager. */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod';
import { readConnectionEnv, readEnv, type ConnectionEnv } from '../lib/config';
import { createClients, type Clients } from '../lib/clients';
import {
  secretsManagerCredentials,
  staticCredentials,
  type ManagementCredentialProvider,
  type ObservabilityCredentialProvider,
} from '../lib/credentials';
import { ConfigError } from '../lib/errors';
import { createLogger } from '../lib/log';
import { managementAuth, managementKeySecret, observabilityTokenSecret } from '../lib/schemas';

export interface Connection {
  config: ConnectionEnv;
  clients: Clients;
  serviceIds: string[];
  close(): void;
}

function managementCredentials(
  config: ConnectionEnv,
  secrets: () => SecretsManagerClient,
): ManagementCredentialProvider | undefined {
  if (config.CLOUDOPS_KEY_SECRET_ID) {
    return secretsManagerCredentials({
      client: secrets(),
      secretId: config.CLOUDOPS_KEY_SECRET_ID,
      schema: managementKeySecret,
    });
  }
  if (config.CLOUDOPS_KEY_ID && config.CLOUDOPS_KEY_SECRET) {
    if (!config.CLOUDOPS_ORGANIZATION_ID) {
      throw new ConfigError('missing configuration: set CLOUDOPS_ORGANIZATION_ID');
    }
    return staticCredentials(
      `key …${config.CLOUDOPS_KEY_ID.slice(-4)}`,
      {
        organizationId: config.CLOUDOPS_ORGANIZATION_ID,
        keyId: config.CLOUDOPS_KEY_ID,
        keySecret: config.CLOUDOPS_KEY_SECRET,
      },
      managementAuth,
    );
  }
  return undefined;
}

function observabilityCredentials(
  config: ConnectionEnv,
  secrets: () => SecretsManagerClient,
): ObservabilityCredentialProvider | undefined {
  if (config.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID) {
    return secretsManagerCredentials({
      client: secrets(),
      secretId: config.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID,
      schema: observabilityTokenSecret,
    });
  }
  if (config.CLOUDOPS_OBSERVABILITY_TOKEN) {
    return staticCredentials(
      'observability token',
      { token: config.CLOUDOPS_OBSERVABILITY_TOKEN },
      observabilityTokenSecret,
    );
  }
  return undefined;
}

/** The AWS settings the CLI hands the SDK explicitly, so a command's env (not the process's) decides. */
const awsEnv = z.object({
  AWS_ENDPOINT_URL_SECRETS_MANAGER: z.url().optional(),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
});

/** A Secrets Manager client for the command's env: the sandbox endpoint takes any credentials. */
export function secretsManagerClientFromEnv(
  env: Record<string, string | undefined>,
): SecretsManagerClient {
  const aws = readEnv(awsEnv, env);
  const endpoint = aws.AWS_ENDPOINT_URL_SECRETS_MANAGER;
  const credentials =
    aws.AWS_ACCESS_KEY_ID && aws.AWS_SECRET_ACCESS_KEY
      ? { accessKeyId: aws.AWS_ACCESS_KEY_ID, secretAccessKey: aws.AWS_SECRET_ACCESS_KEY }
      : endpoint
        ? { accessKeyId: 'local', secretAccessKey: 'local' }
        : undefined; // real AWS: the SDK's default credential chain
  return new SecretsManagerClient({
    region: aws.AWS_REGION,
    ...(endpoint ? { endpoint } : {}),
    ...(credentials ? { credentials } : {}),
  });
}

/** Clients for whatever the env configures; commands ask for what they need via `clients`. */
export function connectFromEnv(env: Record<string, string | undefined>): Connection {
  const config = readConnectionEnv(env);
  let secretsClient: SecretsManagerClient | undefined;
  const secrets = () => (secretsClient ??= secretsManagerClientFromEnv(env));
  const clients = createClients({
    apiUrl: config.CLOUDOPS_API_URL,
    observabilityUrl: config.CLOUDOPS_OBSERVABILITY_URL,
    mode: config.CLOUDOPS_OBSERVABILITY_MODE,
    management: managementCredentials(config, secrets),
    observability: observabilityCredentials(config, secrets),
    managementRateLimit: config.CLOUDOPS_MANAGEMENT_RATE_LIMIT,
    observabilityRateLimit: config.CLOUDOPS_OBSERVABILITY_RATE_LIMIT,
    timeoutMs: config.CLOUDOPS_REQUEST_TIMEOUT_MS,
    logger: createLogger({ level: config.CLOUDOPS_LOG_LEVEL, fields: { app: 'cloudops-cli' } }),
  });
  return {
    config,
    clients,
    serviceIds: config.CLOUDOPS_SERVICE_ID ?? [],
    close() {
      clients.close();
      secretsClient?.destroy();
    },
  };
}

/** The env a client needs to reach a sandbox (what `cloudops sandbox` prints, as variables). */
export function sandboxEnv(info: {
  apiUrl: string;
  observabilityUrl: string;
  secretsManagerUrl: string;
  organizationId: string;
  serviceIds: string[];
  keyId: string;
  keySecret: string;
  observabilityToken: string;
}): Record<string, string> {
  return {
    CLOUDOPS_API_URL: info.apiUrl,
    CLOUDOPS_OBSERVABILITY_URL: info.observabilityUrl,
    CLOUDOPS_ORGANIZATION_ID: info.organizationId,
    CLOUDOPS_SERVICE_ID: info.serviceIds.join(','),
    CLOUDOPS_KEY_ID: info.keyId,
    CLOUDOPS_KEY_SECRET: info.keySecret,
    CLOUDOPS_OBSERVABILITY_TOKEN: info.observabilityToken,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: info.secretsManagerUrl,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'sandbox',
    AWS_SECRET_ACCESS_KEY: 'sandbox',
  };
}
