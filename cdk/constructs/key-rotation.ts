/**
 * Key rotation: one rotate-key function rotates every function's management key, each secret
 * on its own rotation schedule, and tags each secret with the key it holds. The key sentinel
 * audits every key of the organization daily (with its own key, the one key secret value it
 * reads; the others it knows from their tags) and tells new findings on the topic.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV, type connectionEnv, type EnvOf } from '../../lib/config';
import { WATCH_TABLE_VARIABLE } from '../../lib/watch/table-setting';
import type { rotationEnv } from '../../lib/keys/config';
import { formatDuration } from '../../lib/keys/duration';
import { SENTINEL_NOTIFIERS, type sentinelEnv } from '../../lib/keys/sentinel-env';
import { CloudOpsFunction, type FunctionDefaults } from './function';
import type { Notifications } from './notifications';
import { functionSchedule } from './schedule';
import type { CredentialSecrets } from './secrets';

interface KeyRotationProps extends FunctionDefaults {
  readonly secrets: CredentialSecrets;
  readonly apiUrl: string;
  readonly rotationDays: number;
  readonly keyLifetimeMs: number;
  readonly keyGracePeriodMs: number;
  readonly keyExpiryWarnDays: number;
  readonly sentinelSchedule: string;
  readonly notifications: Notifications;
  readonly scheduleDeadLetterQueue: sqs.IQueue;
}

export class KeyRotation extends Construct {
  readonly rotator: CloudOpsFunction;
  readonly sentinel: CloudOpsFunction;
  /** One per key secret, all invoking the one rotator. */
  readonly rotationSchedules: secretsmanager.CfnRotationSchedule[] = [];

  constructor(scope: Construct, id: string, props: KeyRotationProps) {
    super(scope, id);
    const { admin } = props.secrets;
    const keys = props.secrets.allKeys();
    const keyTiming: EnvOf<typeof rotationEnv> = {
      CLOUDOPS_KEY_LIFETIME: formatDuration(props.keyLifetimeMs),
      CLOUDOPS_KEY_GRACE_PERIOD: formatDuration(props.keyGracePeriodMs),
    };
    const rotatorEnv: EnvOf<typeof rotationEnv> = {
      ...keyTiming,
      CLOUDOPS_ROTATION_ADMIN_SECRET_ID: admin?.secretArn,
    };

    this.rotator = new CloudOpsFunction(this, 'Rotator', {
      folder: 'rotate-key',
      description: 'Secrets Manager rotation of the management API keys',
      memorySize: 256,
      timeout: Duration.minutes(1),
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      environment: { [ENV.apiUrl]: props.apiUrl, ...rotatorEnv },
    });
    const rotatorFn = this.rotator.fn;
    // What the four rotation steps call on these secrets; key material is made locally,
    // so no secretsmanager:GetRandomPassword (which cannot be scoped to a resource).
    rotatorFn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [
          'secretsmanager:DescribeSecret',
          'secretsmanager:GetSecretValue',
          'secretsmanager:PutSecretValue',
          'secretsmanager:UpdateSecretVersionStage',
          // The key each secret holds, recorded for the sentinel (which reads no other value).
          'secretsmanager:TagResource',
        ],
        resources: keys.map((key) => key.secretArn),
      }),
    );
    admin?.grantRead(rotatorFn);
    for (const key of keys) {
      const name = key.node.id;
      rotatorFn.addPermission(`SecretsManagerInvoke${name}`, {
        principal: new iam.ServicePrincipal('secretsmanager.amazonaws.com'),
        sourceArn: key.secretArn,
        sourceAccount: Stack.of(this).account,
      });
      const schedule = new secretsmanager.CfnRotationSchedule(this, `${name}Schedule`, {
        secretId: key.secretArn,
        rotationLambdaArn: rotatorFn.functionArn,
        rotationRules: { scheduleExpression: `rate(${props.rotationDays} days)` },
        // The secret holds a placeholder until seeded: the first rotation is started by hand.
        rotateImmediatelyOnUpdate: false,
      });
      // Secrets Manager tests the invoke permission when the schedule is created.
      schedule.node.addDependency(
        rotatorFn.permissionsNode.findChild(`SecretsManagerInvoke${name}`),
      );
      schedule.node.addDependency(this.rotator.role);
      this.rotationSchedules.push(schedule);
    }

    const ownKey = props.secrets.keys.sentinel!;
    const sentinelVars: EnvOf<typeof sentinelEnv> = {
      CLOUDOPS_KEY_SENTINEL_SECRET_IDS: keys.map((key) => key.secretArn).join(','),
      CLOUDOPS_KEY_SENTINEL_KEY_SECRET_ID: ownKey.secretArn,
    };
    this.sentinel = new CloudOpsFunction(this, 'Sentinel', {
      folder: 'rotate-key',
      file: 'sentinel',
      description: 'Audits every management key daily; tells new and resolved findings',
      memorySize: 128,
      timeout: Duration.seconds(30),
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      environment: {
        // Each key's record on the service holds the expiry it enforces.
        [ENV.apiUrl]: props.apiUrl,
        ...sentinelVars,
        CLOUDOPS_KEY_EXPIRY_WARN_DAYS: String(props.keyExpiryWarnDays),
      } satisfies EnvOf<typeof connectionEnv> & EnvOf<typeof sentinelEnv>,
    });
    // Every key secret's tags (DescribeSecret); the value of its own key alone.
    this.sentinel.fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['secretsmanager:DescribeSecret'],
        resources: keys.map((key) => key.secretArn),
      }),
    );
    ownKey.grantRead(this.sentinel.fn);
    // Findings go to the topic, where the alarms go: the notifiers its bundle carries.
    props.notifications.bind(this.sentinel.fn, { only: SENTINEL_NOTIFIERS.map((n) => n.name) });
    functionSchedule(this, 'SentinelSchedule', {
      fn: this.sentinel.fn,
      expression: props.sentinelSchedule,
      description: 'cloudops key sentinel (daily key audit)',
      deadLetterQueue: props.scheduleDeadLetterQueue,
    });
  }

  /** Where the sentinel keeps the open findings (the watch table the watchdog writes too). */
  keepFindingsIn(table: dynamodb.ITable): void {
    const fn = this.sentinel.fn;
    fn.addEnvironment(WATCH_TABLE_VARIABLE, table.tableName);
    table.grant(fn, 'dynamodb:GetItem', 'dynamodb:PutItem');
  }
}
