/** The shared connection env vars of lib/config.ts, as the functions receive them. */
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
 * Observability API (dashboards, alerts). The handlers load secrets through one middleware that
 * needs the key secret as well, so it is passed (and granted) in both modes.
 */
export function observabilityEnv(c: ConnectionSettings): Record<string, string> {
  return {
    ...managementEnv(c),
    CLOUDOPS_OBSERVABILITY_URL: c.observabilityUrl,
    CLOUDOPS_OBSERVABILITY_MODE: c.observabilityMode,
    CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: c.observabilityToken.secretArn,
  };
}
