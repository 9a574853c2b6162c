/**
 * Alarms, all to the notifications topic both ways (ALARM and back to OK): every function's
 * errors and throttles, every dead-letter queue's depth, the age of the oldest waiting work
 * message, rotation failure, and the watchdog failing itself (API errors run after run, or no
 * run at all). Plus one CloudWatch dashboard of the automation itself: rotations, drift,
 * notifications, 429s and errors.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../../lib/pipes/metrics';
import type { CloudOpsFunction } from './function';

interface MonitoringProps {
  readonly topic: sns.ITopic;
  /** Errors and throttles alarms for each (the rotator's errors alarm is the rotation one). */
  readonly functions: Record<string, CloudOpsFunction>;
  readonly rotator: CloudOpsFunction;
  readonly sync: CloudOpsFunction;
  readonly watchdog: CloudOpsFunction;
  /** Minutes between watchdog runs (rate schedules); no heartbeat alarm for cron. */
  readonly watchdogEveryMinutes?: number | undefined;
  readonly deadLetterQueues: Record<string, sqs.IQueue>;
  /** Work queues whose oldest message must not wait long (a stuck or failing consumer). */
  readonly workQueues: Record<string, sqs.IQueue>;
}

const FIVE_MINUTES = Duration.minutes(5);
/** A work message older than this has outlived several receive cycles: its consumer is stuck. */
const OLDEST_MESSAGE_ALARM_SECONDS = 30 * 60;

/**
 * Log lines counted as metrics (metric filters on the functions' JSON logs): the messages
 * lib writes, so the dashboard needs no code in the functions.
 */
const LOG_METRICS = {
  /** lib/api/http.ts: a retry after a 429. */
  rateLimited: { message: 'api retry', reason: 429 },
  /** lib/keys/rotation.ts: finishSecret moved AWSCURRENT. */
  keyRotated: { message: 'AWSCURRENT moved to the new version' },
  /** lib/dashboards/entry.ts: a plan with changes (drift, or files changed). */
  dashboardPlanPending: { message: 'dashboard plan' },
} as const;

export class Monitoring extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const action = new actions.SnsAction(props.topic);
    const add = (alarmId: string, alarmProps: cloudwatch.AlarmProps) => {
      const alarm = new cloudwatch.Alarm(this, alarmId, alarmProps);
      alarm.addAlarmAction(action);
      // People hear when it is over, too.
      alarm.addOkAction(action);
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

    for (const [name, queue] of Object.entries(props.workQueues)) {
      add(`${name}OldestMessage`, {
        alarmDescription: `cloudops: the oldest message in the ${name} queue has waited over ${OLDEST_MESSAGE_ALARM_SECONDS / 60} minutes (consumer stuck or failing)`,
        metric: queue.metricApproximateAgeOfOldestMessage({
          period: FIVE_MINUTES,
          statistic: 'Maximum',
        }),
        threshold: OLDEST_MESSAGE_ALARM_SECONDS,
        evaluationPeriods: 2,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
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
      metric: watchdogMetric('ApiErrors'),
      threshold: 1,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    if (props.watchdogEveryMinutes !== undefined) {
      // No run in three intervals: schedule disabled, deleted or never firing. No data at all
      // is exactly that case, so missing data breaches.
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

    this.dashboard = this.automationDashboard(props);
  }

  /** The automation at a glance; its name is generated (unique per stack). */
  private automationDashboard(props: MonitoringProps): cloudwatch.Dashboard {
    // Per stack: two deployments in one account count their own lines.
    const namespace = `${METRICS_NAMESPACE}/${Stack.of(this).stackName}`;
    const countFrom = (
      id: string,
      f: CloudOpsFunction,
      metricName: string,
      pattern: logs.IFilterPattern,
    ) => {
      new logs.MetricFilter(this, id, {
        logGroup: f.logGroup,
        filterPattern: pattern,
        metricNamespace: namespace,
        metricName,
        metricValue: '1',
        defaultValue: 0,
      });
      return new cloudwatch.Metric({
        namespace,
        metricName,
        period: FIVE_MINUTES,
        statistic: 'Sum',
        label: metricName,
      });
    };
    const rotations = countFrom(
      'KeysRotatedFilter',
      props.rotator,
      'KeysRotated',
      logs.FilterPattern.stringValue('$.message', '=', LOG_METRICS.keyRotated.message),
    );
    const plansPending = countFrom(
      'DashboardPlansPendingFilter',
      props.sync,
      'DashboardPlansPending',
      logs.FilterPattern.all(
        logs.FilterPattern.stringValue('$.message', '=', LOG_METRICS.dashboardPlanPending.message),
        logs.FilterPattern.booleanValue('$.pending', true),
      ),
    );
    const rateLimited = Object.entries(props.functions).map(([name, f]) =>
      countFrom(
        `${name}RateLimitedFilter`,
        f,
        `${name}RateLimited`,
        logs.FilterPattern.all(
          logs.FilterPattern.stringValue('$.message', '=', LOG_METRICS.rateLimited.message),
          logs.FilterPattern.numberValue('$.reason', '=', LOG_METRICS.rateLimited.reason),
        ),
      ),
    );

    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.days(7),
    });
    const fns = Object.entries(props.functions);
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Key rotations (keys rotated, rotation errors)',
        left: [
          rotations,
          props.rotator.fn.metricErrors({ period: FIVE_MINUTES, label: 'rotation errors' }),
        ],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Dashboard drift (sync plans with changes)',
        left: [plansPending],
        right: [props.sync.fn.metricInvocations({ period: FIVE_MINUTES, label: 'sync runs' })],
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Watchdog notifications',
        left: [
          watchdogMetric('Notifications').with({ label: 'Notifications' }),
          watchdogMetric('NotifyErrors').with({ label: 'NotifyErrors' }),
          watchdogMetric('Transitions').with({ label: 'Transitions' }),
        ],
        right: [watchdogMetric('PipesChecked').with({ label: 'PipesChecked' })],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: '429s (API retries after a rate limit), per function',
        left: rateLimited,
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Errors per function',
        left: fns.map(([name, f]) =>
          f.fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum', label: name }),
        ),
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Dead-letter queues (visible messages)',
        left: Object.entries(props.deadLetterQueues).map(([name, q]) =>
          q.metricApproximateNumberOfMessagesVisible({
            period: FIVE_MINUTES,
            statistic: 'Maximum',
            label: name,
          }),
        ),
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({
        title: 'Alarms',
        alarms: this.alarms,
        width: 24,
      }),
    );
    return dashboard;
  }
}

function watchdogMetric(metricName: string): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { function: 'pipe-watchdog' },
    period: FIVE_MINUTES,
    statistic: 'Sum',
  });
}
