/**
 * Routing per team: which notifiers each notice is owed (pure), the table's checks (each
 * problem names its field), and the notifiers a table configures.
 */
import { describe, expect, it } from 'vitest';
import { readEnv } from '../../../lib/config';
import type { Notice } from '../../../lib/watch/notice';
import { configuredNotifiers, notifierEnv } from '../../../lib/watch/notifiers/registry';
import { createNotifiers } from '../../../lib/watch/notifiers/set';
import { routeNotice, routeTable, type RouteTable } from '../../../lib/watch/routes';
import type { PipeNotice } from '../../../lib/watch/subjects/pipe';
import { driftNotice, failedPipeNotice, renderAny } from '../../support/notices';

const pipe = (over: Partial<PipeNotice> = {}): PipeNotice =>
  failedPipeNotice({
    pipeId: 'p1',
    pipeName: 'orders-eu',
    sourceKind: 'kafka',
    message: 'Pipe orders-eu went from Running to Failed',
    ...over,
  });
const drift = driftNotice();

const table = (value: unknown): RouteTable => routeTable.parse(value);
const DEFAULTS = { notifiers: ['sns', 'slack', 'eventbridge'], always: ['eventbridge'] };
const owed = (t: RouteTable, n: Notice) =>
  [...routeNotice(t, n, renderAny(n).routing, DEFAULTS)].sort();

describe('routeNotice', () => {
  const teams = table({
    routes: [
      { name: 'orders', pipeNames: ['orders-*'], destinations: { slack: { secretId: 's/a' } } },
      { name: 'cdc', sourceKinds: ['postgres', 'mysql'], notify: ['sns'] },
      { name: 'one', pipeIds: ['p9'], notify: ['slack'] },
    ],
  });

  it("a team's pipes go to its own destination (and the bus), not to the default set", () => {
    expect(owed(teams, pipe())).toEqual(['eventbridge', 'slack:orders']);
    expect(owed(teams, pipe({ pipeName: 'billing', sourceKind: 'postgres' }))).toEqual([
      'eventbridge',
      'sns',
    ]);
    expect(owed(teams, pipe({ pipeId: 'p9', pipeName: 'x' }))).toEqual(['eventbridge', 'slack']);
  });

  it('a notice no route matches goes to the default set; a glob matches the whole name', () => {
    expect(owed(teams, pipe({ pipeName: 'my-orders-eu', sourceKind: 'kafka' }))).toEqual([
      'eventbridge',
      'slack',
      'sns',
    ]);
    expect(owed(teams, pipe({ pipeName: 'orders', sourceKind: undefined }))).toEqual([
      'eventbridge',
      'slack',
      'sns',
    ]);
  });

  it('every matcher a route sets must hold; several routes add up', () => {
    const both = table({
      routes: [
        { name: 'a', pipeNames: ['orders-??'], sourceKinds: ['kafka'], notify: ['sns'] },
        { name: 'b', pipeIds: ['p1'], notify: ['slack'] },
      ],
    });
    expect(owed(both, pipe())).toEqual(['eventbridge', 'slack', 'sns']);
    expect(owed(both, pipe({ sourceKind: 'kinesis' }))).toEqual(['eventbridge', 'slack']);
  });

  it('notices that are not about a pipe go to the default set unless a route names their subject', () => {
    expect(owed(teams, drift)).toEqual(['eventbridge', 'slack', 'sns']);
    const bySubject = table({
      routes: [{ name: 'web', subjects: ['dashboards'], notify: ['slack'] }],
    });
    expect(owed(bySubject, drift)).toEqual(['eventbridge', 'slack']);
    expect(owed(bySubject, pipe())).toEqual(['eventbridge', 'slack', 'sns']);
  });

  it('a severity floor drops what is below it, never the recovery that closes an incident', () => {
    const paging = table({
      routes: [{ name: 'pager', pipeIds: ['p1'], notify: ['slack'], minSeverity: 'critical' }],
    });
    expect(owed(paging, pipe({ severity: 'warning', kind: 'stuck' }))).toEqual(['eventbridge']);
    expect(owed(paging, pipe())).toEqual(['eventbridge', 'slack']);
    expect(owed(paging, pipe({ severity: 'info', kind: 'recovery', resolves: true }))).toEqual([
      'eventbridge',
      'slack',
    ]);
  });

  it('`default` and `always` replace the built-in sets', () => {
    const own = table({
      routes: [{ name: 'x', pipeIds: ['p9'], notify: ['slack'] }],
      default: ['sns'],
      always: [],
    });
    expect(owed(own, pipe())).toEqual(['sns']);
  });
});

describe('the routing table from env', () => {
  const env = (routes: unknown, extra: Record<string, string> = {}) =>
    readEnv(notifierEnv, {
      CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: 'arn:aws:sns:eu-west-1:1:t',
      CLOUDOPS_WATCHDOG_EVENT_BUS: 'bus',
      CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL:
        'https://hooks.slack.com/services/T0/B0/defaultslacktoken',
      CLOUDOPS_WATCHDOG_ROUTES: JSON.stringify(routes),
      ...extra,
    });

  it('each problem names its field', () => {
    const problems = (routes: unknown) => {
      try {
        env(routes);
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(problems({ routes: [{ name: 'a', pipeNames: ['x'], notfy: ['sns'] }] })).toMatch(
      /CLOUDOPS_WATCHDOG_ROUTES\.routes\[0\]: Unrecognized key: "notfy"/,
    );
    expect(problems({ routes: [{ name: 'a', notify: ['sns'] }] })).toMatch(
      /routes\[0\]: expected at least one of pipeIds, pipeNames, sourceKinds, subjects/,
    );
    expect(
      problems({
        routes: [
          { name: 'a', pipeIds: ['p'], notify: ['sns'] },
          { name: 'a', pipeIds: ['q'], notify: ['sns'] },
        ],
      }),
    ).toMatch(/routes\[1\]\.name: used twice/);
    expect(problems('{')).toMatch(/CLOUDOPS_WATCHDOG_ROUTES: /);
  });

  it("names a notifier that is not configured, or an own destination a notifier can't have", () => {
    const configure = (routes: unknown) => () => configuredNotifiers(env(routes), renderAny);
    expect(configure({ routes: [{ name: 'a', pipeIds: ['p'], notify: ['pagerduty'] }] })).toThrow(
      'invalid CLOUDOPS_WATCHDOG_ROUTES: routes[0].notify[0]: "pagerduty" is not one of sns, slack, eventbridge',
    );
    expect(
      configure({
        routes: [{ name: 'a', pipeIds: ['p'], destinations: { sns: { secretId: 'x' } } }],
      }),
    ).toThrow(/routes\[0\]\.destinations\.sns: expected one of slack, webhook, pagerduty/);
    expect(
      configure({
        routes: [{ name: 'a', pipeIds: ['p'], destinations: { slack: { url: 'not a url' } } }],
      }),
    ).toThrow(/routes\[0\]\.destinations\.slack\.url: /);
  });

  it("a route's own destination is a notifier of its own; each notifier takes only what is routed to it", () => {
    const configured = configuredNotifiers(
      env({
        routes: [
          {
            name: 'orders',
            pipeNames: ['orders-*'],
            destinations: {
              slack: { url: 'https://hooks.slack.com/services/T1/B1/ordersteamslacktoken' },
            },
          },
        ],
      }),
      renderAny,
    );
    expect(configured.map((c) => c.name)).toEqual(['sns', 'slack', 'eventbridge', 'slack:orders']);
    const notifiers = createNotifiers(configured);
    const takes = (n: Notice) => notifiers.filter((x) => x.accepts!(n)).map((x) => x.name);
    expect(takes(pipe())).toEqual(['eventbridge', 'slack:orders']);
    expect(takes(pipe({ pipeName: 'billing' }))).toEqual(['sns', 'slack', 'eventbridge']);
  });
});
