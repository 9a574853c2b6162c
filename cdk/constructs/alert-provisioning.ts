/**
 * Alert provisioning: EventBridge rules on the cloudops bus (`Dashboard Synced` from the sync,
 * `Alert Provision Requested` from the configured request sources) fill an SQS queue that provision-alerts drains in
 * batches, failing records one by one (partial batch response); a record failing 5 times goes
 * to the queue's dead-letter queue. A DynamoDB table keeps the newest event version per alert
 * owner, so a delayed older event is refused even when every newer one changed nothing.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventsTargets from 'aws-cdk-lib/aws-events-targets';
import * as lambdaEvents from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { VERSION_TABLE_KEY } from '../../lib/alerts/versions';
import type { EnvOf } from '../../lib/config';
import {
  ALERT_PROVISION_REQUESTED,
  DASHBOARD_SYNCED,
  EVENT_SOURCE,
} from '../../lib/events/schemas';
import type { eventTrustEnv } from '../../lib/events/trust';
import type { provisionAlertsEnv } from '../../lib/alerts/config';
import {
  grantCredentials,
  observabilityEnv,
  type ConnectionSettings,
  type FunctionCredentials,
} from './connection';
import { CloudOpsFunction, type FunctionDefaults } from './function';
import { deadLetterQueue } from './queues';

/**
 * Sized to the key's budget: one SQS batch (10 events) of ~20 new alerts each is ~200 requests,
 * 200 s at 10 requests per 10 s. A bigger batch is cut by the deadline and its unfinished
 * records are handed back for redelivery (bench: alerts_batch_requests_10x20).
 */
export const ALERTS_FUNCTION_TIMEOUT = Duration.minutes(5);
const MAX_RECEIVE_COUNT = 5;

interface AlertProvisioningProps extends FunctionDefaults {
  readonly connection: ConnectionSettings;
  /** The function's own token (and, in managed mode, its own management key). */
  readonly credentials: FunctionCredentials & { observabilityToken: secretsmanager.ISecret };
  readonly bus: events.IEventBus;
  /**
   * Sources whose `Alert Provision Requested` events are provisioned; none: no request rule,
   * and the function refuses requests too.
   */
  readonly requestSources: readonly string[];
  /** Where events a rule could not deliver to the queue end up. */
  readonly eventsDeadLetterQueue: sqs.IQueue;
}

export class AlertProvisioning extends Construct {
  readonly queue: sqs.Queue;
  readonly queueDeadLetterQueue: sqs.Queue;
  readonly provision: CloudOpsFunction;
  /** Newest event version per alert owner (CLOUDOPS_ALERTS_VERSION_TABLE). */
  readonly versionTable: dynamodb.Table;

  constructor(scope: Construct, id: string, props: AlertProvisioningProps) {
    super(scope, id);
    this.queueDeadLetterQueue = deadLetterQueue(this, 'QueueDeadLetterQueue', 'the alert queue');
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // AWS's advice for Lambda consumers: at least 6x the function timeout, so a message
      // being retried inside a batch is not handed out twice.
      visibilityTimeout: Duration.seconds(ALERTS_FUNCTION_TIMEOUT.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.queueDeadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
    });

    const target = new eventsTargets.SqsQueue(this.queue, {
      deadLetterQueue: props.eventsDeadLetterQueue,
      retryAttempts: 8,
      maxEventAge: Duration.hours(24),
    });
    new events.Rule(this, 'DashboardSyncedRule', {
      eventBus: props.bus,
      description: 'Dashboards synced by cloudops: provision their declared alerts',
      eventPattern: { source: [EVENT_SOURCE], detailType: [DASHBOARD_SYNCED] },
      targets: [target],
    });
    if (props.requestSources.length > 0) {
      new events.Rule(this, 'AlertRequestedRule', {
        eventBus: props.bus,
        description: 'Alert provisioning requests from the configured request sources',
        eventPattern: {
          source: [...props.requestSources],
          detailType: [ALERT_PROVISION_REQUESTED],
        },
        targets: [target],
      });
    }

    this.versionTable = new dynamodb.Table(this, 'Versions', {
      partitionKey: { name: VERSION_TABLE_KEY, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      // Losing it would let delayed older events through again: keep it past a stack delete.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.provision = new CloudOpsFunction(this, 'Provision', {
      folder: 'provision-alerts',
      description: 'Creates, updates and removes alerts from queued events',
      memorySize: 256,
      timeout: ALERTS_FUNCTION_TIMEOUT,
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      environment: {
        // Open-source mode: only the token secret is named (and readable).
        ...observabilityEnv(props.connection, props.credentials),
        ...({
          CLOUDOPS_ALERTS_VERSION_TABLE: this.versionTable.tableName,
        } satisfies EnvOf<typeof provisionAlertsEnv>),
        ...({
          CLOUDOPS_ALERT_REQUEST_SOURCES: props.requestSources.join(',') || undefined,
        } satisfies EnvOf<typeof eventTrustEnv>),
      },
    });
    const fn = this.provision.fn;
    // What versions-dynamo.ts calls: a consistent GetItem and a conditional UpdateItem.
    this.versionTable.grant(fn, 'dynamodb:GetItem', 'dynamodb:UpdateItem');
    grantCredentials(props.connection, props.credentials, fn);
    const source = new lambdaEvents.SqsEventSource(this.queue, {
      batchSize: 10,
      maxBatchingWindow: Duration.seconds(5),
      reportBatchItemFailures: true,
      // The API is rate limited per key: a few pollers are plenty.
      maxConcurrency: 2,
    });
    fn.addEventSource(source);
    Validations.of(this.provision).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        'SQS event source mappings do not support on-failure destinations; failed records go to the queue redrive dead-letter queue after 5 receives.',
    });
  }
}
