/**
 * The credentials the functions use, created empty (a random placeholder) and seeded by the
 * deployer (cdk/README.md). Functions are granted only the secrets they read.
 */
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

export interface CredentialSecretsProps {
  readonly namePrefix: string;
  /** Create a separate admin-key secret that the rotator manages keys with. */
  readonly adminSecret: boolean;
}

export class CredentialSecrets extends Construct {
  /** `{ organizationId, keyId, keySecret, keyRecordId, roles, ... }`, rotated by rotate-key. */
  readonly managementKey: secretsmanager.Secret;
  /** `{ token }` for the observability API. */
  readonly observabilityToken: secretsmanager.Secret;
  readonly admin?: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: CredentialSecretsProps) {
    super(scope, id);
    this.managementKey = new secretsmanager.Secret(this, 'ManagementKey', {
      secretName: `${props.namePrefix}/management-key`,
      description:
        'cloudops management API key (JSON: organizationId, keyId, keySecret, keyRecordId, roles). Rotated by rotate-key.',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.observabilityToken = new secretsmanager.Secret(this, 'ObservabilityToken', {
      secretName: `${props.namePrefix}/observability-token`,
      description:
        'cloudops observability API token (JSON: token). Not rotatable by API: replace it by hand.',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.observabilityToken).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The observability API offers no call to create or revoke tokens, so no rotation function can exist; it is replaced by hand (cdk/README.md).',
    });
    if (props.adminSecret) {
      this.admin = new secretsmanager.Secret(this, 'AdminKey', {
        secretName: `${props.namePrefix}/admin-key`,
        description:
          'cloudops admin key the rotator creates and expires keys with (same JSON shape as the management key).',
        removalPolicy: RemovalPolicy.RETAIN,
      });
      Validations.of(this.admin).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'The admin key is the identity that rotates the management key; a person rotates it (rotating it with itself would leave no fallback).',
      });
    }
  }
}
