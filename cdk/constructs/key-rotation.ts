/**
 * Key rotation: the rotate-key function driven by the management key secret's rotation
 * schedule, and the key-expiry sentinel on its own schedule (it warns on the topic when the
 * current key nears expiry, i.e. when rotation is stuck).
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CloudOpsFunction } from './function';
import type { Notifications } from './notifications';
import { functionSchedule } from './schedule';
import type { CredentialSecrets } from './secrets';

export interface KeyRotationProps {
  readonly secrets: CredentialSecrets;
  readonly apiUrl: string;
  readonly rotationDays: number;
  readonly keyLifetimeMs: number;
  readonly keyGracePeriodMs: number;
  readonly keyExpiryWarnDays: number;
  readonly sentinelSchedule: string;
  readonly notifications: Notifications;
  readonly scheduleDeadLetterQueue: sqs.IQueue;
  readonly logRetention: logs.RetentionDays;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
}

/** 90 days in ms -> "90d": the unit lib/keys/duration.ts reads back. */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

export class KeyRotation extends Construct {
  readonly rotator: CloudOpsFunction;
  readonly sentinel: CloudOpsFunction;
  readonly rotationSchedule: secretsmanager.CfnRotationSchedule;

  constructor(scope: Construct, id: string, props: KeyRotationProps) {
    super(scope, id);
    const { managementKey, admin } = props.secrets;
    const keyTiming = {
      CLOUDOPS_KEY_LIFETIME: formatDuration(props.keyLifetimeMs),
      CLOUDOPS_KEY_GRACE_PERIOD: formatDuration(props.keyGracePeriodMs),
    };

    this.rotator = new CloudOpsFunction(this, 'Rotator', {
      folder: 'rotate-key',
      description: 'Secrets Manager rotation of the management API key',
      memorySize: 256,
      timeout: Duration.minutes(1),
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      environment: {
        CLOUDOPS_API_URL: props.apiUrl,
        ...keyTiming,
        ...(admin ? { CLOUDOPS_ROTATION_ADMIN_SECRET_ID: admin.secretArn } : {}),
      },
    });
    const rotatorFn = this.rotator.fn;
    // What the four rotation steps call on this one secret; key material is made locally,
    // so no secretsmanager:GetRandomPassword (which cannot be scoped to a resource).
    rotatorFn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [
          'secretsmanager:DescribeSecret',
          'secretsmanager:GetSecretValue',
          'secretsmanager:PutSecretValue',
          'secretsmanager:UpdateSecretVersionStage',
        ],
        resources: [managementKey.secretArn],
      }),
    );
    admin?.grantRead(rotatorFn);
    rotatorFn.addPermission('SecretsManagerInvoke', {
      principal: new iam.ServicePrincipal('secretsmanager.amazonaws.com'),
      sourceArn: managementKey.secretArn,
      sourceAccount: Stack.of(this).account,
    });
    this.rotationSchedule = new secretsmanager.CfnRotationSchedule(this, 'Schedule', {
      secretId: managementKey.secretArn,
      rotationLambdaArn: rotatorFn.functionArn,
      rotationRules: { scheduleExpression: `rate(${props.rotationDays} days)` },
      // The secret holds a placeholder until seeded: the first rotation is started by hand.
      rotateImmediatelyOnUpdate: false,
    });
    // Secrets Manager tests the invoke permission when the schedule is created.
    this.rotationSchedule.node.addDependency(
      rotatorFn.permissionsNode.findChild('SecretsManagerInvoke'),
    );
    this.rotationSchedule.node.addDependency(this.rotator.role);

    this.sentinel = new CloudOpsFunction(this, 'Sentinel', {
      folder: 'rotate-key',
      file: 'sentinel',
      description: 'Warns when the current management key nears expiry',
      memorySize: 128,
      timeout: Duration.seconds(30),
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      environment: {
        CLOUDOPS_KEY_SECRET_ID: managementKey.secretArn,
        CLOUDOPS_KEY_EXPIRY_WARN_DAYS: String(props.keyExpiryWarnDays),
        CLOUDOPS_KEY_SENTINEL_TOPIC_ARN: props.notifications.topic.topicArn,
        ...keyTiming,
      },
    });
    managementKey.grantRead(this.sentinel.fn);
    props.notifications.grantPublish(this.sentinel.fn);
    functionSchedule(this, 'SentinelSchedule', {
      fn: this.sentinel.fn,
      expression: props.sentinelSchedule,
      description: 'cloudops key-expiry sentinel',
      deadLetterQueue: props.scheduleDeadLetterQueue,
    });
  }
}
