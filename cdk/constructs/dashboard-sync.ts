/**
 * Dashboards as code: the bucket receives the repo's dashboards/ at deploy (BucketDeployment);
 * object events under the prefix apply them, a schedule repairs (or reports) drift. The sync
 * function runs one at a time (reserved concurrency 1): overlapping runs would race on the
 * same dashboards.
 */
import * as path from 'node:path';
import { Duration, Stack, Token, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { EnvOf } from '../../lib/config';
import type { syncDashboardsEnvShape } from '../../lib/dashboards/config';
import type { watchdogEnv } from '../../lib/pipes/config';
import {
  grantCredentials,
  observabilityEnv,
  type ConnectionSettings,
  type FunctionCredentials,
} from './connection';
import { CloudOpsFunction, REPO_ROOT, type FunctionDefaults } from './function';
import type { Notifications } from './notifications';
import { functionSchedule } from './schedule';

export const DASHBOARDS_PREFIX = 'dashboards/';

export interface DashboardSyncProps extends FunctionDefaults {
  readonly connection: ConnectionSettings;
  /** The sync's own token (and, in managed mode, its own management key). */
  readonly credentials: FunctionCredentials & { observabilityToken: secretsmanager.ISecret };
  /** This deployment's dashboard owner (CLOUDOPS_DASHBOARDS_OWNER). */
  readonly owner: string;
  /** Serialize runs with reserved concurrency 1 (else overlapping runs may race). */
  readonly reserveConcurrency: boolean;
  readonly bus: events.IEventBus;
  readonly schedule: string;
  readonly scheduleMode: 'repair' | 'report';
  readonly prune: boolean;
  readonly scheduleDeadLetterQueue: sqs.IQueue;
}

export class DashboardSync extends Construct {
  readonly bucket: s3.Bucket;
  readonly sync: CloudOpsFunction;
  private readonly scheduleMode: 'repair' | 'report';
  private readonly bus: events.IEventBus;

  constructor(scope: Construct, id: string, props: DashboardSyncProps) {
    super(scope, id);
    this.scheduleMode = props.scheduleMode;
    this.bus = props.bus;
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Written only by the stack deployment from git; versioning keeps every revision and git is the audit trail of its content.',
    });

    this.sync = new CloudOpsFunction(this, 'Sync', {
      folder: 'sync-dashboards',
      description:
        'Applies dashboards from S3 to the observability API; repairs drift on a schedule',
      memorySize: 512,
      timeout: Duration.minutes(5),
      reservedConcurrentExecutions: props.reserveConcurrency ? 1 : undefined,
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      environment: {
        ...observabilityEnv(props.connection, props.credentials),
        ...({
          CLOUDOPS_DASHBOARDS_BUCKET: this.bucket.bucketName,
          CLOUDOPS_DASHBOARDS_PREFIX: DASHBOARDS_PREFIX,
          CLOUDOPS_DASHBOARDS_SCHEDULE_MODE: props.scheduleMode,
          CLOUDOPS_DASHBOARDS_PRUNE: String(props.prune),
          CLOUDOPS_DASHBOARDS_OWNER: props.owner,
          CLOUDOPS_EVENT_BUS_NAME: props.bus.eventBusName,
        } satisfies EnvOf<typeof syncDashboardsEnvShape>),
      },
    });
    const fn = this.sync.fn;
    // Read the prefix only: list it, get its objects.
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${DASHBOARDS_PREFIX}*`] } },
      }),
    );
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects(`${DASHBOARDS_PREFIX}*`)],
      }),
    );
    Validations.of(this.sync.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.bucketLogicalId()}.Arn>/${DASHBOARDS_PREFIX}*]`,
      reason: 'Reads every dashboard file under the dashboards/ prefix, and nothing else.',
    });
    // Open-source mode: the token only (the function never reads the management key there).
    grantCredentials(props.connection, props.credentials, fn);
    props.bus.grantPutEventsTo(fn);

    const destination = new s3n.LambdaDestination(fn);
    const filter = { prefix: DASHBOARDS_PREFIX };
    this.bucket.addEventNotification(s3.EventType.OBJECT_CREATED, destination, filter);
    this.bucket.addEventNotification(s3.EventType.OBJECT_REMOVED, destination, filter);

    // The deployment's upload fires the object events above, so a deploy is a sync.
    new s3deploy.BucketDeployment(this, 'Files', {
      sources: [s3deploy.Source.asset(path.join(REPO_ROOT, 'dashboards'), { exclude: ['*.md'] })],
      destinationBucket: this.bucket,
      destinationKeyPrefix: DASHBOARDS_PREFIX,
      prune: true,
      memoryLimit: 256,
    });

    this.acknowledgeDeploymentHandler();

    functionSchedule(this, 'DriftSchedule', {
      fn,
      expression: props.schedule,
      description: `cloudops dashboard drift ${props.scheduleMode}`,
      deadLetterQueue: props.scheduleDeadLetterQueue,
      // What lib/dashboards/trigger.ts recognizes as the schedule.
      input: { source: 'cloudops.scheduler', 'detail-type': 'Scheduled Event', detail: {} },
    });
  }

  /**
   * provision-alerts' version table: a scheduled run whose alerts are settled as declared
   * skips the alert list (a no-op costs one request); before the sync writes alerts itself it
   * claims their version there, and records them settled after (UpdateItem, as that function).
   */
  readAlertVersions(table: dynamodb.ITable): void {
    const env: EnvOf<typeof syncDashboardsEnvShape> = {
      CLOUDOPS_ALERTS_VERSION_TABLE: table.tableName,
    };
    for (const [name, value] of Object.entries(env)) this.sync.fn.addEnvironment(name, value);
    table.grant(this.sync.fn, 'dynamodb:GetItem', 'dynamodb:UpdateItem');
  }

  /**
   * Report mode: drift is told through the watchdog's notifiers (the topic, the bus, Slack and
   * the webhook when configured), its drift record kept in the watchdog's table. Repair mode
   * needs none of it, so gets none of it.
   */
  tellDrift(props: { table: dynamodb.ITable; notifications: Notifications }): void {
    if (this.scheduleMode !== 'report') return;
    const fn = this.sync.fn;
    const env: EnvOf<typeof watchdogEnv> = {
      CLOUDOPS_WATCHDOG_TABLE: props.table.tableName,
      CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: props.notifications.topic.topicArn,
      CLOUDOPS_WATCHDOG_EVENT_BUS: this.bus.eventBusName,
      ...props.notifications.destinationEnv(),
    };
    for (const [name, value] of Object.entries(env))
      if (value !== undefined) fn.addEnvironment(name, String(value));
    props.table.grant(fn, 'dynamodb:GetItem', 'dynamodb:PutItem');
    props.notifications.grantPublish(fn);
    props.notifications.grantReadDestinations(fn);
  }

  bucketLogicalId(): string {
    return Stack.of(this).getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket);
  }

  /** BucketDeployment's uploader is aws-cdk-lib's own function (a stack-level singleton). */
  private acknowledgeDeploymentHandler(): void {
    const stack = Stack.of(this);
    const handler = stack.node.children.find((c) =>
      c.node.id.startsWith('Custom::CDKBucketDeployment'),
    );
    if (!handler) return;
    const cdk =
      "aws-cdk-lib's BucketDeployment function (code, runtime and role are not configurable here)";
    const acks: Record<string, string> = {
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]': `${cdk} uses the basic execution managed policy for its logs.`,
      'AwsSolutions-L1': `${cdk} pins its own Python runtime with the AWS CLI layer.`,
      'Serverless-LambdaDLQ': `${cdk} runs as a synchronous CloudFormation custom resource: failures fail the deployment.`,
      'Serverless-LambdaLatestVersion': `${cdk} pins its own Python runtime with the AWS CLI layer.`,
      'Serverless-LambdaTracing': `${cdk} runs only during deployments.`,
    };
    const s3Reason = `${cdk} copies the dashboards asset from the CDK assets bucket into this bucket (prune deletes removed files).`;
    for (const action of [
      's3:GetObject*',
      's3:GetBucket*',
      's3:List*',
      's3:DeleteObject*',
      's3:Abort*',
    ]) {
      acks[`AwsSolutions-IAM5[Action::${action}]`] = s3Reason;
    }
    // The finding names the account and region literally when the stack has them.
    const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
    const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
    acks[
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-${account}-${region}/*]`
    ] = s3Reason;
    acks[`AwsSolutions-IAM5[Resource::<${this.bucketLogicalId()}.Arn>/*]`] = s3Reason;
    for (const [id, reason] of Object.entries(acks))
      Validations.of(handler).acknowledge({ id, reason });
  }
}
