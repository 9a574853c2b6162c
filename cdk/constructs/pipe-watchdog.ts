/**
 * The pipe watchdog: a schedule runs one pass; last-known pipe states live in DynamoDB;
 * notices go to the SNS topic, the cloudops bus (`Pipe State Changed`) and, when configured,
 * Slack and a webhook.
 */
import { Duration, RemovalPolicy, SecretValue } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { managementEnv, type ConnectionSettings } from './connection';
import { CloudOpsFunction } from './function';
import type { Notifications } from './notifications';
import { functionSchedule } from './schedule';

/** Epoch-seconds attribute DynamoDB expires items by. */
export const WATCHDOG_TTL_ATTRIBUTE = 'expiresAt';

export interface PipeWatchdogProps {
  readonly connection: ConnectionSettings;
  readonly notifications: Notifications;
  readonly bus: events.IEventBus;
  readonly schedule: string;
  readonly scheduleDeadLetterQueue: sqs.IQueue;
  /** Existing secret names holding `{ url }` / `{ url, signingSecret }`. */
  readonly slackWebhookSecretName?: string | undefined;
  readonly webhookSecretName?: string | undefined;
  readonly logRetention: logs.RetentionDays;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
}

export class PipeWatchdog extends Construct {
  readonly table: dynamodb.Table;
  readonly watchdog: CloudOpsFunction;

  constructor(scope: Construct, id: string, props: PipeWatchdogProps) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'State', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: WATCHDOG_TTL_ATTRIBUTE,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const env: Record<string, string> = {
      ...managementEnv(props.connection),
      CLOUDOPS_WATCHDOG_TABLE: this.table.tableName,
      CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: props.notifications.topic.topicArn,
      CLOUDOPS_WATCHDOG_EVENT_BUS: props.bus.eventBusName,
    };
    // The watchdog reads these URLs from env; CloudFormation resolves the secret at deploy
    // (a dynamic reference: the value is not in the template). Re-deploy after changing it.
    if (props.slackWebhookSecretName) {
      env.CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL = dynamicReference(
        props.slackWebhookSecretName,
        'url',
      );
    }
    if (props.webhookSecretName) {
      env.CLOUDOPS_WATCHDOG_WEBHOOK_URL = dynamicReference(props.webhookSecretName, 'url');
      env.CLOUDOPS_WATCHDOG_WEBHOOK_SIGNING_SECRET = dynamicReference(
        props.webhookSecretName,
        'signingSecret',
      );
    }

    this.watchdog = new CloudOpsFunction(this, 'Watchdog', {
      folder: 'pipe-watchdog',
      description: 'Checks every pipe, notifies state changes',
      memorySize: 256,
      timeout: Duration.minutes(2),
      // One pass at a time: two overlapping passes would notify twice.
      reservedConcurrentExecutions: 1,
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      environment: env,
    });
    const fn = this.watchdog.fn;
    this.table.grant(fn, 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query');
    props.connection.managementKey.grantRead(fn);
    props.notifications.grantPublish(fn);
    props.bus.grantPutEventsTo(fn);

    functionSchedule(this, 'Schedule', {
      fn,
      expression: props.schedule,
      description: 'cloudops pipe watchdog pass',
      deadLetterQueue: props.scheduleDeadLetterQueue,
    });
  }
}

function dynamicReference(secretName: string, field: string): string {
  return SecretValue.secretsManager(secretName, { jsonField: field }).unsafeUnwrap();
}
