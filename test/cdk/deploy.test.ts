/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- synthesized CloudFormation JSON is untyped */
/**
 * What a deployment relies on beyond each resource: alarms that reach people (the topic lets
 * CloudWatch publish; ALARM and OK both notify), the automation dashboard, a first deploy with
 * nothing committed to deploy by accident, and two stacks in one account without collisions.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnElement } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../cdk/build';
import { dashboardsOwnerFor, readStackConfig } from '../../cdk/config';
import { REPO_ROOT, type CloudOpsFunction } from '../../cdk/constructs/function';
import { BASE_CONTEXT, referencedIds, synth, type Synthesized } from './helpers';

let main: Synthesized;
beforeAll(() => {
  main = synth();
});
afterAll(() => main?.cleanup());

const resources = (type: string) => Object.values(main.template.findResources(type)) as any[];
const idOf = (c: { node: { defaultChild?: unknown } }) =>
  main.stack.getLogicalId(c.node.defaultChild as CfnElement);

describe('alarms reach people', () => {
  it('the topic policy allows CloudWatch alarms of this account to publish (the TLS Deny alone allows nobody)', () => {
    const [policy] = resources('AWS::SNS::TopicPolicy');
    expect(referencedIds(policy.Properties.Topics)).toEqual([idOf(main.stack.notifications.topic)]);
    const statements = policy.Properties.PolicyDocument.Statement as any[];
    const allow = statements.find(
      (s) => s.Effect === 'Allow' && s.Principal?.Service === 'cloudwatch.amazonaws.com',
    );
    expect(allow).toBeDefined();
    expect(allow.Action).toBe('sns:Publish');
    expect(referencedIds(allow.Resource)).toEqual([idOf(main.stack.notifications.topic)]);
    expect(allow.Condition.StringEquals['aws:SourceAccount']).toEqual({ Ref: 'AWS::AccountId' });
    expect(JSON.stringify(allow.Condition.ArnLike['aws:SourceArn'])).toMatch(
      /:cloudwatch:.*:alarm:\*/,
    );
    // The TLS-only Deny stays.
    expect(statements.some((s) => s.Effect === 'Deny')).toBe(true);
  });

  it('the topic key lets only CloudWatch alarms of this account encrypt for it', () => {
    const [key] = resources('AWS::KMS::Key');
    const statement = (key.Properties.KeyPolicy.Statement as any[]).find(
      (s) => s.Principal?.Service === 'cloudwatch.amazonaws.com',
    );
    expect(statement.Condition.StringEquals['aws:SourceAccount']).toEqual({
      Ref: 'AWS::AccountId',
    });
  });

  it('every alarm notifies the topic on ALARM and on OK', () => {
    const topic = { Ref: idOf(main.stack.notifications.topic) };
    const alarms = resources('AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(10);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([topic]);
      expect(alarm.Properties.OKActions).toEqual([topic]);
    }
  });

  it('alarms when the oldest alert-queue message waits too long', () => {
    const alarm = resources('AWS::CloudWatch::Alarm').find(
      (a) => a.Properties.MetricName === 'ApproximateAgeOfOldestMessage',
    );
    expect(alarm.Properties.Threshold).toBe(30 * 60);
    expect(referencedIds(alarm.Properties.Dimensions)).toEqual([
      idOf(main.stack.alertProvisioning.queue),
    ]);
  });

  it('the watchdog-not-running alarm breaches when there is no data at all', () => {
    const alarm = resources('AWS::CloudWatch::Alarm').find(
      (a) =>
        a.Properties.MetricName === 'Invocations' &&
        referencedIds(a.Properties.Dimensions).includes(idOf(main.stack.pipeWatchdog.watchdog.fn)),
    );
    expect(alarm.Properties).toMatchObject({
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
      Period: 15 * 60, // three 5-minute runs
    });
  });
});

describe('the watchdog fan-out', () => {
  it('the scheduled run enqueues to a queue a consumer drains one batch at a time, with a DLQ', () => {
    const w = main.stack.pipeWatchdog;
    const fnEnv = (f: typeof w.watchdog) =>
      main.template.toJSON().Resources[idOf(f.fn)].Properties.Environment.Variables;
    for (const f of [w.watchdog, w.consumer]) {
      expect(referencedIds(fnEnv(f).CLOUDOPS_WATCHDOG_QUEUE_URL)).toEqual([idOf(w.queue)]);
    }
    main.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: idOf(w.consumer.fn) },
      EventSourceArn: { 'Fn::GetAtt': [idOf(w.queue), 'Arn'] },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const queue = main.template.toJSON().Resources[idOf(w.queue)].Properties;
    expect(referencedIds(queue.RedrivePolicy.deadLetterTargetArn)).toEqual([
      idOf(w.queueDeadLetterQueue),
    ]);
    expect(queue.VisibilityTimeout).toBe(6 * 300);
  });
});

describe('the automation dashboard', () => {
  it('shows rotations, drift, notifications, 429s and errors', () => {
    const [dashboard] = resources('AWS::CloudWatch::Dashboard');
    expect(dashboard.Properties.DashboardName).toBeUndefined(); // generated: unique per stack
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const title of [
      'Key rotations',
      'Dashboard drift',
      'Watchdog notifications',
      '429s',
      'Errors per function',
    ]) {
      expect(body).toContain(title);
    }
    for (const metric of [
      'KeysRotated',
      'DashboardPlansPending',
      'Notifications',
      'PipeWatchdogRateLimited',
    ]) {
      expect(body).toContain(metric);
    }
  });

  it('counts the log lines lib writes, in a namespace of its own stack', () => {
    const filters = resources('AWS::Logs::MetricFilter');
    const by = (name: string) =>
      filters.find((f) => f.Properties.MetricTransformations[0].MetricName === name);
    expect(by('KeysRotated').Properties.FilterPattern).toContain(
      'AWSCURRENT moved to the new version',
    );
    expect(by('DashboardPlansPending').Properties.FilterPattern).toMatch(/\$\.pending IS TRUE/);
    expect(by('SyncDashboardsRateLimited').Properties.FilterPattern).toMatch(/\$\.reason = 429/);
    for (const f of filters) {
      expect(f.Properties.MetricTransformations[0].MetricNamespace).toBe('cloudops/CloudOps');
    }
  });
});

describe('a first deploy', () => {
  it('cdk.json commits no setting that would deploy (required keys fail synth instead)', () => {
    const cdkJson = JSON.parse(readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8'));
    expect(Object.keys(cdkJson.context ?? {}).filter((k) => k.startsWith('cloudops:'))).toEqual([]);
    expect(() => readStackConfig((key) => cdkJson.context?.[key])).toThrow(
      /cloudops:apiUrl \(or env CLOUDOPS_CDK_API_URL\): required, not set[\s\S]*cloudops:organizationId/,
    );
  });

  it('the example settings CI synthesizes with are complete, and a context file fills only unset keys', () => {
    const outdir = mkdtempSync(path.join(tmpdir(), 'cloudops-cdk-file-'));
    try {
      const file = path.join(outdir, 'context.json');
      const example = JSON.parse(
        readFileSync(path.join(REPO_ROOT, 'cdk/context.example.json'), 'utf8'),
      );
      writeFileSync(file, JSON.stringify(example));
      const { config } = buildApp({
        outdir,
        bundling: false,
        cfnValidation: false,
        treeMetadata: false,
        context: { 'cloudops:rotationDays': '14' },
        env: { CLOUDOPS_CDK_CONTEXT_FILE: file },
      });
      expect(config.apiUrl).toBe(example['cloudops:apiUrl']);
      expect(config.rotationDays).toBe(14);
      writeFileSync(file, '{ not json');
      expect(() =>
        buildApp({ outdir, bundling: false, env: { CLOUDOPS_CDK_CONTEXT_FILE: file } }),
      ).toThrow(/CLOUDOPS_CDK_CONTEXT_FILE .*context\.json: not valid JSON/);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });

  /** The files of each asset folder the assembly staged (relative to it, sorted). */
  function stagedFolders(outdir: string): string[][] {
    return readdirSync(outdir)
      .filter((entry) => entry.startsWith('asset.') && !entry.endsWith('.zip'))
      .map((entry) =>
        readdirSync(path.join(outdir, entry), { recursive: true, withFileTypes: true })
          .filter((f) => f.isFile())
          .map((f) => path.relative(path.join(outdir, entry), path.join(f.parentPath, f.name)))
          .sort(),
      );
  }
  const syncEnv = (s: Synthesized): Record<string, unknown> =>
    s.template.toJSON().Resources[
      s.stack.getLogicalId(s.stack.dashboardSync.sync.fn.node.defaultChild as CfnElement)
    ].Properties.Environment.Variables;

  it('a synth with only the required context ships no dashboard: no upload, no sample file, no variables', () => {
    const samples = readdirSync(path.join(REPO_ROOT, 'dashboards')).filter(
      (f) => !f.endsWith('.md'),
    );
    expect(samples.length).toBeGreaterThan(0);
    const s = synth();
    try {
      expect(s.template.findResources('Custom::CDKBucketDeployment')).toEqual({});
      const staged = stagedFolders(s.outdir)
        .flat()
        .map((f) => path.basename(f));
      for (const sample of samples) expect(staged).not.toContain(sample);
      expect(Object.keys(syncEnv(s)).filter((k) => k.startsWith('CLOUDOPS_VAR_'))).toEqual([]);
      // The sync reads the default prefix, which the deployer fills (cdk/README.md).
      expect(syncEnv(s).CLOUDOPS_DASHBOARDS_PREFIX).toBe('dashboards/');
    } finally {
      s.cleanup();
    }
  });

  it('a named folder is what a deploy uploads, to the named prefix; the variables come from context', () => {
    const mine = mkdtempSync(path.join(tmpdir(), 'cloudops-my-dashboards-'));
    writeFileSync(path.join(mine, 'team.yaml'), 'name: Team\ntiles: []\n');
    mkdirSync(path.join(mine, 'more'));
    writeFileSync(path.join(mine, 'more', 'other.json'), '{"name":"Other","tiles":[]}');
    const s = synth({
      'cloudops:dashboardsDir': mine,
      'cloudops:dashboardsPrefix': 'team-a/dashboards/',
      // From -c or env, an object is its JSON text.
      'cloudops:dashboardVars': '{"WEBHOOK_ID":"wh-0123","TEAM":"a"}',
    });
    try {
      s.template.hasResourceProperties('Custom::CDKBucketDeployment', {
        DestinationBucketKeyPrefix: 'team-a/dashboards/',
        Prune: true,
      });
      // The folder's asset holds its files and nothing else (the other asset is CDK's uploader).
      const folders = stagedFolders(s.outdir).filter((files) => files.includes('team.yaml'));
      expect(folders).toEqual([[path.join('more', 'other.json'), 'team.yaml']]);
      expect(syncEnv(s)).toMatchObject({
        CLOUDOPS_DASHBOARDS_PREFIX: 'team-a/dashboards/',
        CLOUDOPS_VAR_WEBHOOK_ID: 'wh-0123',
        CLOUDOPS_VAR_TEAM: 'a',
      });
      const [notifications] = Object.values(
        s.template.findResources('Custom::S3BucketNotifications'),
      ) as any[];
      for (const c of notifications.Properties.NotificationConfiguration
        .LambdaFunctionConfigurations as any[])
        expect(c.Filter.Key.FilterRules).toEqual([{ Name: 'prefix', Value: 'team-a/dashboards/' }]);
    } finally {
      s.cleanup();
      rmSync(mine, { recursive: true, force: true });
    }
  });

  it('a missing folder, a prefix without its slash and malformed variables fail synth naming the key', () => {
    let message = '';
    try {
      synth({
        'cloudops:dashboardsDir': path.join(tmpdir(), 'cloudops-no-such-folder'),
        'cloudops:dashboardsPrefix': 'dashboards',
        'cloudops:dashboardVars': '{"WEBHOOK ID":"x"}',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/cloudops:dashboardsDir .*expected an existing folder/);
    expect(message).toMatch(/cloudops:dashboardsPrefix .*ending in \//);
    expect(message).toMatch(/cloudops:dashboardVars .*expected variable names/);
  });

  it('cloudops:apiUrl with or without /v1 (or a slash) gives every function the same base URL', () => {
    const urls = [
      'https://api.example.test/v1',
      'https://api.example.test/v1/',
      'https://api.example.test/',
    ];
    for (const apiUrl of urls) {
      const s = synth({
        'cloudops:apiUrl': apiUrl,
        'cloudops:observabilityUrl': 'https://obs.example.test/api/v2/',
      });
      try {
        for (const fn of Object.values(
          s.template.findResources('AWS::Lambda::Function'),
        ) as any[]) {
          const env = fn.Properties.Environment?.Variables ?? {};
          if ('CLOUDOPS_API_URL' in env)
            expect(env.CLOUDOPS_API_URL, apiUrl).toBe('https://api.example.test');
          if ('CLOUDOPS_OBSERVABILITY_URL' in env)
            expect(env.CLOUDOPS_OBSERVABILITY_URL).toBe('https://obs.example.test');
        }
      } finally {
        s.cleanup();
      }
    }
    const example = JSON.parse(
      readFileSync(path.join(REPO_ROOT, 'cdk/context.example.json'), 'utf8'),
    );
    expect(example['cloudops:apiUrl']).not.toMatch(/\/v1\/?$/);
  });

  it('reserved concurrency can be turned off for accounts at the default quota', () => {
    const off = synth({ 'cloudops:reservedConcurrency': 'false' });
    try {
      for (const fn of Object.values(
        off.template.findResources('AWS::Lambda::Function'),
      ) as any[]) {
        expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
      }
    } finally {
      off.cleanup();
    }
  });
});

describe("the watchdog's settings", () => {
  it("its tunables come from cdk keys, checked by the watchdog's own schema, into its consumer (the schedule only enqueues)", () => {
    const link = 'https://console.example/{organizationId}/services/{serviceId}/pipes/{pipeId}';
    const s = synth({
      'cloudops:watchdogLinkTemplate': link,
      'cloudops:watchdogExcludePipes': ['pipe-a', 'pipe-b'],
      'cloudops:watchdogReminderMinutes': 60,
      'cloudops:watchdogAutoRestart': 'true',
      'cloudops:watchdogStallMinutes': 45,
      'cloudops:watchdogExpectTraffic': ['orders-*', 'pipe-c'],
      'cloudops:watchdogErrorsPerRun': 5,
    });
    try {
      const envOf = (f: CloudOpsFunction) =>
        s.template.toJSON().Resources[s.stack.getLogicalId(f.fn.node.defaultChild as CfnElement)]
          .Properties.Environment.Variables as Record<string, string>;
      const scheduled = envOf(s.stack.pipeWatchdog.watchdog);
      expect(Object.keys(scheduled).filter((k) => k.startsWith('CLOUDOPS_WATCHDOG_'))).toEqual([
        'CLOUDOPS_WATCHDOG_QUEUE_URL',
      ]);
      const env = envOf(s.stack.pipeWatchdog.consumer);
      expect(env).toMatchObject({
        CLOUDOPS_WATCHDOG_LINK_TEMPLATE: link,
        CLOUDOPS_WATCHDOG_EXCLUDE_PIPES: 'pipe-a,pipe-b',
        CLOUDOPS_WATCHDOG_REMINDER_MINUTES: '60',
        CLOUDOPS_WATCHDOG_AUTO_RESTART: 'true',
        CLOUDOPS_WATCHDOG_STALL_MINUTES: '45',
        CLOUDOPS_WATCHDOG_EXPECT_TRAFFIC: 'orders-*,pipe-c',
        CLOUDOPS_WATCHDOG_ERRORS_PER_RUN: '5',
      });
      expect(env).not.toHaveProperty('CLOUDOPS_WATCHDOG_STUCK_MINUTES');
    } finally {
      s.cleanup();
    }
    expect(() => synth({ 'cloudops:watchdogReminderMinutes': 'soon' })).toThrow(
      /cloudops:watchdogReminderMinutes \(or env CLOUDOPS_CDK_WATCHDOG_REMINDER_MINUTES\)/,
    );
    // The stall threshold's bounds are the watchdog's own: 1 minute to a day.
    for (const minutes of [0, 1441])
      expect(() => synth({ 'cloudops:watchdogStallMinutes': minutes })).toThrow(
        /cloudops:watchdogStallMinutes/,
      );
    expect(() => synth({ 'cloudops:watchdogErrorsPerRun': -1 })).toThrow(
      /cloudops:watchdogErrorsPerRun/,
    );
  });
});

describe('two stacks in one account', () => {
  /** Every literal physical name a template sets (a clash between stacks fails the deploy). */
  function physicalNames(template: Template): string[] {
    const nameProps = [
      'Name',
      'TopicName',
      'QueueName',
      'TableName',
      'BucketName',
      'DashboardName',
      'FunctionName',
      'LogGroupName',
      'RoleName',
      'AlarmName',
      'SecretName',
    ];
    return Object.values(template.toJSON().Resources as Record<string, any>).flatMap((r) =>
      nameProps
        .map((p) => r.Properties?.[p])
        .filter((v): v is string => typeof v === 'string')
        .map((v) => `${String(r.Type)}:${v}`),
    );
  }

  it('synthesize without a shared physical name, each with its own dashboards owner', () => {
    const outdirs = [0, 1].map(() => mkdtempSync(path.join(tmpdir(), 'cloudops-cdk-two-')));
    try {
      const [a, b] = ['CloudOpsProd', 'CloudOpsStaging'].map((stackName, i) => {
        const { stack } = buildApp({
          outdir: outdirs[i],
          bundling: false,
          cfnValidation: false,
          treeMetadata: false,
          stackName,
          context: BASE_CONTEXT,
          env: {},
        });
        return { stack, template: Template.fromStack(stack) };
      });
      const shared = physicalNames(a.template).filter((n) => physicalNames(b.template).includes(n));
      expect(shared).toEqual([]);
      expect(a.stack.dashboardsOwner).toBe('CloudOpsProd');
      expect(b.stack.dashboardsOwner).toBe('CloudOpsStaging');
      const ownerOf = (s: typeof a) =>
        (Object.values(s.template.findResources('AWS::Lambda::Function')) as any[]).find(
          (f) => f.Properties.Environment.Variables.CLOUDOPS_DASHBOARDS_OWNER,
        )!.Properties.Environment.Variables.CLOUDOPS_DASHBOARDS_OWNER;
      expect(ownerOf(a)).toBe('CloudOpsProd');
      expect(ownerOf(b)).toBe('CloudOpsStaging');
    } finally {
      for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a deployment on the "default" owner is warned at synth; the derived owner is not', () => {
    const warning = /cloudops:dashboardsOwner is "default"/;
    const warningsOf = (stack: Synthesized['stack']) =>
      Annotations.fromStack(stack)
        .findWarning('*', Match.stringLikeRegexp('dashboardsOwner'))
        .map((w) => (typeof w.entry.data === 'string' ? w.entry.data : ''));
    const shared = synth({ 'cloudops:dashboardsOwner': 'default' });
    try {
      expect(warningsOf(shared.stack).some((w) => warning.test(w))).toBe(true);
    } finally {
      shared.cleanup();
    }
    expect(warningsOf(main.stack).some((w) => warning.test(w))).toBe(false);
  });

  it('a long stack name still gives a valid, distinct owner', () => {
    const long = dashboardsOwnerFor('cloudops-production-eu-west-1-team-data');
    const other = dashboardsOwnerFor('cloudops-production-eu-west-1-team-apps');
    expect(long).toMatch(/^[A-Za-z0-9._-]{1,23}$/);
    expect(long).not.toBe(other);
  });
});
