/** EventBridge Scheduler schedules invoking a function, with retries and a dead-letter queue. */
import { Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

interface FunctionScheduleProps {
  readonly fn: lambda.IFunction;
  /** rate(...) or cron(...) */
  readonly expression: string;
  readonly description: string;
  readonly deadLetterQueue: sqs.IQueue;
  /** @default an empty object */
  readonly input?: Record<string, unknown>;
}

export function functionSchedule(
  scope: Construct,
  id: string,
  props: FunctionScheduleProps,
): scheduler.Schedule {
  // Our own role: the target's default grant also allows every version (`<arn>:*`).
  const role = new iam.Role(scope, `${id}Role`, {
    assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
    description: `Invokes ${props.description}`,
  });
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['lambda:InvokeFunction'],
      resources: [props.fn.functionArn],
    }),
  );
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['sqs:SendMessage'],
      resources: [props.deadLetterQueue.queueArn],
    }),
  );
  return new scheduler.Schedule(scope, id, {
    schedule: scheduler.ScheduleExpression.expression(props.expression),
    description: props.description,
    target: new targets.LambdaInvoke(props.fn, {
      // The grants above are all it gets (the target's own grants become no-ops).
      role: role.withoutPolicyUpdates(),
      // `id`: the run's execution id, which functions/runtime.ts puts on every log line.
      input: scheduler.ScheduleTargetInput.fromObject({
        ...props.input,
        id: scheduler.ContextAttribute.executionId,
      }),
      deadLetterQueue: props.deadLetterQueue,
      retryAttempts: 3,
      // A late run is worth little: the next one comes soon.
      maxEventAge: Duration.hours(1),
    }),
  });
}
