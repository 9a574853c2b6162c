/**
 * The pipe watchdog: a schedule runs one pass; last-known pipe states live in DynamoDB;
 * notices go to the SNS topic, the cloudops bus (`Pipe State Changed`) and, when configured,
 * Slack and a webhook (their URLs and signing secret read from Secrets Manager at run time).
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { EnvOf } from '../../lib/config';
import type { watchdogEnv } from '../../lib/pipes/config';
import { managementEnv, type ConnectionSettings } from './connection';
import { CloudOpsFunction, type FunctionDefaults } from './function';
import type { Notifications } from './notifications';
import { functionSchedule } from './schedule';

/** Epoch-seconds attribute DynamoDB expires items by. */
export const WATCHDOG_TTL_ATTRIBUTE = 'expiresAt';

export interface PipeWatchdogProps extends FunctionDefaults {
  readonly connection: ConnectionSettings;
  /** The watchdog's own management key: its limiter owns the key's whole budget. */
  readonly managementKey: secretsmanager.ISecret;
  /** One pass at a time through reserved concurrency 1 (two overlapping passes would notify twice). */
  readonly reserveConcurrency: boolean;
  readonly notifications: Notifications;
  readonly bus: events.IEventBus;
  readonly schedule: string;
  readonly scheduleDeadLetterQueue: sqs.IQueue;
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

    const env: EnvOf<typeof watchdogEnv> = {
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
      reservedConcurrentExecutions: props.reserveConcurrency ? 1 : undefined,
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      environment: { ...managementEnv(props.connection, props.managementKey), ...env },
    });
    const fn = this.watchdog.fn;
    this.table.grant(fn, 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query');
    props.managementKey.grantRead(fn);
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
