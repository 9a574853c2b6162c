/** CLI side of the connection: settings from env, credentials from env or Secrets Manager. */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod';
import { readConnectionEnv, readEnv, type ConnectionEnv } from '../lib/config';
import {
  clientSettings,
  createClients,
  envCredentials,
  type ClientSettings,
  type Clients,
  type CredentialProviders,
} from '../lib/clients';
import { EVERY_OPERATION } from '../lib/all-clients';
import { secretsManagerCredentials } from '../lib/credentials';
import { createLogger, type LogFields, type Logger } from '../lib/log';
import { redactText } from '../lib/redact';
import { managementKeySecret, observabilityTokenSecret } from '../lib/schemas';

export interface Connection {
  config: ConnectionEnv;
  clients: Clients;
  /** Where the key and token come from (their labels name the secret or the key suffix). */
  credentials: CredentialProviders;
  serviceIds: string[];
  /** The Secrets Manager client, made on first use (closed with the connection). */
  secrets(): SecretsManagerClient;
  close(): void;
}

/** Secret ids win over values in env (a secret can be rotated under a running command). */
function credentialsFrom(
  config: ConnectionEnv,
  secrets: () => SecretsManagerClient,
): CredentialProviders {
  const fromEnv = envCredentials(config);
  const keySecretId = config.CLOUDOPS_KEY_SECRET_ID;
  const tokenSecretId = config.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID;
  return {
    management: keySecretId
      ? secretsManagerCredentials({
          client: secrets(),
          secretId: keySecretId,
          schema: managementKeySecret,
        })
      : fromEnv.management,
    observability: tokenSecretId
      ? secretsManagerCredentials({
          client: secrets(),
          secretId: tokenSecretId,
          schema: observabilityTokenSecret,
        })
      : fromEnv.observability,
  };
}

/** The AWS settings the CLI hands the SDK explicitly, so a command's env (not the process's) decides. */
const awsEnv = z.object({
  AWS_ENDPOINT_URL_SECRETS_MANAGER: z.url().optional(),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
});

/**
 * The CLI's logger: a person reads it, so routine info lines (retries, timings) appear only when
 * CLOUDOPS_LOG_LEVEL asks for them; warnings and errors always do. On a terminal (and unless
 * CLOUDOPS_LOG_LEVEL asks for JSON lines) they read as sentences, and a wait of a second or more
 * before a retry (or for the client's own rate pacing) says so, so a long wait is never silent.
 */
export function cliLogger(env: Record<string, string | undefined>, fields: LogFields = {}): Logger {
  const { CLOUDOPS_LOG_LEVEL: level } = readConnectionEnv(env);
  const json = createLogger({
    level: env.CLOUDOPS_LOG_LEVEL ? level : 'warn',
    fields: { app: 'cloudops-cli', ...fields },
  });
  return process.stderr.isTTY && !env.CLOUDOPS_LOG_LEVEL ? terminalLogger(json) : json;
}

/** Sentences on stderr for a person at a terminal; everything else goes to `json`. */
export function terminalLogger(
  json: Logger,
  write: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
): Logger {
  const said = (message: string, f: LogFields | undefined) => {
    const error = f?.error as { message?: string } | undefined;
    return redactText(error?.message ? `${message}: ${error.message}` : message);
  };
  return {
    debug: (m, f) => json.debug(m, f),
    info: (m, f) => {
      const delayMs = typeof f?.delayMs === 'number' ? f.delayMs : 0;
      if (m === 'api retry' && delayMs >= 1000) {
        const why = f?.reason === 429 ? 'rate limited' : `${String(f?.reason)}`;
        write(
          `… ${why}: retrying ${String(f?.method)} ${String(f?.path)} in ${(delayMs / 1000).toFixed(1)} s (attempt ${String(f?.attempt)})`,
        );
      } else if (m === 'api pacing' && delayMs >= 1000) {
        write(
          `… keeping to the rate limit: ${String(f?.method)} ${String(f?.path)} waits ${(delayMs / 1000).toFixed(1)} s`,
        );
      } else json.info(m, f);
    },
    warn: (m, f) => write(`warning: ${said(m, f)}`),
    error: (m, f) => write(`error: ${said(m, f)}`),
    child: (more) => terminalLogger(json.child(more), write),
  };
}

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

/**
 * Clients for whatever the env configures; commands ask for what they need via `clients`.
 * `overrides` are settings beyond the env contract (e.g. the watchdog's per-call deadline).
 */
export function connectFromEnv(
  env: Record<string, string | undefined>,
  overrides: Partial<ClientSettings> = {},
): Connection {
  const config = readConnectionEnv(env);
  let secretsClient: SecretsManagerClient | undefined;
  const secrets = () => (secretsClient ??= secretsManagerClientFromEnv(env));
  const logger = cliLogger(env);
  const credentials = credentialsFrom(config, secrets);
  const clients = createClients(
    { ...clientSettings(config, credentials, logger), ...overrides },
    EVERY_OPERATION,
  );
  return {
    config,
    clients,
    credentials,
    serviceIds: config.CLOUDOPS_SERVICE_ID ?? [],
    secrets,
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

/**
 * What `cloudops sandbox --write-env` writes: the key and token by secret id (read from the
 * sandbox's Secrets Manager on each run), so `keys rotate --settings` finds the secret and every
 * later command uses the rotated key; plus the seeded webhook the example dashboards refer to.
 */
export function sandboxEnvFile(
  info: Parameters<typeof sandboxEnv>[0] & {
    keySecretId: string;
    observabilityTokenSecretId: string;
    webhookId: string;
  },
): Record<string, string> {
  const {
    CLOUDOPS_KEY_ID: _id,
    CLOUDOPS_KEY_SECRET: _secret,
    CLOUDOPS_OBSERVABILITY_TOKEN: _token,
    ...rest
  } = sandboxEnv(info);
  return {
    ...rest,
    CLOUDOPS_KEY_SECRET_ID: info.keySecretId,
    CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: info.observabilityTokenSecretId,
    CLOUDOPS_VAR_WEBHOOK_ID: info.webhookId,
    ...EXAMPLE_WEBHOOK_VARS,
  };
}

/**
 * The example webhook file's URL and header (dashboards/alerting/checkout-alerts.yaml): values
 * for a sandbox, where nothing is ever posted to them.
 */
export const EXAMPLE_WEBHOOK_VARS = {
  CLOUDOPS_VAR_ALERTS_WEBHOOK_URL: 'https://hooks.example.invalid/cloudops-sandbox/checkout',
  CLOUDOPS_VAR_ALERTS_WEBHOOK_TOKEN: 'sandbox-example-token',
} as const;
