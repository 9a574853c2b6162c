/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- synthesized CloudFormation JSON is untyped */
/**
 * The CloudOps stack, synthesized once without bundling (the real bundles are built by the
 * `cdk synth` step in .ci/run and by bench/bundle-size.ts) and checked resource by resource:
 * function defaults, secrets and rotation, triggers, state, notifications, alarms, each
 * function's IAM policy and env vars, and cdk-nag.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionEnv, isNotConfiguredSecret } from '../../lib/config';
import { rotationEnv } from '../../lib/keys/config';
import { watchdogEnv } from '../../lib/pipes/config';
import { watchdogQueueEnv } from '../../lib/pipes/queue-config';
import { syncDashboardsEnvShape } from '../../lib/dashboards/config';
import { sentinelEnv } from '../../lib/keys/sentinel-env';
import { NOTIFIERS } from '../../lib/watch/notifiers/registry';
import { provisionAlertsEnv } from '../../lib/alerts/config';
import { eventTrustEnv } from '../../lib/events/trust';
import { SYNC_PROCESS_ENV } from '../../cdk/constructs/dashboard-sync';
import { BUNDLING, REPO_ROOT } from '../../cdk/constructs/function';
import type { CloudOpsFunction } from '../../cdk/constructs/function';
import type { CloudOpsStack } from '../../cdk/stack';
import {
  list,
  referencedIds,
  roleStatements,
  synth,
  SERVICE_IDS,
  type Synthesized,
} from './helpers';

let main: Synthesized;
let stack: CloudOpsStack;
let template: Template;

beforeAll(() => {
  main = synth();
  stack = main.stack;
  template = main.template;
});
afterAll(() => main?.cleanup());

const id = (c: IConstruct) => stack.getLogicalId(c.node.defaultChild as CfnElement);
const fnId = (f: CloudOpsFunction) => stack.getLogicalId(f.fn.node.defaultChild as CfnElement);

function functions(): Record<string, CloudOpsFunction> {
  return {
    rotateKey: stack.keyRotation.rotator,
    keySentinel: stack.keyRotation.sentinel,
    syncDashboards: stack.dashboardSync.sync,
    provisionAlerts: stack.alertProvisioning.provision,
    pipeWatchdog: stack.pipeWatchdog.watchdog,
    pipeWatchdogConsumer: stack.pipeWatchdog.consumer,
  };
}

function fnProps(f: CloudOpsFunction): Record<string, any> {
  return template.toJSON().Resources[fnId(f)].Properties;
}

function envOf(f: CloudOpsFunction): Record<string, unknown> {
  return fnProps(f).Environment.Variables as Record<string, unknown>;
}

describe('functions', () => {
  it('every function: newest Node runtime, arm64, explicit memory/timeout, JSON logs to its own log group, a DLQ', () => {
    for (const [name, f] of Object.entries(functions())) {
      const p = fnProps(f);
      expect(p.Runtime, name).toBe('nodejs24.x');
      expect(p.Architectures, name).toEqual(['arm64']);
      expect(p.Handler, name).toBe('index.handler');
      expect(p.MemorySize, name).toBeGreaterThanOrEqual(128);
      expect(p.Timeout, name).toBeGreaterThan(3);
      expect(p.LoggingConfig.LogFormat, name).toBe('JSON');
      expect(referencedIds(p.LoggingConfig.LogGroup), name).toEqual([id(f.logGroup)]);
      expect(referencedIds(p.DeadLetterConfig.TargetArn), name).toEqual([id(f.deadLetterQueue)]);
      // Source maps are decoded offline (cdk/decode-stack-trace.ts), not loaded at start.
      expect(p.Environment.Variables.NODE_OPTIONS, name).toBeUndefined();
      expect(referencedIds(p.Role), name).toEqual([id(f.role)]);
    }
    template.resourcePropertiesCountIs('AWS::Logs::LogGroup', { RetentionInDays: 30 }, 6);
  });

  it('bundles to minified ESM with source maps and the createRequire banner', () => {
    expect(BUNDLING).toMatchObject({
      format: 'esm',
      minify: true,
      sourceMap: true,
      bundleAwsSDK: true,
      forceDockerBundling: false,
    });
    expect(BUNDLING.banner).toMatch(/createRequire.*import\.meta\.url/);
  });

  it('serializes the sync and the watchdog (reserved concurrency 1)', () => {
    expect(fnProps(stack.dashboardSync.sync).ReservedConcurrentExecutions).toBe(1);
    expect(fnProps(stack.pipeWatchdog.watchdog).ReservedConcurrentExecutions).toBe(1);
    expect(fnProps(stack.alertProvisioning.provision).ReservedConcurrentExecutions).toBeUndefined();
  });

  it('gives each function only env vars its config schema reads, and the ones it needs', () => {
    const known = (...schemas: { shape: object }[]) =>
      new Set(schemas.flatMap((s) => Object.keys(s.shape)));
    const expectations: [CloudOpsFunction, Set<string>, string[]][] = [
      [
        stack.keyRotation.rotator,
        known(connectionEnv, rotationEnv),
        ['CLOUDOPS_API_URL', 'CLOUDOPS_KEY_GRACE_PERIOD', 'CLOUDOPS_KEY_LIFETIME'],
      ],
      [
        stack.keyRotation.sentinel,
        known(connectionEnv, sentinelEnv),
        [
          'CLOUDOPS_API_URL',
          'CLOUDOPS_KEY_SENTINEL_SECRET_IDS',
          'CLOUDOPS_KEY_EXPIRY_WARN_DAYS',
          'CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN',
        ],
      ],
      [
        stack.dashboardSync.sync,
        // Besides its settings, what glibc reads at the process's start.
        new Set([
          ...known(connectionEnv, syncDashboardsEnvShape),
          ...Object.keys(SYNC_PROCESS_ENV),
        ]),
        [
          'CLOUDOPS_DASHBOARDS_BUCKET',
          'CLOUDOPS_DASHBOARDS_OWNER',
          'CLOUDOPS_EVENT_BUS_NAME',
          'CLOUDOPS_ALERTS_VERSION_TABLE',
          'CLOUDOPS_OBSERVABILITY_URL',
          'CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID',
          'CLOUDOPS_KEY_SECRET_ID',
        ],
      ],
      [
        stack.alertProvisioning.provision,
        known(connectionEnv, provisionAlertsEnv, eventTrustEnv),
        [
          'CLOUDOPS_ALERTS_VERSION_TABLE',
          'CLOUDOPS_OBSERVABILITY_URL',
          'CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID',
          'CLOUDOPS_KEY_SECRET_ID',
          'CLOUDOPS_API_URL',
          'CLOUDOPS_SERVICE_ID',
        ],
      ],
      [
        // The scheduled run only enqueues: its services and the queue, no URL, key or table.
        stack.pipeWatchdog.watchdog,
        known(connectionEnv, watchdogQueueEnv),
        ['CLOUDOPS_ORGANIZATION_ID', 'CLOUDOPS_SERVICE_ID', 'CLOUDOPS_WATCHDOG_QUEUE_URL'],
      ],
      [
        stack.pipeWatchdog.consumer,
        known(connectionEnv, watchdogEnv),
        [
          'CLOUDOPS_API_URL',
          'CLOUDOPS_ORGANIZATION_ID',
          'CLOUDOPS_SERVICE_ID',
          'CLOUDOPS_KEY_SECRET_ID',
          'CLOUDOPS_WATCHDOG_TABLE',
          'CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN',
          'CLOUDOPS_WATCHDOG_EVENT_BUS',
        ],
      ],
    ];
    for (const [f, allowed, required] of expectations) {
      const env = envOf(f);
      const keys = Object.keys(env);
      expect(
        keys.filter((k) => !allowed.has(k)),
        f.node.path,
      ).toEqual([]);
      for (const name of required) expect(keys, f.node.path).toContain(name);
    }
    const watchdog = envOf(stack.pipeWatchdog.watchdog);
    expect(watchdog.CLOUDOPS_SERVICE_ID).toBe(SERVICE_IDS.join(','));
    expect(
      Object.keys(watchdog)
        .filter((k) => !k.startsWith('AWS_'))
        .sort(),
    ).toEqual([
      'CLOUDOPS_LOG_LEVEL',
      'CLOUDOPS_ORGANIZATION_ID',
      'CLOUDOPS_SERVICE_ID',
      'CLOUDOPS_WATCHDOG_QUEUE_URL',
    ]);
    const consumer = envOf(stack.pipeWatchdog.consumer);
    expect(referencedIds(consumer.CLOUDOPS_WATCHDOG_TABLE)).toEqual([id(stack.pipeWatchdog.table)]);
    expect(envOf(stack.keyRotation.rotator)).toMatchObject({
      CLOUDOPS_KEY_LIFETIME: '90d',
      CLOUDOPS_KEY_GRACE_PERIOD: '1d',
    });
  });
});

describe('secrets and key rotation', () => {
  it('one management key per function and one token per observability user, no fixed names, no admin secret by default', () => {
    // sync, alerts, watchdog and key sentinel keys; sync and alerts tokens.
    template.resourceCountIs('AWS::SecretsManager::Secret', 6);
    for (const secret of Object.values(template.findResources('AWS::SecretsManager::Secret'))) {
      // CloudFormation names them (unique per stack): no collisions, no retained-name clashes.
      expect(secret.Properties.Name).toBeUndefined();
    }
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      Description: Match.stringLikeRegexp('sync observability API token.*Not rotatable by API'),
    });
  });

  it('creates each secret as valid JSON the functions read as "not configured yet"', () => {
    for (const secret of Object.values(template.findResources('AWS::SecretsManager::Secret'))) {
      const generate = secret.Properties.GenerateSecretString;
      const template_ = JSON.parse(String(generate.SecretStringTemplate)) as unknown;
      expect(template_).toEqual({ cloudopsNotConfigured: true });
      expect(isNotConfiguredSecret(template_)).toBe(true);
      expect(generate.GenerateStringKey).toBe('placeholder');
      expect(secret.Properties.SecretString).toBeUndefined();
    }
  });

  it('rotates every key with the one rotate-key function, each on its own schedule, not at deploy', () => {
    const keys = stack.secrets.allKeys();
    expect(keys.map((k) => k.node.id)).toEqual([
      'SyncKey',
      'AlertsKey',
      'WatchdogKey',
      'SentinelKey',
    ]);
    const schedules = Object.values(
      template.findResources('AWS::SecretsManager::RotationSchedule'),
    );
    expect(schedules).toHaveLength(4);
    expect(schedules.flatMap((sc) => referencedIds(sc.Properties.SecretId)).sort()).toEqual(
      keys.map(id).sort(),
    );
    for (const schedule of schedules) {
      expect(referencedIds(schedule.Properties.RotationLambdaARN)).toEqual([
        fnId(stack.keyRotation.rotator),
      ]);
      expect(schedule.Properties.RotationRules).toEqual({ ScheduleExpression: 'rate(30 days)' });
      expect(schedule.Properties.RotateImmediatelyOnUpdate).toBe(false);
    }
    // Secrets Manager may invoke the rotator for these secrets only.
    for (const key of keys) {
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Principal: 'secretsmanager.amazonaws.com',
        FunctionName: { 'Fn::GetAtt': [fnId(stack.keyRotation.rotator), 'Arn'] },
        SourceArn: { Ref: id(key) },
      });
    }
  });

  it('each function is given only its own key and token', () => {
    const { keys, tokens } = stack.secrets;
    const ref = (c: IConstruct) => ({ Ref: id(c) });
    expect(envOf(stack.dashboardSync.sync)).toMatchObject({
      CLOUDOPS_KEY_SECRET_ID: ref(keys.sync!),
      CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: ref(tokens.sync),
    });
    expect(envOf(stack.alertProvisioning.provision)).toMatchObject({
      CLOUDOPS_KEY_SECRET_ID: ref(keys.alerts!),
      CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: ref(tokens.alerts),
    });
    expect(envOf(stack.pipeWatchdog.consumer)).toMatchObject({
      CLOUDOPS_KEY_SECRET_ID: ref(keys.watchdog!),
    });
    expect(envOf(stack.pipeWatchdog.watchdog)).not.toHaveProperty('CLOUDOPS_KEY_SECRET_ID');
    expect(
      referencedIds(envOf(stack.keyRotation.sentinel).CLOUDOPS_KEY_SENTINEL_SECRET_IDS),
    ).toEqual(stack.secrets.allKeys().map(id));
  });
});

describe('triggers', () => {
  it('schedules the watchdog, the drift sync and the key sentinel with retries and a DLQ', () => {
    const schedules = Object.values(template.findResources('AWS::Scheduler::Schedule'));
    expect(schedules).toHaveLength(3);
    const byTarget = new Map(
      schedules.map((s) => [referencedIds(s.Properties.Target.Arn)[0], s.Properties]),
    );
    expect(byTarget.get(fnId(stack.pipeWatchdog.watchdog))?.ScheduleExpression).toBe(
      'rate(5 minutes)',
    );
    expect(byTarget.get(fnId(stack.dashboardSync.sync))?.ScheduleExpression).toBe('rate(1 hour)');
    expect(byTarget.get(fnId(stack.keyRotation.sentinel))?.ScheduleExpression).toBe('rate(1 day)');
    for (const s of schedules) {
      expect(s.Properties.Target.RetryPolicy.MaximumRetryAttempts).toBe(3);
      expect(s.Properties.Target.DeadLetterConfig.Arn).toBeDefined();
      // Each run carries its execution id: the function logs it as eventId on every line.
      expect(JSON.parse(s.Properties.Target.Input as string)).toMatchObject({
        id: '<aws.scheduler.execution-id>',
      });
    }
    // The drift schedule's payload is what lib/dashboards/trigger.ts calls a schedule.
    const drift = JSON.parse(byTarget.get(fnId(stack.dashboardSync.sync))!.Target.Input as string);
    expect(drift['detail-type']).toBe('Scheduled Event');
  });

  it('keeps dashboards in an encrypted, versioned, private, TLS-only bucket', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          { ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms' } },
        ],
      },
      VersioningConfiguration: { Status: 'Enabled' },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: id(stack.dashboardSync.bucket) },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('syncs on object events under the prefix (what is uploaded: test/cdk/deploy.test.ts)', () => {
    const [notifications] = Object.values(template.findResources('Custom::S3BucketNotifications'));
    const configs = notifications.Properties.NotificationConfiguration
      .LambdaFunctionConfigurations as any[];
    expect(configs.flatMap((c) => c.Events).sort()).toEqual([
      's3:ObjectCreated:*',
      's3:ObjectRemoved:*',
    ]);
    for (const c of configs) {
      expect(referencedIds(c.LambdaFunctionArn)).toEqual([fnId(stack.dashboardSync.sync)]);
      expect(c.Filter.Key.FilterRules).toEqual([{ Name: 'prefix', Value: 'dashboards/' }]);
    }
  });

  it('a sync stopped at its deadline is run again by its continuation event on the bus (DLQ, retries, an hour at most)', () => {
    const [rule, ...others] = Object.values(template.findResources('AWS::Events::Rule')).filter(
      (r) => r.Properties.EventPattern['detail-type'][0] === 'Dashboard Sync Continued',
    );
    expect(others).toEqual([]);
    expect(rule.Properties.EventPattern).toEqual({
      source: ['cloudops'],
      'detail-type': ['Dashboard Sync Continued'],
    });
    expect(referencedIds(rule.Properties.EventBusName)).toEqual([id(stack.bus)]);
    const [target, ...more] = rule.Properties.Targets as any[];
    expect(more).toEqual([]);
    expect(referencedIds(target.Arn)).toEqual([fnId(stack.dashboardSync.sync)]);
    expect(target.DeadLetterConfig.Arn).toBeDefined();
    expect(target.RetryPolicy).toEqual({ MaximumRetryAttempts: 4, MaximumEventAgeInSeconds: 3600 });
    // EventBridge may invoke the sync for this rule only.
    const ruleId = Object.entries(template.findResources('AWS::Events::Rule')).find(
      ([, r]) => r === rule,
    )![0];
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).filter(
      (p) =>
        p.Properties.Principal === 'events.amazonaws.com' &&
        referencedIds(p.Properties.FunctionName).includes(fnId(stack.dashboardSync.sync)),
    );
    expect(permissions.map((p) => referencedIds(p.Properties.SourceArn))).toEqual([[ruleId]]);
    expect(permissions[0].Properties.Action).toBe('lambda:InvokeFunction');
  });

  it('feeds the alert queue from bus rules (with DLQ and retries) and drains it with partial batch responses', () => {
    const queueId = id(stack.alertProvisioning.queue);
    // No request source configured (the default): the synced rule alone (test/cdk/events.test.ts).
    const rules = Object.values(template.findResources('AWS::Events::Rule')).filter(
      (r) => r.Properties.EventPattern['detail-type'][0] !== 'Dashboard Sync Continued',
    );
    expect(rules.map((r) => r.Properties.EventPattern['detail-type'][0]).sort()).toEqual([
      'Dashboard Synced',
    ]);
    for (const rule of rules) {
      expect(referencedIds(rule.Properties.EventBusName)).toEqual([id(stack.bus)]);
      const [target] = rule.Properties.Targets as any[];
      expect(referencedIds(target.Arn)).toEqual([queueId]);
      expect(target.DeadLetterConfig.Arn).toBeDefined();
      expect(target.RetryPolicy.MaximumRetryAttempts).toBe(8);
    }
    const queue = template.toJSON().Resources[queueId].Properties;
    const fnTimeout = fnProps(stack.alertProvisioning.provision).Timeout as number;
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * fnTimeout);
    expect(queue.RedrivePolicy.maxReceiveCount).toBe(5);
    expect(referencedIds(queue.RedrivePolicy.deadLetterTargetArn)).toEqual([
      id(stack.alertProvisioning.queueDeadLetterQueue),
    ]);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionName: { Ref: fnId(stack.alertProvisioning.provision) },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('encrypts every queue and denies non-TLS access to it', () => {
    const queues = template.findResources('AWS::SQS::Queue');
    for (const [queueId, q] of Object.entries(queues)) {
      expect(q.Properties.SqsManagedSseEnabled, queueId).toBe(true);
    }
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));
    const tlsOnly = new Set(
      policies
        .filter((p) =>
          (p.Properties.PolicyDocument.Statement as any[]).some(
            (s) => s.Effect === 'Deny' && s.Condition?.Bool?.['aws:SecureTransport'] === 'false',
          ),
        )
        .flatMap((p) => referencedIds(p.Properties.Queues)),
    );
    expect([...tlsOnly].sort()).toEqual(Object.keys(queues).sort());
  });
});

describe('state and notifications', () => {
  it('stores watchdog state on demand, with point-in-time recovery and a TTL attribute', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });

  it('encrypts the topic with a rotating KMS key that CloudWatch alarms may use', () => {
    const keyId = id(stack.notifications.key);
    template.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' } }),
        ]),
      },
    });
  });
});

describe('monitoring', () => {
  const alarms = () => Object.values(template.findResources('AWS::CloudWatch::Alarm'));
  const topicRef = () => ({ Ref: id(stack.notifications.topic) });

  it('alarms on errors and throttles of every function, to the topic', () => {
    for (const f of Object.values(functions())) {
      const about = alarms().filter((a) =>
        (a.Properties.Dimensions as any[] | undefined)?.some(
          (d) => d.Name === 'FunctionName' && referencedIds(d.Value).includes(fnId(f)),
        ),
      );
      const metrics = about.map((a) => a.Properties.MetricName as string);
      expect(metrics, f.node.path).toContain('Errors');
      expect(metrics, f.node.path).toContain('Throttles');
    }
    for (const a of alarms()) expect(a.Properties.AlarmActions).toEqual([topicRef()]);
  });

  it('alarms on the depth of every dead-letter queue', () => {
    const watched = new Set(
      alarms()
        .filter((a) => a.Properties.MetricName === 'ApproximateNumberOfMessagesVisible')
        .flatMap((a) => referencedIds(a.Properties.Dimensions)),
    );
    const dlqs = Object.entries(template.findResources('AWS::SQS::Queue'))
      .map(([queueId]) => queueId)
      .filter(
        (queueId) =>
          queueId !== id(stack.alertProvisioning.queue) && queueId !== id(stack.pipeWatchdog.queue),
      );
    expect(dlqs.length).toBe(10);
    for (const dlq of dlqs) expect(watched.has(dlq), dlq).toBe(true);
  });

  it('alarms on rotation failure and on the watchdog failing itself', () => {
    const byId = (suffix: string) =>
      Object.entries(template.findResources('AWS::CloudWatch::Alarm')).find(([k]) =>
        k.startsWith(`Monitoring${suffix}`),
      )?.[1].Properties;
    expect(byId('RotationFailed')).toMatchObject({ MetricName: 'Errors', Threshold: 1 });
    expect(referencedIds(byId('RotationFailed')!.Dimensions)).toEqual([
      fnId(stack.keyRotation.rotator),
    ]);
    expect(byId('WatchdogApiFailing')).toMatchObject({
      Namespace: 'cloudops',
      MetricName: 'ApiErrors',
      Dimensions: [{ Name: 'function', Value: 'pipe-watchdog' }],
      EvaluationPeriods: 3,
    });
    expect(byId('WatchdogNotRunning')).toMatchObject({
      MetricName: 'Invocations',
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
  });
});

describe('IAM: least privilege per function', () => {
  function allowed(f: CloudOpsFunction, ...extra: IConstruct[]): Set<string> {
    return new Set([id(f.logGroup), id(f.deadLetterQueue), ...extra.map(id)]);
  }

  function policyOf(f: CloudOpsFunction) {
    const statements = roleStatements(template, id(f.role));
    const actions = statements.flatMap((s) => list(s.Action));
    return { statements, actions };
  }

  function actionsOn(f: CloudOpsFunction, target: IConstruct): string[] {
    return policyOf(f)
      .statements.filter((s) => referencedIds(s.Resource).includes(id(target)))
      .flatMap((s) => list(s.Action));
  }

  it('no wildcard actions, no Resource "*", only the resources each function uses', () => {
    const s = stack;
    const expected: [CloudOpsFunction, Set<string>][] = [
      [s.keyRotation.rotator, allowed(s.keyRotation.rotator, ...s.secrets.allKeys())],
      [
        s.keyRotation.sentinel,
        allowed(
          s.keyRotation.sentinel,
          ...s.secrets.allKeys(),
          s.notifications.topic,
          s.notifications.key,
          s.pipeWatchdog.table,
        ),
      ],
      [
        s.dashboardSync.sync,
        allowed(
          s.dashboardSync.sync,
          s.dashboardSync.bucket,
          s.secrets.keys.sync!,
          s.secrets.tokens.sync,
          s.bus,
          s.alertProvisioning.versionTable,
        ),
      ],
      [
        s.alertProvisioning.provision,
        allowed(
          s.alertProvisioning.provision,
          s.alertProvisioning.queue,
          s.alertProvisioning.versionTable,
          s.secrets.keys.alerts!,
          s.secrets.tokens.alerts,
        ),
      ],
      [s.pipeWatchdog.watchdog, allowed(s.pipeWatchdog.watchdog, s.pipeWatchdog.queue)],
      [
        s.pipeWatchdog.consumer,
        allowed(
          s.pipeWatchdog.consumer,
          s.pipeWatchdog.table,
          s.pipeWatchdog.queue,
          s.secrets.keys.watchdog!,
          s.notifications.topic,
          s.notifications.key,
          s.bus,
        ),
      ],
    ];
    for (const [f, ok] of expected) {
      const { statements, actions } = policyOf(f);
      expect(statements.length, f.node.path).toBeGreaterThan(0);
      expect(
        actions.filter((a) => a.includes('*')),
        f.node.path,
      ).toEqual([]);
      for (const st of statements) {
        expect(st.Effect).toBe('Allow');
        for (const r of list(st.Resource)) {
          expect(r, `${f.node.path}: ${JSON.stringify(st)}`).not.toBe('*');
          const refs = referencedIds(r);
          expect(refs.length, JSON.stringify(r)).toBeGreaterThan(0);
          for (const ref of refs) expect(ok.has(ref), `${f.node.path} -> ${ref}`).toBe(true);
        }
      }
    }
  });

  it('rotate-key: rotation calls on the management keys only, no GetRandomPassword', () => {
    const f = stack.keyRotation.rotator;
    for (const key of stack.secrets.allKeys()) {
      expect(actionsOn(f, key).sort()).toEqual([
        'secretsmanager:DescribeSecret',
        'secretsmanager:GetSecretValue',
        'secretsmanager:PutSecretValue',
        'secretsmanager:TagResource',
        'secretsmanager:UpdateSecretVersionStage',
      ]);
    }
    for (const token of Object.values(stack.secrets.tokens))
      expect(actionsOn(f, token)).toEqual([]);
    expect(policyOf(f).actions).not.toContain('secretsmanager:GetRandomPassword');
  });

  it("no role but the rotator's may read the value of more than one key secret", () => {
    const keyIds = new Set(stack.secrets.allKeys().map(id));
    const readers = new Map<string, Set<string>>();
    for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
      const statements = policy.Properties.PolicyDocument.Statement as {
        Action: string | string[];
        Resource: unknown;
      }[];
      const read = statements
        .filter((st) => list(st.Action).includes('secretsmanager:GetSecretValue'))
        .flatMap((st) => referencedIds(st.Resource))
        .filter((ref) => keyIds.has(ref));
      for (const role of referencedIds(policy.Properties.Roles))
        for (const secret of read)
          (readers.get(role) ?? readers.set(role, new Set()).get(role)!).add(secret);
    }
    const rotatorRole = stack.getLogicalId(
      stack.keyRotation.rotator.role.node.defaultChild as CfnElement,
    );
    const many = [...readers].filter(([role, secrets]) => role !== rotatorRole && secrets.size > 1);
    expect(many).toEqual([]);
    expect(readers.get(rotatorRole)?.size).toBe(keyIds.size);
    const sentinelRole = stack.getLogicalId(
      stack.keyRotation.sentinel.role.node.defaultChild as CfnElement,
    );
    expect([...(readers.get(sentinelRole) ?? [])]).toEqual([id(stack.secrets.keys.sentinel!)]);
  });

  it('the other functions only read secrets, and only the ones they use', () => {
    const readOnly = ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'];
    const s = stack;
    const { keys, tokens } = s.secrets;
    // The sentinel describes every key secret (their tags) and reads the value of its own only.
    for (const key of s.secrets.allKeys()) {
      expect([...new Set(actionsOn(s.keyRotation.sentinel, key))].sort()).toEqual(
        key === keys.sentinel ? readOnly : ['secretsmanager:DescribeSecret'],
      );
    }
    const own: [CloudOpsFunction, IConstruct[]][] = [
      [s.pipeWatchdog.watchdog, []],
      [s.pipeWatchdog.consumer, [keys.watchdog!]],
      [s.dashboardSync.sync, [keys.sync!, tokens.sync]],
      [s.alertProvisioning.provision, [keys.alerts!, tokens.alerts]],
    ];
    const all = [...s.secrets.allKeys(), tokens.sync, tokens.alerts];
    for (const [f, mine] of own) {
      for (const secret of all) {
        const expected = mine.includes(secret) ? readOnly : [];
        expect(actionsOn(f, secret).sort(), `${f.node.path} -> ${secret.node.id}`).toEqual(
          expected,
        );
      }
    }
  });

  it('sync: list and get under dashboards/ only, read and replace its one manifest object; put events on the bus', () => {
    const f = stack.dashboardSync.sync;
    const { statements } = policyOf(f);
    const list_ = statements.find((s) => list(s.Action).includes('s3:ListBucket'))!;
    // The manifest's key is listable too, so a missing manifest answers 404, not 403.
    expect(list_.Condition).toEqual({
      StringLike: { 's3:prefix': ['dashboards/*', '.cloudops/dashboards-manifest.json'] },
    });
    const reads = statements.filter((s) => list(s.Action).includes('s3:GetObject'));
    expect(reads.map((s) => JSON.stringify(s.Resource).match(/\/[^"]*"\]/)?.[0])).toEqual([
      '/dashboards/*"]',
      '/.cloudops/dashboards-manifest.json"]',
    ]);
    const writes = statements.filter((s) => list(s.Action).includes('s3:PutObject'));
    expect(writes).toHaveLength(1);
    expect(list(writes[0].Action).sort()).toEqual(['s3:GetObject', 's3:PutObject']);
    expect(JSON.stringify(writes[0].Resource)).toContain('/.cloudops/dashboards-manifest.json"');
    expect(envOf(f).CLOUDOPS_DASHBOARDS_MANIFEST_KEY).toBe('.cloudops/dashboards-manifest.json');
    // Two malloc arenas: the freed memory of 10,000 file reads does not stay resident.
    expect(envOf(f).MALLOC_ARENA_MAX).toBe('2');
    expect(actionsOn(f, stack.bus)).toEqual(['events:PutEvents']);
    // provision-alerts' settled records (a no-op run then skips the alert list) and version
    // claims (before the sync writes alerts itself).
    expect(actionsOn(f, stack.alertProvisioning.versionTable).sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:UpdateItem',
    ]);
    expect(envOf(f).CLOUDOPS_ALERTS_VERSION_TABLE).toEqual({
      Ref: id(stack.alertProvisioning.versionTable),
    });
    // Repair mode tells no drift: its entry wires no teller, no notifier, no watchdog table.
    expect(f.entry).toBe('functions/sync-dashboards/handler.ts');
    expect(existsSync(path.join(REPO_ROOT, f.entry))).toBe(true);
    expect(actionsOn(f, stack.pipeWatchdog.table)).toEqual([]);
    expect(actionsOn(f, stack.notifications.topic)).toEqual([]);
    expect(envOf(f)).not.toHaveProperty('CLOUDOPS_WATCHDOG_TABLE');
  });

  it('provision-alerts: consumes its queue', () => {
    expect(actionsOn(stack.alertProvisioning.provision, stack.alertProvisioning.queue)).toEqual(
      expect.arrayContaining([
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'sqs:ChangeMessageVisibility',
      ]),
    );
  });

  it('watchdog schedule: sends to its queue and writes its logs and DLQ, nothing else', () => {
    const f = stack.pipeWatchdog.watchdog;
    const services = [...new Set(policyOf(f).actions.map((a) => a.split(':')[0]))].sort();
    expect(services).toEqual(['logs', 'sqs']);
    expect(actionsOn(f, stack.pipeWatchdog.queue)).toContain('sqs:SendMessage');
    for (const forbidden of ['dynamodb:', 'secretsmanager:', 'sns:', 'events:', 'kms:'])
      expect(
        policyOf(f).actions.filter((a) => a.startsWith(forbidden)),
        forbidden,
      ).toEqual([]);
  });

  it('watchdog consumer: item reads/writes on its table, publish to the topic, events to the bus', () => {
    const f = stack.pipeWatchdog.consumer;
    expect(actionsOn(f, stack.pipeWatchdog.table).sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
    ]);
    expect(actionsOn(f, stack.notifications.topic)).toEqual(['sns:Publish']);
    expect(actionsOn(f, stack.notifications.key).sort()).toEqual([
      'kms:Decrypt',
      'kms:GenerateDataKey',
    ]);
    expect(actionsOn(f, stack.bus)).toEqual(['events:PutEvents']);
  });

  it('schedule roles may invoke their one function and write their DLQ, nothing else', () => {
    const schedules = Object.values(template.findResources('AWS::Scheduler::Schedule'));
    for (const s of schedules) {
      const [roleId] = referencedIds(s.Properties.Target.RoleArn);
      const statements = roleStatements(template, roleId);
      const [fn] = referencedIds(s.Properties.Target.Arn);
      const [dlq] = referencedIds(s.Properties.Target.DeadLetterConfig.Arn);
      expect(statements.map((st) => [list(st.Action), referencedIds(st.Resource)])).toEqual([
        [['lambda:InvokeFunction'], [fn]],
        [['sqs:SendMessage'], [dlq]],
      ]);
    }
  });
});

describe('cdk-nag', () => {
  it('AwsSolutions and Serverless packs: no unacknowledged finding', () => {
    for (const pack of [new AwsSolutionsChecks(), new ServerlessChecks()]) {
      const report = pack.validateScope(stack);
      const findings = report.violations.map(
        (v) =>
          `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
      );
      expect(findings, pack.readPackName).toEqual([]);
    }
  });

  it('every acknowledgement carries a written reason', () => {
    const acks: [string, string][] = [];
    for (const c of stack.node.findAll()) {
      for (const entry of c.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [rule, reason] of Object.entries(entry.data as Record<string, string>)) {
          acks.push([rule, reason]);
        }
      }
    }
    expect(acks.length).toBeGreaterThan(5);
    for (const [rule, reason] of acks) expect(String(reason).length, rule).toBeGreaterThan(30);
  });
});

describe('variants', () => {
  let variant: Synthesized;
  beforeAll(() => {
    variant = synth({
      'cloudops:adminSecret': 'true',
      'cloudops:slackWebhookSecretName': 'cloudops/slack',
      'cloudops:webhookSecretName': 'cloudops/webhook',
      'cloudops:pagerdutySecretName': 'cloudops/pagerduty',
      'cloudops:rotationDays': '14',
      'cloudops:watchdogSchedule': 'cron(0/10 * * * ? *)',
      'cloudops:observabilityMode': 'open-source',
      'cloudops:dashboardsScheduleMode': 'report',
    });
  });
  afterAll(() => variant?.cleanup());

  it('report mode: the sync tells drift through the watchdog notifiers, its record in the watchdog table', () => {
    const v = variant.stack;
    const t = variant.template;
    const vid = (c: IConstruct) => v.getLogicalId(c.node.defaultChild as CfnElement);
    const sync = v.dashboardSync.sync;
    // The entry that wires the drift teller (the repair one refuses report mode).
    expect(sync.entry).toBe('functions/sync-dashboards/report-handler.ts');
    expect(existsSync(path.join(REPO_ROOT, sync.entry))).toBe(true);
    const env = t.toJSON().Resources[vid(sync.fn)].Properties.Environment.Variables;
    expect(env).toMatchObject({
      CLOUDOPS_DASHBOARDS_SCHEDULE_MODE: 'report',
      CLOUDOPS_WATCHDOG_TABLE: { Ref: vid(v.pipeWatchdog.table) },
      CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: { Ref: vid(v.notifications.topic) },
      CLOUDOPS_WATCHDOG_EVENT_BUS: { Ref: vid(v.bus) },
      CLOUDOPS_WATCHDOG_SLACK_SECRET_ID: 'cloudops/slack',
      CLOUDOPS_WATCHDOG_WEBHOOK_SECRET_ID: 'cloudops/webhook',
    });
    const statements = roleStatements(t, vid(sync.role));
    const on = (target: IConstruct) =>
      statements
        .filter((st) => referencedIds(st.Resource).includes(vid(target)))
        .flatMap((st) => list(st.Action))
        .sort();
    expect(on(v.pipeWatchdog.table)).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem']);
    expect(on(v.notifications.topic)).toEqual(['sns:Publish']);
    expect(on(v.notifications.key)).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
    expect(new Set(on(v.bus))).toEqual(new Set(['events:PutEvents']));
    const secretReads = statements.filter((st) =>
      /:secret:cloudops\/(slack|webhook)-/.test(JSON.stringify(st.Resource)),
    );
    expect(secretReads).toHaveLength(2);
    // Its bundle carries the notifiers bound above (all three have a secret) and no routing.
    expect(sync.bundleDefines).toEqual(v.notifications.bundleDefines());
    expect(sync.bundleDefines).toMatchObject({
      'globalThis.CLOUDOPS_WITHOUT_SLACK': 'false',
      'globalThis.CLOUDOPS_WITHOUT_WEBHOOK': 'false',
      'globalThis.CLOUDOPS_WITHOUT_PAGERDUTY': 'false',
      'globalThis.CLOUDOPS_WITHOUT_ROUTES': 'true',
    });
  });

  it('admin secret: created, readable by rotate-key only, named to it by env', () => {
    const v = variant.stack;
    const t = variant.template;
    const adminId = v.getLogicalId(v.secrets.admin!.node.defaultChild as CfnElement);
    expect(v.secrets.admin).toBeDefined();
    const rotatorEnv =
      t.toJSON().Resources[v.getLogicalId(v.keyRotation.rotator.fn.node.defaultChild as CfnElement)]
        .Properties.Environment.Variables;
    expect(rotatorEnv.CLOUDOPS_ROTATION_ADMIN_SECRET_ID).toEqual({ Ref: adminId });
    const readers = Object.values(t.findResources('AWS::IAM::Policy')).filter((p) =>
      referencedIds(p.Properties.PolicyDocument).includes(adminId),
    );
    expect(readers.flatMap((p) => referencedIds(p.Properties.Roles))).toEqual([
      v.getLogicalId(v.keyRotation.rotator.role.node.defaultChild as CfnElement),
    ]);
    // Open-source mode: the watchdog and the key sentinel are the functions with a management key.
    const schedules = Object.values(t.findResources('AWS::SecretsManager::RotationSchedule'));
    expect(schedules).toHaveLength(2);
    for (const schedule of schedules)
      expect(schedule.Properties.RotationRules.ScheduleExpression).toBe('rate(14 days)');
  });

  it('the watchdog reads Slack and webhook URLs and the PagerDuty key from their secrets at run time, by name', () => {
    const v = variant.stack;
    const t = variant.template;
    const fnKey = v.getLogicalId(v.pipeWatchdog.consumer.fn.node.defaultChild as CfnElement);
    const env = t.toJSON().Resources[fnKey].Properties.Environment.Variables;
    expect(env).toMatchObject({
      CLOUDOPS_WATCHDOG_SLACK_SECRET_ID: 'cloudops/slack',
      CLOUDOPS_WATCHDOG_WEBHOOK_SECRET_ID: 'cloudops/webhook',
      CLOUDOPS_WATCHDOG_PAGERDUTY_SECRET_ID: 'cloudops/pagerduty',
    });
    for (const plain of [
      'CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY',
      'CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL',
      'CLOUDOPS_WATCHDOG_WEBHOOK_URL',
      'CLOUDOPS_WATCHDOG_WEBHOOK_SIGNING_SECRET',
    ])
      expect(env).not.toHaveProperty(plain);
    // No value is resolved into the template (no dynamic references anywhere).
    expect(JSON.stringify(t.toJSON())).not.toContain('{{resolve:secretsmanager');
    // Read access to exactly those secrets, for the watchdog (and the sync in report mode).
    const readers = (name: string) =>
      Object.values(t.findResources('AWS::IAM::Policy'))
        .filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes(`:secret:${name}-`))
        .flatMap((p) => referencedIds(p.Properties.Roles));
    const consumerRole = v.getLogicalId(
      v.pipeWatchdog.consumer.role.node.defaultChild as CfnElement,
    );
    const syncRole = v.getLogicalId(v.dashboardSync.sync.role.node.defaultChild as CfnElement);
    // The scheduled run only enqueues: it reads none of them.
    const expected = [consumerRole, syncRole].sort();
    expect(readers('cloudops/slack').sort()).toEqual(expected);
    expect(readers('cloudops/webhook').sort()).toEqual(expected);
    expect(readers('cloudops/pagerduty').sort()).toEqual(expected);
    const statement = roleStatements(t, consumerRole).find((st) =>
      JSON.stringify(st.Resource).includes(':secret:cloudops/slack-'),
    )!;
    expect(list(statement.Action).sort()).toEqual([
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ]);
  });

  it('every notifier of the registry has a destination, and each function gets only the ones it uses', () => {
    const v = variant.stack;
    const t = variant.template;
    const envOfFn = (f: CloudOpsFunction) =>
      t.toJSON().Resources[v.getLogicalId(f.fn.node.defaultChild as CfnElement)].Properties
        .Environment.Variables as Record<string, unknown>;
    const configures = (f: CloudOpsFunction) =>
      NOTIFIERS.filter((n) => Object.keys(n.env.shape).some((name) => name in envOfFn(f))).map(
        (n) => n.name,
      );
    const all = NOTIFIERS.map((n) => n.name);
    expect(configures(v.pipeWatchdog.watchdog)).toEqual([]);
    expect(configures(v.pipeWatchdog.consumer)).toEqual(all);
    expect(configures(v.dashboardSync.sync)).toEqual(all); // report mode
    expect(configures(v.keyRotation.sentinel)).toEqual(['sns']);
    expect(configures(v.alertProvisioning.provision)).toEqual([]);
  });

  it('open-source mode: the dashboard sync gets only the token secret, not the management key', () => {
    const v = variant.stack;
    const t = variant.template;
    const sync = v.dashboardSync.sync;
    const env =
      t.toJSON().Resources[v.getLogicalId(sync.fn.node.defaultChild as CfnElement)].Properties
        .Environment.Variables;
    expect(env).toMatchObject({ CLOUDOPS_OBSERVABILITY_MODE: 'open-source' });
    expect(env).toHaveProperty('CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID');
    for (const name of ['CLOUDOPS_KEY_SECRET_ID', 'CLOUDOPS_API_URL', 'CLOUDOPS_SERVICE_ID'])
      expect(env).not.toHaveProperty(name);
    const refs = roleStatements(
      t,
      v.getLogicalId(sync.role.node.defaultChild as CfnElement),
    ).flatMap((st) => referencedIds(st.Resource));
    const secretId = (secret: IConstruct) => v.getLogicalId(secret.node.defaultChild as CfnElement);
    expect(refs).toContain(secretId(v.secrets.tokens.sync));
    expect(v.secrets.keys.sync).toBeUndefined();
    expect(refs).not.toContain(secretId(v.secrets.keys.watchdog!));
  });

  it('a cron watchdog schedule has no heartbeat alarm (its interval is unknown)', () => {
    const ids = Object.keys(variant.template.findResources('AWS::CloudWatch::Alarm'));
    expect(ids.some((k) => k.startsWith('MonitoringWatchdogNotRunning'))).toBe(false);
    expect(ids.some((k) => k.startsWith('MonitoringWatchdogApiFailing'))).toBe(true);
  });

  it('passes cdk-nag too', () => {
    for (const pack of [new AwsSolutionsChecks(), new ServerlessChecks()]) {
      expect(pack.validateScope(variant.stack).violations.map((x) => x.ruleName)).toEqual([]);
    }
  });
});

describe('configuration', () => {
  it('a missing context key fails synth naming the key', () => {
    expect(() => synth({ 'cloudops:apiUrl': undefined })).toThrow(
      /cloudops:apiUrl \(or env CLOUDOPS_CDK_API_URL\): required, not set/,
    );
  });

  it('bad values fail synth, one line per key, without echoing the value', () => {
    let message = '';
    try {
      synth({
        'cloudops:rotationDays': 'often',
        'cloudops:serviceIds': 'not-a-uuid',
        'cloudops:watchdogSchedule': 'every 5 minutes',
        'cloudops:logRetentionDays': '31',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/cloudops:rotationDays/);
    expect(message).toMatch(/cloudops:serviceIds/);
    expect(message).toMatch(/cloudops:watchdogSchedule .*expected rate/);
    expect(message).toMatch(/cloudops:logRetentionDays .*expected one of/);
    expect(message).not.toMatch(/not-a-uuid|every 5 minutes/);
  });

  it('a key lifetime shorter than rotation plus grace fails naming cloudops:keyLifetime', () => {
    expect(() => synth({ 'cloudops:keyLifetime': '30d', 'cloudops:rotationDays': 30 })).toThrow(
      /cloudops:keyLifetime .*longer than cloudops:rotationDays/,
    );
  });

  const synthError = (context: Record<string, unknown>): string => {
    try {
      synth(context).cleanup();
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected synth to refuse the settings');
  };

  it('out-of-range key timing is refused naming the key and the allowed range', () => {
    // A lifetime no Date can hold would fail every rotation with "Invalid time value".
    expect(synthError({ 'cloudops:keyLifetime': '99999999999d' })).toMatch(
      /cloudops:keyLifetime \(or env CLOUDOPS_CDK_KEY_LIFETIME\): expected at most 365d/,
    );
    expect(synthError({ 'cloudops:keyLifetime': '36500d' })).toMatch(
      /cloudops:keyLifetime .*expected at most 365d/,
    );
    expect(synthError({ 'cloudops:keyGracePeriod': '99999999999d' })).toMatch(
      /cloudops:keyGracePeriod .*expected at most 365d/,
    );
    // The defaults (90d, 1d) against a long rotation: the message gives the bound it needs.
    expect(synthError({ 'cloudops:rotationDays': '100' })).toMatch(
      /cloudops:keyLifetime .*longer than cloudops:rotationDays plus cloudops:keyGracePeriod \(101d\) and at most 365d/,
    );
    expect(synthError({ 'cloudops:keyExpiryWarnDays': '60' })).toMatch(
      /cloudops:keyExpiryWarnDays .*expected 1 to 59/,
    );
    expect(() => synth({ 'cloudops:keyLifetime': '365d' }).cleanup()).not.toThrow();
  });

  it('schedules run at most every minute and at least once a year (the watchdog every 8 hours)', () => {
    expect(synthError({ 'cloudops:watchdogSchedule': 'rate(0 minutes)' })).toMatch(
      /cloudops:watchdogSchedule .*expected a rate from 1 minute to 8h/,
    );
    expect(synthError({ 'cloudops:watchdogSchedule': 'rate(1 day)' })).toMatch(
      /cloudops:watchdogSchedule .*to 8h/,
    );
    expect(synthError({ 'cloudops:driftSyncSchedule': 'rate(0 hours)' })).toMatch(
      /cloudops:driftSyncSchedule .*expected a rate from 1 minute to 365d/,
    );
    expect(synthError({ 'cloudops:keySentinelSchedule': 'rate(99999999999 days)' })).toMatch(
      /cloudops:keySentinelSchedule .*to 365d/,
    );
  });

  it('the stack is region-agnostic unless CDK_DEFAULT_* say otherwise', () => {
    expect(Stack.of(stack).region).toMatch(/^\$\{Token/);
  });
});
