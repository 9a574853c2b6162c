/**
 * The connection env vars of lib/config.ts as the functions receive them. Every record is typed
 * by the schema that reads it (EnvOf), so renaming a variable in lib fails `tsc` here.
 */
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { ENV, type connectionEnv, type EnvOf, type ObservabilityMode } from '../../lib/config';

type ConnectionEnvVars = EnvOf<typeof connectionEnv>;

export interface ConnectionSettings {
  readonly apiUrl: string;
  readonly observabilityUrl: string;
  readonly observabilityMode: ObservabilityMode;
  readonly organizationId: string;
  readonly serviceIds: readonly string[];
}

/** The secrets one function reads: its own key and/or its own token. */
export interface FunctionCredentials {
  readonly managementKey?: secretsmanager.ISecret | undefined;
  readonly observabilityToken?: secretsmanager.ISecret | undefined;
}

/** The organization and its services, without any way to call the API (no URL, no key). */
export function servicesEnv(c: ConnectionSettings): ConnectionEnvVars {
  return {
    [ENV.organizationId]: c.organizationId,
    [ENV.serviceId]: c.serviceIds.join(','),
  };
}

/** Management API: URL, organization, services and the function's key secret. */
export function managementEnv(
  c: ConnectionSettings,
  managementKey: secretsmanager.ISecret,
): ConnectionEnvVars {
  return {
    [ENV.apiUrl]: c.apiUrl,
    ...servicesEnv(c),
    [ENV.keySecretId]: managementKey.secretArn,
  };
}

/**
 * Observability API (dashboards, alerts). Managed mode reaches it through the management API
 * (key secret, service); open-source mode talks to the stack alone and gets only the token.
 */
export function observabilityEnv(
  c: ConnectionSettings,
  credentials: FunctionCredentials & { observabilityToken: secretsmanager.ISecret },
): ConnectionEnvVars {
  const key = c.observabilityMode === 'managed' ? credentials.managementKey : undefined;
  return {
    ...(key ? managementEnv(c, key) : {}),
    [ENV.observabilityUrl]: c.observabilityUrl,
    [ENV.observabilityMode]: c.observabilityMode,
    [ENV.observabilityTokenSecretId]: credentials.observabilityToken.secretArn,
  };
}

/** Read access to exactly the secrets the env above names. */
export function grantCredentials(
  c: ConnectionSettings,
  credentials: FunctionCredentials,
  grantee: iam.IGrantable,
): void {
  credentials.observabilityToken?.grantRead(grantee);
  const needsKey = !credentials.observabilityToken || c.observabilityMode === 'managed';
  if (needsKey) credentials.managementKey?.grantRead(grantee);
}
