/** The shared connection env vars of lib/config.ts, as the functions receive them. */
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';

export interface ConnectionSettings {
  readonly apiUrl: string;
  readonly observabilityUrl: string;
  readonly observabilityMode: 'managed' | 'open-source';
  readonly organizationId: string;
  readonly serviceIds: readonly string[];
  readonly managementKey: secretsmanager.ISecret;
  readonly observabilityToken: secretsmanager.ISecret;
}

/** Management API: URL, organization, services and the key secret. */
export function managementEnv(c: ConnectionSettings): Record<string, string> {
  return {
    CLOUDOPS_API_URL: c.apiUrl,
    CLOUDOPS_ORGANIZATION_ID: c.organizationId,
    CLOUDOPS_SERVICE_ID: c.serviceIds.join(','),
    CLOUDOPS_KEY_SECRET_ID: c.managementKey.secretArn,
  };
}

/**
 * Observability API (dashboards, alerts). Managed mode reaches it through the management API
 * (key secret, service); open-source mode talks to the stack alone and gets only the token.
 */
export function observabilityEnv(c: ConnectionSettings): Record<string, string> {
  return {
    ...(c.observabilityMode === 'managed' ? managementEnv(c) : {}),
    CLOUDOPS_OBSERVABILITY_URL: c.observabilityUrl,
    CLOUDOPS_OBSERVABILITY_MODE: c.observabilityMode,
    CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: c.observabilityToken.secretArn,
  };
}

/** Read access to exactly the secrets observabilityEnv names. */
export function grantObservabilitySecrets(c: ConnectionSettings, grantee: iam.IGrantable): void {
  c.observabilityToken.grantRead(grantee);
  if (c.observabilityMode === 'managed') c.managementKey.grantRead(grantee);
}
