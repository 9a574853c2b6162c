/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-explicit-any -- synthesized CloudFormation JSON is untyped */
/**
 * The alert provisioning construct: its version table (on demand, point-in-time recovery,
 * encrypted, kept on stack delete), the function's env and least-privilege grants on it, and
 * the open-source variant that neither names nor may read the management key.
 */
import type { IConstruct } from 'constructs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { CfnElement } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { list, referencedIds, roleStatements, synth, type Synthesized } from './helpers';

let managed: Synthesized;
let openSource: Synthesized;

beforeAll(() => {
  managed = synth();
  openSource = synth({ 'cloudops:observabilityMode': 'open-source' });
});
afterAll(() => {
  managed?.cleanup();
  openSource?.cleanup();
});

function parts(s: Synthesized) {
  const { stack, template } = s;
  const id = (c: IConstruct) => stack.getLogicalId(c.node.defaultChild as CfnElement);
  const ap = stack.alertProvisioning;
  const resources = template.toJSON().Resources as Record<string, any>;
  const env = resources[id(ap.provision.fn)].Properties.Environment.Variables as Record<
    string,
    unknown
  >;
  const statements = roleStatements(template, id(ap.provision.role));
  const actionsOn = (target: IConstruct) =>
    statements
      .filter((st) => referencedIds(st.Resource).includes(id(target)))
      .flatMap((st) => list(st.Action))
      .sort();
  return { stack, id, ap, resources, env, statements, actionsOn };
}

describe('alert version table', () => {
  it('is on demand, with point-in-time recovery and encryption, and kept on stack delete', () => {
    const { id, ap, resources } = parts(managed);
    const table = resources[id(ap.versionTable)];
    expect(table.Type).toBe('AWS::DynamoDB::Table');
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('is named to the function by env, which may only get and conditionally update its items', () => {
    const { id, ap, env, actionsOn, statements } = parts(managed);
    expect(referencedIds(env.CLOUDOPS_ALERTS_VERSION_TABLE)).toEqual([id(ap.versionTable)]);
    expect(actionsOn(ap.versionTable)).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    // No DynamoDB action on anything else, no table-wide reads.
    const dynamo = statements.filter((st) =>
      list(st.Action).some((a) => a.startsWith('dynamodb:')),
    );
    for (const st of dynamo) {
      expect(referencedIds(st.Resource)).toEqual([id(ap.versionTable)]);
      expect(list(st.Action)).not.toContain('dynamodb:Scan');
    }
  });
});

describe('credentials by mode', () => {
  it('managed: the key and the token secret, both read-only', () => {
    const { stack, env, actionsOn } = parts(managed);
    expect(env.CLOUDOPS_KEY_SECRET_ID).toBeDefined();
    expect(env.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID).toBeDefined();
    const readOnly = ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'];
    expect(actionsOn(stack.secrets.keys.alerts!)).toEqual(readOnly);
    expect(actionsOn(stack.secrets.tokens.alerts)).toEqual(readOnly);
    // Not the other functions' credentials.
    expect(actionsOn(stack.secrets.keys.sync!)).toEqual([]);
    expect(actionsOn(stack.secrets.tokens.sync)).toEqual([]);
  });

  it('open-source: only the token secret is named and readable', () => {
    const { stack, env, actionsOn } = parts(openSource);
    expect(Object.keys(env).sort()).toEqual([
      'CLOUDOPS_ALERTS_VERSION_TABLE',
      'CLOUDOPS_LOG_LEVEL',
      'CLOUDOPS_OBSERVABILITY_MODE',
      'CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID',
      'CLOUDOPS_OBSERVABILITY_URL',
    ]);
    expect(env.CLOUDOPS_OBSERVABILITY_MODE).toBe('open-source');
    expect(stack.secrets.keys.alerts).toBeUndefined();
    expect(actionsOn(stack.secrets.keys.watchdog!)).toEqual([]);
    expect(actionsOn(stack.secrets.tokens.alerts)).toEqual([
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ]);
  });

  it('both variants pass cdk-nag (AwsSolutions, Serverless)', () => {
    for (const s of [managed, openSource]) {
      for (const pack of [new AwsSolutionsChecks(), new ServerlessChecks()]) {
        const findings = pack
          .validateScope(s.stack.alertProvisioning)
          .violations.map(
            (v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
          );
        expect(findings, pack.readPackName).toEqual([]);
      }
    }
  });
});
