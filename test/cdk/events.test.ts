/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-explicit-any -- synthesized CloudFormation JSON is untyped */
/**
 * Events only from their owners, in the template: every role that may put events may put only
 * its own detail-types under the cloudops source, every rule matches the source it expects, and
 * alert requests are taken only from the sources the deployer lists.
 */
import type { IConstruct } from 'constructs';
import type { CfnElement } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloudOpsFunction } from '../../cdk/constructs/function';
import { list, roleStatements, synth, type Statement, type Synthesized } from './helpers';

let plain: Synthesized;
let configured: Synthesized;

beforeAll(() => {
  plain = synth();
  configured = synth({
    'cloudops:dashboardsScheduleMode': 'report',
    'cloudops:alertRequestSources': 'com.example.ci, team.payments',
  });
});
afterAll(() => {
  plain?.cleanup();
  configured?.cleanup();
});

const logicalId = (s: Synthesized, c: IConstruct) =>
  s.stack.getLogicalId(c.node.defaultChild as CfnElement);

/** The PutEvents statements of every role in the template, by role logical id. */
function putEventsByRole(s: Synthesized): Map<string, Statement[]> {
  const roles = Object.keys(s.template.findResources('AWS::IAM::Role'));
  const out = new Map<string, Statement[]>();
  for (const role of roles) {
    const puts = roleStatements(s.template, role).filter((st) =>
      list(st.Action).some((a) => a === 'events:PutEvents' || a === 'events:*' || a === '*'),
    );
    if (puts.length > 0) out.set(role, puts);
  }
  return out;
}

/** detail-types a role may put (each statement must pin the source to cloudops). */
function allowedDetailTypes(statements: Statement[]): string[] {
  return statements
    .flatMap((st) => {
      const equals = (st.Condition as any)?.StringEquals ?? {};
      expect(list(st.Action)).toEqual(['events:PutEvents']);
      expect(equals['events:source']).toEqual(['cloudops']);
      return list(equals['events:detail-type'] as string[]);
    })
    .sort();
}

describe('who may put which events', () => {
  it('the sync puts Dashboard Synced (and its own continuation), the watchdog consumer Pipe State Changed; nobody else puts any', () => {
    const s = plain.stack;
    const role = (f: CloudOpsFunction) => logicalId(plain, f.role);
    const byRole = putEventsByRole(plain);
    expect([...byRole.keys()].sort()).toEqual(
      [s.dashboardSync.sync, s.pipeWatchdog.consumer].map(role).sort(),
    );
    expect(allowedDetailTypes(byRole.get(role(s.dashboardSync.sync))!)).toEqual([
      'Dashboard Sync Continued',
      'Dashboard Synced',
    ]);
    expect(allowedDetailTypes(byRole.get(role(s.pipeWatchdog.consumer))!)).toEqual([
      'Pipe State Changed',
    ]);
  });

  it('report mode adds Dashboards Drifted to the sync, and only to the sync', () => {
    const s = configured.stack;
    const byRole = putEventsByRole(configured);
    expect(
      allowedDetailTypes(byRole.get(logicalId(configured, s.dashboardSync.sync.role))!),
    ).toEqual(['Dashboard Sync Continued', 'Dashboard Synced', 'Dashboards Drifted']);
    expect(
      allowedDetailTypes(byRole.get(logicalId(configured, s.pipeWatchdog.consumer.role))!),
    ).toEqual(['Pipe State Changed']);
  });
});

describe('rules match the source they expect', () => {
  const rules = (s: Synthesized) =>
    Object.values(s.template.findResources('AWS::Events::Rule')).map(
      (r) => r.Properties.EventPattern as Record<string, string[]>,
    );

  it('Dashboard Synced and the sync continuation only from cloudops; no request rule while no request source is configured', () => {
    expect(rules(plain)).toEqual([
      { source: ['cloudops'], 'detail-type': ['Dashboard Sync Continued'] },
      { source: ['cloudops'], 'detail-type': ['Dashboard Synced'] },
    ]);
    const env =
      plain.template.toJSON().Resources[
        logicalId(plain, plain.stack.alertProvisioning.provision.fn)
      ].Properties.Environment.Variables;
    expect(env).not.toHaveProperty('CLOUDOPS_ALERT_REQUEST_SOURCES');
  });

  it('alert requests only from the configured sources, which the function is told too', () => {
    expect(rules(configured)).toContainEqual({
      source: ['com.example.ci', 'team.payments'],
      'detail-type': ['Alert Provision Requested'],
    });
    for (const pattern of rules(configured)) expect(pattern.source?.length).toBeGreaterThan(0);
    const env =
      configured.template.toJSON().Resources[
        logicalId(configured, configured.stack.alertProvisioning.provision.fn)
      ].Properties.Environment.Variables;
    expect(env.CLOUDOPS_ALERT_REQUEST_SOURCES).toBe('com.example.ci,team.payments');
  });

  it('a request source EventBridge reserves (aws.*) fails synth naming the key', () => {
    expect(() => synth({ 'cloudops:alertRequestSources': 'aws.events' })).toThrow(
      /cloudops:alertRequestSources .*not aws\.\*/,
    );
  });
});
