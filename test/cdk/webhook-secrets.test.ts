/**
 * The secrets webhook files reference (`{ secret: <id> }`), as the stack grants them to the sync:
 * read access to exactly the names and ARNs of `cloudops:dashboardWebhookSecrets`, nothing when
 * none is named, the same list in the function's env (it refuses any other reference), a bad
 * entry refused at synth naming the key, and cdk-nag clean either way.
 */
import type { CfnElement } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { list, roleStatements, synth, type Synthesized } from './helpers';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:team/pager-AbC123';
const READ = ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'];

let granted: Synthesized;
let plain: Synthesized;
beforeAll(() => {
  granted = synth({ 'cloudops:dashboardWebhookSecrets': `cloudops/webhooks/checkout,${ARN}` });
  plain = synth();
});
afterAll(() => {
  granted?.cleanup();
  plain?.cleanup();
});

/** The sync role's statements that read a secret other than its own key and token. */
function webhookReads(s: Synthesized) {
  const { stack, template } = s;
  const role = stack.getLogicalId(stack.dashboardSync.sync.role.node.defaultChild as CfnElement);
  const own = [stack.secrets.keys.sync!, stack.secrets.tokens.sync].map((c) =>
    stack.getLogicalId(c.node.defaultChild as CfnElement),
  );
  return roleStatements(template, role).filter(
    (st) =>
      list(st.Action).some((a) => a.startsWith('secretsmanager:')) &&
      !own.some((id) => JSON.stringify(st.Resource).includes(id)),
  );
}

/** The sync function's environment variables, as synthesized. */
function syncEnv(s: Synthesized): Record<string, unknown> {
  const { stack, template } = s;
  const fn = stack.getLogicalId(stack.dashboardSync.sync.fn.node.defaultChild as CfnElement);
  const resources = (template.toJSON() as { Resources: Record<string, unknown> }).Resources;
  const resource = resources[fn] as {
    Properties: { Environment: { Variables: Record<string, unknown> } };
  };
  return resource.Properties.Environment.Variables;
}

describe('the sync reads the webhook secrets the deployment names, and only those', () => {
  it('grants read on each named secret (any version suffix of a name, the ARN as given)', () => {
    const reads = webhookReads(granted);
    expect(reads.flatMap((st) => list(st.Action)).sort()).toEqual([...READ, ...READ].sort());
    const resources = JSON.stringify(reads.map((st) => st.Resource));
    expect(resources).toContain(':secret:cloudops/webhooks/checkout-??????');
    expect(resources).toContain(ARN);
    expect(resources).not.toContain('"*"');
    expect(resources).not.toMatch(/secret:\*|webhooks\/\*/);
  });

  it('tells the function the same list: a reference to any other secret is refused there', () => {
    expect(syncEnv(granted).CLOUDOPS_DASHBOARDS_WEBHOOK_SECRETS).toBe(
      `cloudops/webhooks/checkout,${ARN}`,
    );
    expect(syncEnv(plain).CLOUDOPS_DASHBOARDS_WEBHOOK_SECRETS).toBe('');
  });

  it('grants none when no secret is named', () => {
    expect(webhookReads(plain)).toEqual([]);
  });

  it('refuses an entry that is neither a secret name nor an ARN, naming the key', () => {
    expect(() => synth({ 'cloudops:dashboardWebhookSecrets': 'not a name!' })).toThrow(
      /cloudops:dashboardWebhookSecrets \(or env CLOUDOPS_CDK_DASHBOARD_WEBHOOK_SECRETS\): expected Secrets Manager secret names or complete ARNs/,
    );
  });

  it('refuses an ARN without the -xxxxxx suffix (its grant would never match the secret)', () => {
    expect(() =>
      synth({ 'cloudops:dashboardWebhookSecrets': ARN.replace(/-AbC123$/, '') }),
    ).toThrow(
      /cloudops:dashboardWebhookSecrets \(or env CLOUDOPS_CDK_DASHBOARD_WEBHOOK_SECRETS\): expected Secrets Manager secret names or complete ARNs \(ending in the -xxxxxx/,
    );
  });

  it('takes a name up to the 512 characters Secrets Manager allows, not one more', () => {
    const name = (n: number) => `team/${'a'.repeat(n - 5)}`;
    const long = synth({ 'cloudops:dashboardWebhookSecrets': name(512) });
    long.cleanup();
    expect(() => synth({ 'cloudops:dashboardWebhookSecrets': name(513) })).toThrow(
      /cloudops:dashboardWebhookSecrets/,
    );
  });

  it('cdk-nag: no unacknowledged finding with the grants', () => {
    for (const pack of [new AwsSolutionsChecks(), new ServerlessChecks()]) {
      const report = pack.validateScope(granted.stack);
      const findings = report.violations.map(
        (v) =>
          `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
      );
      expect(findings, pack.readPackName).toEqual([]);
    }
  });
});
