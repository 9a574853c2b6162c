/**
 * Dashboards as code: the sync reads dashboard files under one prefix of the stack's bucket,
 * filled either by the deployer's own upload (CI `aws s3 sync`) or, when a folder is named, by
 * the deployment itself (BucketDeployment); never the repo's sample dashboards unless named.
 * Object events under the prefix apply them, a schedule repairs (or reports) drift. The sync
 * function runs one at a time (reserved concurrency 1): overlapping runs would race on the
 * same dashboards. It keeps a manifest beside the files (outside the prefix) so a run reads only
 * what changed, and a run that reaches its deadline asks for its next round through the bus.
 */
import * as path from 'node:path';
import { Duration, Stack, Token, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventsTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { EnvOf } from '../../lib/config';
import type { syncDashboardsEnvShape } from '../../lib/dashboards/config';
import { WATCH_TABLE_VARIABLE } from '../../lib/watch/table-setting';
import { EMITTED_DETAIL_TYPES } from '../../lib/events/trust';
import { DASHBOARD_SYNC_CONTINUED, EVENT_SOURCE } from '../../lib/events/schemas';
import {
  grantCredentials,
  observabilityEnv,
  type ConnectionSettings,
  type FunctionCredentials,
} from './connection';
import { grantPutOwnEvents } from './events';
import { CloudOpsFunction, type FunctionDefaults } from './function';
import type { Notifications } from './notifications';
import { functionSchedule } from './schedule';

/** How long a replaced or deleted dashboard file's old revision is kept. */
const NONCURRENT_VERSION_DAYS = 90;

/** The sync's timeout; a run stops writing before it (functions/runtime.ts deadlineFrom). */
export const SYNC_FUNCTION_TIMEOUT = Duration.minutes(5);
/** The sync's MemorySize (the bench runs its heap at this size). */
export const SYNC_FUNCTION_MEMORY_MB = 512;

/**
 * What the sync's process is started with besides its settings. glibc gives each thread that
 * mallocs (V8's compiler and GC helpers among them) its own arena, and the freed memory of
 * thousands of file reads stays resident in them: a run reading 10,000 files peaked about 36 MB
 * higher than with two arenas (bench/figures/sync-scale.ts), for the same CPU.
 */
export const SYNC_PROCESS_ENV = { MALLOC_ARENA_MAX: '2' } as const;

/**
 * Where the sync keeps its manifest: a dot-folder is never a dashboard file, and outside the
 * usual prefix neither the upload's prune nor the object events touch it.
 */
export const MANIFEST_KEY = '.cloudops/dashboards-manifest.json';

/** The sync's entry (functions/sync-dashboards/<file>.ts) per schedule mode. */
const SYNC_ENTRY_FILES = { repair: 'handler', report: 'report-handler' } as const;

interface DashboardSyncProps extends FunctionDefaults {
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
  /** Where in the bucket the dashboard files are (ends in `/`). */
  readonly prefix: string;
  /** A local folder uploaded to `prefix` at every deploy; unset: the deployer uploads. */
  readonly folder?: string | undefined;
  /** CLOUDOPS_VAR_* env: the `${NAME}` values of the files. */
  readonly varsEnv: Record<string, string>;
  /** The secrets (names or ARNs) webhook files reference: read access to these, and only these. */
  readonly webhookSecrets: readonly string[];
  /** Where continuation events the rule could not deliver end up. */
  readonly eventsDeadLetterQueue: sqs.IQueue;
  /**
   * Where report mode tells drift (bound in tellDrift); known here because the bundle, made
   * with the function, carries only the notifiers bound to it.
   */
  readonly notifications: Notifications;
}

export class DashboardSync extends Construct {
  readonly bucket: s3.Bucket;
  readonly sync: CloudOpsFunction;
  /** The upload of the named folder, when one is named. */
  readonly deployment?: s3deploy.BucketDeployment;
  private readonly scheduleMode: 'repair' | 'report';
  private readonly notifications: Notifications;

  constructor(scope: Construct, id: string, props: DashboardSyncProps) {
    super(scope, id);
    this.scheduleMode = props.scheduleMode;
    this.notifications = props.notifications;
    this.bucket = new s3.Bucket(this, 'Bucket', {
      // SSE-KMS with the AWS managed key: no key policy to keep, readable by whoever may read the bucket.
      encryption: s3.BucketEncryption.KMS_MANAGED,
      enforceSSL: true,
      versioned: true,
      // Old revisions are for undoing a bad upload, not an archive (git is the history).
      lifecycleRules: [
        {
          id: 'expire-old-revisions',
          noncurrentVersionExpiration: Duration.days(NONCURRENT_VERSION_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
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
      // Only report mode tells drift: the repair bundle carries no watch engine or notifier.
      file: SYNC_ENTRY_FILES[props.scheduleMode],
      // Report mode: only the notifiers tellDrift binds (the same options as its bind).
      bundleDefines:
        props.scheduleMode === 'report' ? props.notifications.bundleDefines() : undefined,
      description:
        'Applies dashboards from S3 to the observability API; repairs drift on a schedule',
      memorySize: SYNC_FUNCTION_MEMORY_MB,
      timeout: SYNC_FUNCTION_TIMEOUT,
      reservedConcurrentExecutions: props.reserveConcurrency ? 1 : undefined,
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      environment: {
        ...observabilityEnv(props.connection, props.credentials),
        ...({
          CLOUDOPS_DASHBOARDS_BUCKET: this.bucket.bucketName,
          CLOUDOPS_DASHBOARDS_PREFIX: props.prefix,
          CLOUDOPS_DASHBOARDS_SCHEDULE_MODE: props.scheduleMode,
          CLOUDOPS_DASHBOARDS_PRUNE: String(props.prune),
          CLOUDOPS_DASHBOARDS_OWNER: props.owner,
          CLOUDOPS_EVENT_BUS_NAME: props.bus.eventBusName,
          CLOUDOPS_DASHBOARDS_MANIFEST_KEY: MANIFEST_KEY,
          // What readWebhookSecrets grants: a reference to any other secret is refused.
          CLOUDOPS_DASHBOARDS_WEBHOOK_SECRETS: props.webhookSecrets.join(','),
        } satisfies EnvOf<typeof syncDashboardsEnvShape>),
        ...props.varsEnv,
        ...SYNC_PROCESS_ENV,
      },
    });
    const fn = this.sync.fn;
    // Read the prefix only: list it, get its objects. Listing the manifest's key too makes a
    // missing manifest answer 404 (not 403).
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${props.prefix}*`, MANIFEST_KEY] } },
      }),
    );
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects(`${props.prefix}*`)],
      }),
    );
    // The manifest: one object, read and replaced (never a dashboard file).
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [this.bucket.arnForObjects(MANIFEST_KEY)],
      }),
    );
    Validations.of(this.sync.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.bucketLogicalId()}.Arn>/${props.prefix}*]`,
      reason: 'Reads every dashboard file under the dashboards prefix, and nothing else.',
    });
    // Open-source mode: the token only (the function never reads the management key there).
    grantCredentials(props.connection, props.credentials, fn);
    this.readWebhookSecrets(props.webhookSecrets);
    grantPutOwnEvents(props.bus, fn, EMITTED_DETAIL_TYPES.sync);
    this.continueOnTheBus(props.bus, props.eventsDeadLetterQueue);

    const destination = new s3n.LambdaDestination(fn);
    const filter = { prefix: props.prefix };
    this.bucket.addEventNotification(s3.EventType.OBJECT_CREATED, destination, filter);
    this.bucket.addEventNotification(s3.EventType.OBJECT_REMOVED, destination, filter);

    if (props.folder !== undefined) {
      // The deployment's upload fires the object events above, so a deploy is a sync.
      this.deployment = new s3deploy.BucketDeployment(this, 'Files', {
        sources: [s3deploy.Source.asset(path.resolve(props.folder), { exclude: ['*.md'] })],
        destinationBucket: this.bucket,
        destinationKeyPrefix: props.prefix,
        prune: true,
        memoryLimit: 256,
      });
      this.acknowledgeDeploymentHandler();
    }

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
   * Webhook files' `{ secret: <id> }` values: the sync reads exactly the secrets the deployment
   * names (by name: any of its versions' ARN suffixes; by ARN: that secret); any other
   * reference fails the run before its first write, naming the file, the field and the id.
   */
  private readWebhookSecrets(refs: readonly string[]): void {
    refs.forEach((ref, i) => {
      const id = `WebhookSecret${i}`;
      const secret = ref.startsWith('arn:')
        ? secretsmanager.Secret.fromSecretCompleteArn(this, id, ref)
        : secretsmanager.Secret.fromSecretNameV2(this, id, ref);
      secret.grantRead(this.sync.fn);
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
   * Report mode: drift is told through lib/watch (every configured destination of the
   * Notifications given at construction), its drift record kept in the watch table. Repair mode
   * needs none of it, so gets none of it.
   */
  tellDrift(props: { table: dynamodb.ITable }): void {
    if (this.scheduleMode !== 'report') return;
    const fn = this.sync.fn;
    fn.addEnvironment(WATCH_TABLE_VARIABLE, props.table.tableName);
    props.table.grant(fn, 'dynamodb:GetItem', 'dynamodb:PutItem');
    this.notifications.bind(fn, { detailTypes: EMITTED_DETAIL_TYPES.syncReport });
  }

  /**
   * A run stopped at its deadline puts `Dashboard Sync Continued` (only the sync's role may put
   * it under `cloudops`); this rule invokes the sync with it, so the next round starts at once.
   */
  private continueOnTheBus(bus: events.IEventBus, deadLetterQueue: sqs.IQueue): void {
    new events.Rule(this, 'ContinueRule', {
      eventBus: bus,
      description: 'A dashboard sync that stopped at its deadline: run its next round',
      eventPattern: { source: [EVENT_SOURCE], detailType: [DASHBOARD_SYNC_CONTINUED] },
      targets: [
        new eventsTargets.LambdaFunction(this.sync.fn, {
          deadLetterQueue,
          retryAttempts: 4,
          // Past this the next scheduled run goes on from the manifest anyway.
          maxEventAge: Duration.hours(1),
        }),
      ],
    });
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
