/**
 * AWS Control Tower's proactive controls (cfn-guard rules, bundled with the guard binary in
 * @cdklabs/cdk-validator-cfnguard) against the synthesized template of a stack with every
 * optional part on. A rule the template breaks must be one cdk/README.md lists as an exception
 * with its reason, and every exception listed must still be one the template breaks, so the
 * list stays short and true. The guard binary runs every rule file: about 10 s here.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import type { IPolicyValidationContextBeta1 } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../cdk/constructs/function';
import { synth, type Synthesized } from './helpers';

/** `| \`rule_name\` | CT.X.PR.N | reason |` rows of the README's exceptions table. */
function documentedExceptions(): Map<string, string> {
  const readme = readFileSync(path.join(REPO_ROOT, 'cdk/README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('Control Tower guard rules'));
  if (!section) throw new Error('cdk/README.md has no "Control Tower guard rules" section');
  const rows = [...section.matchAll(/^\| `([a-z0-9_]+)` +\| (CT\.[A-Z0-9.]+) +\| (.+?) *\|$/gm)];
  return new Map(rows.map(([, rule, , reason]) => [rule, reason]));
}

let full: Synthesized;
let folder: string;
let broken: Map<string, string[]>;

beforeAll(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'cloudops-guard-dashboards-'));
  writeFileSync(path.join(folder, 'one.yaml'), 'name: One\ntiles: []\n');
  full = synth({
    'cloudops:adminSecret': 'true',
    'cloudops:dashboardsScheduleMode': 'report',
    'cloudops:dashboardsDir': folder,
    'cloudops:alertRequestSources': 'com.example.ci',
    'cloudops:slackWebhookSecretName': 'cloudops/slack',
    'cloudops:webhookSecretName': 'cloudops/webhook',
  });
  const report = new CfnGuardValidator().validate({
    templatePaths: [path.join(full.outdir, `${full.stack.stackName}.template.json`)],
  } as IPolicyValidationContextBeta1);
  broken = new Map();
  for (const violation of report.violations) {
    const ids = violation.violatingResources.map((r) => r.resourceLogicalId);
    broken.set(violation.ruleName, [...(broken.get(violation.ruleName) ?? []), ...ids]);
  }
}, 120_000);
afterAll(() => {
  full?.cleanup();
  rmSync(folder, { recursive: true, force: true });
});

describe('Control Tower guard rules', () => {
  it('the template passes the rules the review found broken', () => {
    for (const rule of [
      's3_version_lifecycle_policy_check', // a lifecycle rule on the versioned bucket
      's3_lifecycle_policy_check',
      'sqs_dlq_check', // RedriveAllowPolicy on every dead-letter queue
      'dynamodb_table_encrypted_kms_check', // KMS encryption settings on every table
      'kms_create_grant_aws_service_check', // CreateGrant only for AWS resources
      's3_bucket_default_encryption_kms_check',
    ])
      expect(broken.get(rule), rule).toBeUndefined();
  });

  it('every rule it breaks is an exception cdk/README.md states with its reason, and no more', () => {
    const documented = documentedExceptions();
    expect([...broken.keys()].sort()).toEqual([...documented.keys()].sort());
    for (const [rule, reason] of documented) expect(reason.length, rule).toBeGreaterThan(40);
  });
});
