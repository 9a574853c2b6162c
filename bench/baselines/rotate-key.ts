/** Baseline of rotate-key: Secrets Manager only; the createSecret step starts with DescribeSecret. */
import { DescribeSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

const sm = new SecretsManagerClient({});

export async function handler(event: { SecretId: string }): Promise<number> {
  const out = await sm.send(new DescribeSecretCommand({ SecretId: event.SecretId }));
  return Object.keys(out.VersionIdsToStages ?? {}).length;
}
