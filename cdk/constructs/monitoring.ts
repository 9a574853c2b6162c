/**
 * Alarms, all to the notifications topic: every function's errors and throttles, every
 * dead-letter queue's depth, rotation failure, and the watchdog failing itself (API errors run
 * after run, or no run at all).
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../../lib/pipes/metrics';
import type { CloudOpsFunction } from './function';

export interface MonitoringProps {
  readonly topic: sns.ITopic;
  /** Errors and throttles alarms for each (the rotator's errors alarm is the rotation one). */
  readonly functions: Record<string, CloudOpsFunction>;
  readonly rotator: CloudOpsFunction;
  readonly watchdog: CloudOpsFunction;
  /** Minutes between watchdog runs (rate schedules); no heartbeat alarm for cron. */
  readonly watchdogEveryMinutes?: number | undefined;
  readonly deadLetterQueues: Record<string, sqs.IQueue>;
}

const FIVE_MINUTES = Duration.minutes(5);

/** `rate(5 minutes)` -> 5; cron -> undefined. */
export function rateMinutes(expression: string): number | undefined {
  const match = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (!match) return undefined;
  const unit = match[2].startsWith('minute') ? 1 : match[2].startsWith('hour') ? 60 : 1440;
  return Number(match[1]) * unit;
}

export class Monitoring extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const action = new actions.SnsAction(props.topic);
    const add = (alarmId: string, alarmProps: cloudwatch.AlarmProps) => {
      const alarm = new cloudwatch.Alarm(this, alarmId, alarmProps);
      alarm.addAlarmAction(action);
      this.alarms.push(alarm);
      return alarm;
    };

    for (const [name, f] of Object.entries(props.functions)) {
      if (f !== props.rotator) {
        add(`${name}Errors`, {
          alarmDescription: `cloudops ${name}: the function failed`,
          metric: f.fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        });
      }
      // Sustained only: a deploy's burst of S3 events briefly throttles the serialized sync.
      add(`${name}Throttles`, {
        alarmDescription: `cloudops ${name}: invocations throttled for 15 minutes`,
        metric: f.fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 1,
        evaluationPeriods: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }

    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      add(`${name}Depth`, {
        alarmDescription: `cloudops: messages waiting in the ${name} dead-letter queue`,
        metric: queue.metricApproximateNumberOfMessagesVisible({
          period: FIVE_MINUTES,
          statistic: 'Maximum',
        }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }

    add('RotationFailed', {
      alarmDescription:
        'cloudops: a management key rotation step failed (the secret keeps its current key; see the rotate-key logs)',
      metric: props.rotator.fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    // The watchdog's own EMF metric (lib/pipes/metrics.ts): API errors in 3 periods running.
    add('WatchdogApiFailing', {
      alarmDescription: 'cloudops pipe-watchdog: the API has failed it for 15 minutes',
      metric: new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'ApiErrors',
        dimensionsMap: { function: 'pipe-watchdog' },
        period: FIVE_MINUTES,
        statistic: 'Sum',
      }),
      threshold: 1,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    if (props.watchdogEveryMinutes !== undefined) {
      // No run in three intervals: schedule disabled, deleted or never firing.
      const minutes = Math.max(5, props.watchdogEveryMinutes);
      add('WatchdogNotRunning', {
        alarmDescription: 'cloudops pipe-watchdog: no run in three schedule intervals',
        metric: props.watchdog.fn.metricInvocations({
          period: Duration.minutes(Math.min(minutes * 3, 1440)),
          statistic: 'Sum',
        }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      });
    }
  }
}
