/** Notices the notifier and routing tests share: a pipe that failed, a dashboards drift. */
import type { RenderNotice } from '../../lib/watch/notice';
import { DASHBOARDS_NOTICES, type DashboardsNotice } from '../../lib/watch/subjects/dashboards';
import { KEY_NOTICES } from '../../lib/watch/subjects/key';
import type { PipeNotice } from '../../lib/watch/subjects/pipe';
import { WATCHDOG_NOTICES } from '../../lib/watch/subjects/watchdog';

/**
 * A notice of any subject rendered by its watcher's set: the notifier tests send every subject
 * through one notifier.
 */
export const renderAny: RenderNotice = (n) =>
  (n.subject === 'key'
    ? KEY_NOTICES
    : n.subject === 'dashboards'
      ? DASHBOARDS_NOTICES
      : WATCHDOG_NOTICES
  ).render(n);

export const failedPipeNotice = (over: Partial<PipeNotice> = {}): PipeNotice => ({
  subject: 'pipe',
  id: 'org/svc/p1/transition/1',
  dedupKey: 'pipe/org-1/svc-1/pipe-1/health',
  resolves: false,
  kind: 'transition',
  severity: 'critical',
  organizationId: 'org-1',
  serviceId: 'svc-1',
  pipeId: 'pipe-1',
  pipeName: 'orders',
  from: 'Running',
  to: 'Failed',
  at: '2025-01-01T00:05:00.000Z',
  since: '2025-01-01T00:05:00.000Z',
  message: 'Pipe orders went from Running to Failed',
  ...over,
});

export const driftNotice = (over: Partial<DashboardsNotice> = {}): DashboardsNotice => ({
  subject: 'dashboards',
  id: 'dashboards/prod/drift/transition/1',
  dedupKey: 'dashboards/prod/drift',
  resolves: false,
  kind: 'transition',
  severity: 'warning',
  from: 'InSync',
  to: 'Drifted',
  at: '2025-01-01T00:05:00.000Z',
  since: '2025-01-01T00:05:00.000Z',
  message: 'Dashboards of prod drifted from s3://b/dashboards/: Plan: 0 to create, 1 to update',
  owner: 'prod',
  source: 's3://b/dashboards/',
  markdown: '```diff\n~ dashboard "x"\n```',
  ...over,
});
