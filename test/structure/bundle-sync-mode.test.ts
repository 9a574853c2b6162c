/**
 * The sync is bundled from the entry of its schedule mode (cdk/constructs/dashboard-sync.ts):
 * the repair entry, the stack's default, tells no drift, so it carries neither the watch engine
 * nor a notifier nor the SNS client; the report entry carries the watch engine and, as the stack
 * builds it (Notifications.bundleDefines), only the notifiers its deployment binds. Neither carries the dry
 * run (validateDashboard and its schemas): the deployed sync plans offline, and its clients are
 * SYNC_KIT's (lib/api/kit.ts), while the CLI's full client keeps it.
 * Bundled as the other structure tests bundle them (./function-bundle.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleOf, definesPerDeployment } from './function-bundle';

const REPAIR = 'functions/sync-dashboards/handler.ts';
const REPORT = 'functions/sync-dashboards/report-handler.ts';

/** The repo files of `entry`'s bundle and the SDK packages it imports (external there). */
async function contentsOf(entry: string) {
  const { files, text } = await bundleOf(entry);
  const sdk = [...text.matchAll(/from "(@aws-sdk\/[^"]+)"/g)].map((m) => m[1]);
  return { files, sdk: [...new Set(sdk)].sort() };
}

const watchFiles = (files: string[]) => files.filter((f) => f.startsWith('lib/watch/'));

describe('the sync bundle of each schedule mode', () => {
  it('repair: no watch engine, no notifier, no SNS client, no drift notice', async () => {
    const { files, sdk } = await contentsOf(REPAIR);
    expect(watchFiles(files)).toEqual([]);
    expect(files).not.toContain('lib/dashboards/drift-notice.ts');
    expect(sdk).not.toContain('@aws-sdk/client-sns');
    // What the repair run does use is there.
    expect(files).toContain('lib/dashboards/entry.ts');
    expect(sdk).toEqual(
      expect.arrayContaining([
        '@aws-sdk/client-dynamodb',
        '@aws-sdk/client-eventbridge',
        '@aws-sdk/client-s3',
        '@aws-sdk/client-secrets-manager',
      ]),
    );
  }, 60_000);

  it('report, built without defines (tests, the CLI): the drift notice, the watch engine and its store, every notifier, the SNS client', async () => {
    const { files, sdk } = await contentsOf(REPORT);
    expect(files).toContain('lib/dashboards/drift-notice.ts');
    expect(watchFiles(files)).toEqual(
      expect.arrayContaining([
        'lib/watch/run.ts',
        'lib/watch/dynamo-store.ts',
        'lib/watch/subjects/dashboards.ts',
        'lib/watch/notifiers/sns.ts',
        'lib/watch/notifiers/slack.ts',
        'lib/watch/notifiers/webhook.ts',
        'lib/watch/notifiers/pagerduty.ts',
        'lib/watch/notifiers/eventbridge.ts',
      ]),
    );
    expect(sdk).toEqual(expect.arrayContaining(['@aws-sdk/client-sns', '@aws-sdk/lib-dynamodb']));
  }, 60_000);
});

/** The dry run's operation and its schemas, as esbuild writes them unminified. */
const DRY_RUN = [
  /\basync validateDashboard\(/,
  /\bvar dashboardValidateBody = /,
  /\bvar dashboardValidationAnswer = /,
];

describe('the dry run stays out of the sync', () => {
  it.each([
    ['repair', REPAIR],
    ['report', REPORT],
  ])(
    '%s bundle: no validateDashboard, no validation schemas',
    async (_mode, entry) => {
      const { text } = await bundleOf(entry);
      for (const marker of DRY_RUN) expect(text).not.toMatch(marker);
      // What the sync does send is there: dashboard writes and the objects it keeps.
      expect(text).toMatch(/\bvar dashboardWrite = /);
      expect(text).toMatch(/\blistSavedSearches\b/);
    },
    60_000,
  );

  it("the CLI's clients keep it (the markers above are what a bundle with it holds)", async () => {
    const { text } = await bundleOf('lib/all-clients.ts');
    for (const marker of DRY_RUN) expect(text).toMatch(marker);
  }, 60_000);
});

/** The report-mode stacks whose sync defines the next tests bundle with. */
const REPORT_DEPLOYMENTS: Record<string, Record<string, unknown>> = {
  default: { 'cloudops:dashboardsScheduleMode': 'report' },
  slack: {
    'cloudops:dashboardsScheduleMode': 'report',
    'cloudops:slackWebhookSecretName': 'cloudops/slack',
  },
};
const OPTIONAL_NOTIFIERS = {
  slack: 'lib/watch/notifiers/slack.ts',
  webhook: 'lib/watch/notifiers/webhook.ts',
  pagerduty: 'lib/watch/notifiers/pagerduty.ts',
  routes: 'lib/watch/routes.ts',
};

describe("the report sync's bundle, as the stack builds it, carries the notifiers it binds", () => {
  let defines: Map<string, Record<string, string>>;
  beforeAll(() => {
    defines = definesPerDeployment(REPORT_DEPLOYMENTS, (stack) => stack.dashboardSync.sync);
  });

  it.each([
    ['default', []],
    ['slack', ['slack']],
  ] as const)(
    '%s deployment: SNS, EventBridge and %j',
    async (deployment, kept) => {
      const { files } = await bundleOf(REPORT, { define: defines.get(deployment) });
      const carried = Object.entries(OPTIONAL_NOTIFIERS)
        .filter(([, file]) => files.includes(file))
        .map(([part]) => part);
      expect(carried).toEqual(kept);
      expect(files).toEqual(
        expect.arrayContaining([
          'lib/watch/notifiers/sns.ts',
          'lib/watch/notifiers/eventbridge.ts',
        ]),
      );
      expect(files).toContain('lib/dashboards/drift-notice.ts');
    },
    60_000,
  );
});
