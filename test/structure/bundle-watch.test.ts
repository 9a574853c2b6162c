/**
 * Each watcher's function bundles the notice subjects it tells about and the notifiers the stack
 * binds it to, and nothing of the other watchers': the key sentinel its findings through SNS
 * alone, the watchdog consumer its pipes and services, the sync (report mode) its dashboards'
 * drift, both through every notifier. The engine (delivery, ledger, claims) is one copy in each,
 * and none carries the CLI's file store.
 * Bundled as the other structure tests bundle them (./function-bundle.ts).
 */
import { describe, expect, it } from 'vitest';
import { bundleOf } from './function-bundle';

/** The repo files of `entry`'s bundle, and the SDK packages it imports (external there). */
async function bundledFiles(entry: string): Promise<string[]> {
  const { files, text } = await bundleOf(entry);
  const sdk = [...text.matchAll(/from "(@aws-sdk\/[^"]+)"/g)].map((m) => `${m[1]}/`);
  return [...files, ...sdk];
}

const SUBJECTS = {
  pipe: ['lib/watch/subjects/pipe.ts', 'lib/watch/subjects/pipe-hints.ts'],
  service: ['lib/watch/subjects/service.ts'],
  dashboards: ['lib/watch/subjects/dashboards.ts'],
  key: ['lib/watch/subjects/key.ts'],
} as const;
type Subject = keyof typeof SUBJECTS;

const NOTIFIERS = {
  sns: ['lib/watch/notifiers/sns.ts'],
  slack: ['lib/watch/notifiers/slack.ts', 'lib/watch/notifiers/slack-text.ts'],
  webhook: ['lib/watch/notifiers/webhook.ts'],
  pagerduty: ['lib/watch/notifiers/pagerduty.ts'],
  eventbridge: ['lib/watch/notifiers/eventbridge.ts', '@aws-sdk/client-eventbridge/'],
  /** Routes and the registry of every notifier come with more than one notifier. */
  routing: ['lib/watch/notifiers/registry.ts', 'lib/watch/routes.ts'],
} as const;
type NotifierPart = keyof typeof NOTIFIERS;

const ENGINE = ['lib/watch/delivery.ts', 'lib/watch/ledger.ts', 'lib/watch/claims.ts'];

const WATCHERS: { entry: string; subjects: Subject[]; notifiers: NotifierPart[] }[] = [
  { entry: 'functions/rotate-key/sentinel.ts', subjects: ['key'], notifiers: ['sns'] },
  {
    entry: 'functions/pipe-watchdog/consumer.ts',
    subjects: ['pipe', 'service'],
    notifiers: ['sns', 'slack', 'webhook', 'pagerduty', 'eventbridge', 'routing'],
  },
  {
    entry: 'functions/sync-dashboards/report-handler.ts',
    subjects: ['dashboards'],
    notifiers: ['sns', 'slack', 'webhook', 'pagerduty', 'eventbridge', 'routing'],
  },
];

/** The names of `table` whose every file is in `files`; a name with only some of them is an error. */
function carried<K extends string>(table: Record<K, readonly string[]>, files: string[]): K[] {
  const has = (part: string) => files.some((f) => f === part || f.startsWith(part));
  return (Object.keys(table) as K[]).filter((name) => {
    const found = table[name].filter(has);
    if (found.length > 0 && found.length < table[name].length)
      throw new Error(`${name}: only ${found.join(', ')} of ${table[name].join(', ')}`);
    return found.length > 0;
  });
}

describe("each watcher's bundle carries its own subjects and notifiers", () => {
  it.each(WATCHERS)(
    '$entry: subjects $subjects, notifiers $notifiers',
    async ({ entry, subjects, notifiers }) => {
      const files = await bundledFiles(entry);
      expect(carried(SUBJECTS, files).sort()).toEqual([...subjects].sort());
      expect(carried(NOTIFIERS, files).sort()).toEqual([...notifiers].sort());
      expect(ENGINE.filter((f) => files.includes(f))).toEqual(ENGINE);
      // Records live in DynamoDB: the CLI's file store stays out.
      expect(files).not.toContain('lib/watch/local-store.ts');
      // The sets of the other watchers stay out with their subjects.
      const sets = files.filter((f) => f === 'lib/watch/subjects/watchdog.ts');
      expect(sets.length).toBe(subjects.includes('pipe') ? 1 : 0);
    },
    60_000,
  );
});
