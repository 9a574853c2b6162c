/* eslint-disable @typescript-eslint/no-unsafe-member-access -- synthesized CloudFormation JSON is untyped */
/**
 * PagerDuty and the routing table in the stack: each function that notifies through every
 * notifier gets the PagerDuty secret's name and the table, read access to exactly the secrets
 * the table names, and a bad table stops synth with one line naming the key and the field.
 */
import type { CfnElement } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloudOpsFunction } from '../../cdk/constructs/function';
import { routeTable } from '../../lib/watch/routes';
import { referencedIds, synth, type Synthesized } from './helpers';

const ROUTES = {
  routes: [
    {
      name: 'team-a',
      pipeNames: ['orders-*'],
      notify: ['pagerduty'],
      destinations: { slack: { secretId: 'team-a/slack' } },
      minSeverity: 'warning',
    },
    {
      name: 'team-b',
      sourceKinds: ['kafka'],
      destinations: { webhook: { secretId: 'team-b/hook' } },
    },
  ],
};

let s: Synthesized;
beforeAll(() => {
  s = synth({
    'cloudops:slackWebhookSecretName': 'cloudops/slack',
    'cloudops:pagerdutySecretName': 'cloudops/pagerduty',
    'cloudops:watchdogRoutes': JSON.stringify(ROUTES), // as -c and env give it: text
  });
});
afterAll(() => s?.cleanup());

const roleId = (f: CloudOpsFunction) =>
  s.stack.getLogicalId(f.role.node.defaultChild as CfnElement);
const envOf = (f: CloudOpsFunction) =>
  s.template.toJSON().Resources[s.stack.getLogicalId(f.fn.node.defaultChild as CfnElement)]
    .Properties.Environment.Variables as Record<string, string>;
/** The roles allowed to read the secret of this name. */
const readers = (name: string) =>
  Object.values(s.template.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes(`:secret:${name}-`))
    .flatMap((p) => referencedIds(p.Properties.Roles))
    .sort();

describe('PagerDuty and routes in the stack', () => {
  it('the watchdog consumer gets the PagerDuty secret by name and the table; the schedule (it only enqueues) and the sentinel neither', () => {
    const { watchdog, consumer } = s.stack.pipeWatchdog;
    const env = envOf(consumer);
    expect(env.CLOUDOPS_WATCHDOG_PAGERDUTY_SECRET_ID).toBe('cloudops/pagerduty');
    expect(routeTable.parse(JSON.parse(env.CLOUDOPS_WATCHDOG_ROUTES))).toEqual(
      routeTable.parse(ROUTES),
    );
    expect(env).not.toHaveProperty('CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY');
    expect(envOf(watchdog)).not.toHaveProperty('CLOUDOPS_WATCHDOG_ROUTES');
    expect(envOf(watchdog)).not.toHaveProperty('CLOUDOPS_WATCHDOG_PAGERDUTY_SECRET_ID');
    const sentinel = envOf(s.stack.keyRotation.sentinel);
    expect(sentinel).not.toHaveProperty('CLOUDOPS_WATCHDOG_ROUTES');
    expect(sentinel).not.toHaveProperty('CLOUDOPS_WATCHDOG_PAGERDUTY_SECRET_ID');
  });

  it('read access to exactly the secrets the table names, for exactly the functions routing through it', () => {
    const expected = [roleId(s.stack.pipeWatchdog.consumer)];
    expect(readers('team-a/slack')).toEqual(expected);
    expect(readers('team-b/hook')).toEqual(expected);
    expect(readers('cloudops/pagerduty')).toEqual(expected);
    // No secret named by nobody, and no value in the template.
    expect(readers('cloudops/webhook')).toEqual([]);
    expect(JSON.stringify(s.template.toJSON())).not.toContain('{{resolve:secretsmanager');
  });

  it('a bad table stops synth with one line naming the key and the field', () => {
    const fails = (routes: unknown) => {
      try {
        synth({ 'cloudops:watchdogRoutes': routes }).cleanup();
      } catch (error) {
        return (error as Error).message;
      }
      return 'synthesized';
    };
    expect(fails({ routes: [{ name: 'Team A', pipeIds: ['p1'], notify: ['sns'] }] })).toMatch(
      /cloudops:watchdogRoutes.*routes\[0\]\.name: expected 1-40 lower-case letters/,
    );
    // A route's own destination as a value would be written into the template.
    expect(
      fails({
        routes: [{ name: 'a', pipeIds: ['p1'], destinations: { slack: { url: 'https://x' } } }],
      }),
    ).toMatch(/routes\[0\]\.destinations\.slack: expected \{ "secretId"/);
    // PagerDuty is named but no cloudops:pagerdutySecretName configures it.
    expect(fails({ routes: [{ name: 'a', pipeIds: ['p1'], notify: ['pagerduty'] }] })).toMatch(
      /cloudops:watchdogRoutes.*routes\[0\]\.notify\[0\]: "pagerduty" is not one of sns, eventbridge/,
    );
    expect(fails('{not json')).toMatch(/cloudops:watchdogRoutes.*expected a JSON routing table/);
    expect(fails('{not json')).not.toContain('\n    at ');
  });
});
