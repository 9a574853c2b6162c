/**
 * The pipe watchdog: a schedule runs one pass; last-known pipe states live in DynamoDB;
 * notices go to the SNS topic, the cloudops bus (`Pipe State Changed`) and, when configured,
 * Slack and a webhook (their URLs and signing secret read from Secrets Manager at run time).
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
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
      // Slack / webhook URLs and the signing secret are read from Secrets Manager at run time
      // (cached, re-read when a receiver rejects them): only the secret names are in env.
      ...props.notifications.destinationEnv(),
    };

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
    props.notifications.grantReadDestinations(fn);
    props.bus.grantPutEventsTo(fn);

    functionSchedule(this, 'Schedule', {
      fn,
      expression: props.schedule,
      description: 'cloudops pipe watchdog pass',
      deadLetterQueue: props.scheduleDeadLetterQueue,
    });
  }
}
