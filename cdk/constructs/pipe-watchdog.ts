/**
 * The pipe watchdog: a schedule enqueues the services (SQS only), a consumer checks each batch;
 * last-known pipe states live in DynamoDB (the watch table); the consumer's notices go to every
 * configured destination of Notifications (the SNS topic, the cloudops bus as `Pipe State
 * Changed` and, when configured, Slack and a webhook whose secrets are read from Secrets
 * Manager at run time).
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as lambdaEvents from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { EnvOf } from '../../lib/config';
import type { watchdogEnv } from '../../lib/pipes/config';
import { WATCHDOG_ENV, type watchdogQueueEnv } from '../../lib/pipes/queue-config';
import { WATCH_TABLE_VARIABLE } from '../../lib/watch/table-setting';
import { EMITTED_DETAIL_TYPES } from '../../lib/events/trust';
import { managementEnv, servicesEnv, type ConnectionSettings } from './connection';
import { CloudOpsFunction, type FunctionDefaults } from './function';
import type { Notifications } from './notifications';
import { deadLetterQueue } from './queues';
import { functionSchedule } from './schedule';

/** Epoch-seconds attribute DynamoDB expires items by. */
const WATCHDOG_TTL_ATTRIBUTE = 'expiresAt';

interface PipeWatchdogProps extends FunctionDefaults {
  readonly connection: ConnectionSettings;
  /** The watchdog's own management key: its limiter owns the key's whole budget. */
  readonly managementKey: secretsmanager.ISecret;
  /** One pass at a time through reserved concurrency 1 (two overlapping passes would notify twice). */
  readonly reserveConcurrency: boolean;
  readonly notifications: Notifications;
  readonly schedule: string;
  readonly scheduleDeadLetterQueue: sqs.IQueue;
  /** The deployer's tunables (CLOUDOPS_WATCHDOG_*, cdk/config.ts WATCHDOG_CONTEXT_KEYS). */
  readonly tuning: Readonly<Record<string, string>>;
}

/** The consumer's timeout; SQS hides a received message 6x as long (AWS's advice). */
const WATCHDOG_CONSUMER_TIMEOUT = Duration.minutes(5);

export class PipeWatchdog extends Construct {
  readonly table: dynamodb.Table;
  /** The scheduled run: enqueues the services in batches of one rate-limit window (SQS only). */
  readonly watchdog: CloudOpsFunction;
  /** Fan-out: batches of services, each checked by the consumer. */
  readonly queue: sqs.Queue;
  readonly queueDeadLetterQueue: sqs.Queue;
  /** Lists each batch's services and notifies per service, bounded by its remaining time. */
  readonly consumer: CloudOpsFunction;

  constructor(scope: Construct, id: string, props: PipeWatchdogProps) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'State', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: WATCHDOG_TTL_ATTRIBUTE,
      // KMS encryption with the AWS managed key (named in the template, not left implicit).
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.queueDeadLetterQueue = deadLetterQueue(this, 'QueueDeadLetterQueue', 'the watchdog queue');
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(WATCHDOG_CONSUMER_TIMEOUT.toSeconds() * 6),
      // A batch older than an hour is stale: the next scheduled run has enqueued it again.
      retentionPeriod: Duration.hours(1),
      deadLetterQueue: { queue: this.queueDeadLetterQueue, maxReceiveCount: 5 },
    });

    // It only enqueues: the services and the queue, no key, no table, no notifier settings.
    const tunedBatch = props.tuning[WATCHDOG_ENV.servicesPerMessage];
    const enqueueEnv: EnvOf<typeof watchdogQueueEnv> = {
      [WATCHDOG_ENV.queueUrl]: this.queue.queueUrl,
      ...(tunedBatch ? { [WATCHDOG_ENV.servicesPerMessage]: tunedBatch } : {}),
    };
    this.watchdog = new CloudOpsFunction(this, 'Watchdog', {
      folder: 'pipe-watchdog',
      description: 'Enqueues the services for the pipe watchdog consumer',
      memorySize: 256,
      timeout: Duration.minutes(2),
      reservedConcurrentExecutions: props.reserveConcurrency ? 1 : undefined,
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      environment: { ...servicesEnv(props.connection), ...enqueueEnv },
    });
    const fn = this.watchdog.fn;
    this.queue.grantSendMessages(fn);

    const consumerEnv: EnvOf<typeof watchdogEnv> = {
      ...props.tuning,
      [WATCHDOG_ENV.queueUrl]: this.queue.queueUrl,
      [WATCH_TABLE_VARIABLE]: this.table.tableName,
    };
    this.consumer = new CloudOpsFunction(this, 'Consumer', {
      folder: 'pipe-watchdog',
      file: 'consumer',
      description: 'Checks the pipes of a batch of services, notifies state changes',
      memorySize: 256,
      timeout: WATCHDOG_CONSUMER_TIMEOUT,
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      environment: { ...managementEnv(props.connection, props.managementKey), ...consumerEnv },
      // Its bundle carries only the notifiers bound to it below.
      bundleDefines: props.notifications.bundleDefines(),
    });
    const consumer = this.consumer.fn;
    this.table.grant(consumer, 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query');
    props.managementKey.grantRead(consumer);
    props.notifications.bind(consumer, { detailTypes: EMITTED_DETAIL_TYPES.watchdog });
    // What it did not reach before its deadline goes back to the queue.
    this.queue.grantSendMessages(consumer);
    consumer.addEventSource(
      new lambdaEvents.SqsEventSource(this.queue, {
        // One batch of services per invocation: its deadline bounds one message.
        batchSize: 1,
        reportBatchItemFailures: true,
        // The fewest SQS allows: the pollers share the watchdog key's rate limit.
        maxConcurrency: 2,
      }),
    );
    Validations.of(this.consumer).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        'SQS event source mappings do not support on-failure destinations; failed records go to the queue redrive dead-letter queue after 5 receives.',
    });

    functionSchedule(this, 'Schedule', {
      fn,
      expression: props.schedule,
      description: 'cloudops pipe watchdog pass',
      deadLetterQueue: props.scheduleDeadLetterQueue,
    });
  }
}
