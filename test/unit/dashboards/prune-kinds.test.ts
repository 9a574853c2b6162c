/**
 * Which kinds beside dashboards a plan lists, and prune's empty-source guard for them, against
 * a service holding one owned webhook: without prune only declared kinds are read; with prune
 * the webhook is deleted once its file is gone, unless the source declares nothing at all
 * (refused without allowDeleteAll, as for dashboards).
 */
import { describe, expect, it } from 'vitest';
import type { ObservabilityBackend } from '../../../lib/api/observability-backend';
import { planFolderObjects } from '../../../lib/dashboards/objects-sync';
import { EmptySourcePruneError } from '../../../lib/dashboards/plan';
import { describedWithMarker } from '../../../lib/dashboards/webhook-marker';

const OWNER = 'team';
function service() {
  const calls: string[] = [];
  const backend = {
    mode: 'managed',
    listWebhooks: () => {
      calls.push('webhooks');
      return Promise.resolve([
        {
          id: 'w1',
          name: 'Pager',
          service: 'generic',
          url: 'https://hooks.example.test/x',
          description: describedWithMarker(undefined, { key: 'pager', owner: OWNER }),
        },
      ]);
    },
    listSavedSearches: () => {
      calls.push('saved-searches');
      return Promise.resolve([]);
    },
    listAlerts: () => {
      calls.push('alerts');
      return Promise.resolve([]);
    },
  } as unknown as ObservabilityBackend;
  return { backend, calls };
}

const plan = (input: Partial<Parameters<typeof planFolderObjects>[1]>) => {
  const s = service();
  const run = planFolderObjects([], { owner: OWNER, ...input }, s.backend, {});
  return { run, calls: s.calls };
};

describe('prune over webhooks and saved searches', () => {
  it('without prune, a kind no file declares is not read', async () => {
    const { run, calls } = plan({ declaredDashboards: 1 });
    expect((await run).changes).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('with prune, every kind is read and the orphaned webhook is deleted', async () => {
    const { run, calls } = plan({ prune: true, declaredDashboards: 1 });
    const planned = await run;
    expect(planned.changes.map((c) => [c.kind, c.action, c.id])).toEqual([
      ['webhook', 'delete', 'w1'],
    ]);
    expect([...planned.listed].sort()).toEqual(['savedSearch', 'webhook']);
    expect(calls.sort()).toEqual(['alerts', 'saved-searches', 'webhooks']);
  });

  it('pruneKinds narrows what is read for prune (the deployed sync, from its manifest)', async () => {
    const { run, calls } = plan({ prune: true, declaredDashboards: 1, pruneKinds: [] });
    expect((await run).changes).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('a source that declares nothing at all is refused, unless allowDeleteAll', async () => {
    await expect(plan({ prune: true, declaredDashboards: 0 }).run).rejects.toThrow(
      EmptySourcePruneError,
    );
    await expect(plan({ prune: true, declaredDashboards: 0 }).run).rejects.toThrow(
      /declare no object of any kind, so --prune would delete all 1 webhook\(s\) and saved search\(es\) of owner "team"/,
    );
    const allowed = await plan({ prune: true, declaredDashboards: 0, allowDeleteAll: true }).run;
    expect(allowed.changes.map((c) => c.action)).toEqual(['delete']);
  });
});
