/** Synthesizes the stack without bundling (fast) into a temp folder the caller removes. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../cdk/build';
import type { CloudOpsStack } from '../../cdk/stack';

export const ORG_ID = '11111111-1111-4111-8111-111111111111';
export const SERVICE_IDS = [
  '22222222-2222-4222-8222-222222222222',
  '33333333-3333-4333-8333-333333333333',
];

export const BASE_CONTEXT: Record<string, unknown> = {
  'cloudops:apiUrl': 'https://api.example.test/v1',
  'cloudops:observabilityUrl': 'https://obs.example.test',
  'cloudops:organizationId': ORG_ID,
  'cloudops:serviceIds': SERVICE_IDS.join(','),
};

export interface Synthesized {
  stack: CloudOpsStack;
  template: Template;
  /** The cloud assembly folder (templates, staged assets). */
  outdir: string;
  cleanup: () => void;
}

export function synth(context: Record<string, unknown> = {}): Synthesized {
  const outdir = mkdtempSync(path.join(tmpdir(), 'cloudops-cdk-test-'));
  try {
    const { stack } = buildApp({
      outdir,
      bundling: false,
      cfnValidation: false,
      treeMetadata: false,
      context: { ...BASE_CONTEXT, ...context },
      env: {},
    });
    const template = Template.fromStack(stack);
    return {
      stack,
      template,
      outdir,
      cleanup: () => rmSync(outdir, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(outdir, { recursive: true, force: true });
    throw error;
  }
}

type Json = unknown;

/** Logical ids an intrinsic value refers to (Ref, Fn::GetAtt, nested in Fn::Join / Fn::Sub). */
export function referencedIds(value: Json): string[] {
  if (Array.isArray(value)) return value.flatMap(referencedIds);
  if (value && typeof value === 'object') {
    const o = value as Record<string, Json>;
    if (typeof o.Ref === 'string') return o.Ref.startsWith('AWS::') ? [] : [o.Ref];
    if (Array.isArray(o['Fn::GetAtt'])) return [String(o['Fn::GetAtt'][0])];
    return Object.values(o).flatMap(referencedIds);
  }
  return [];
}

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: Json;
  Condition?: Json;
}

/** Every statement of every inline policy attached to a role (by the role's logical id). */
export function roleStatements(template: Template, roleId: string): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy') as Record<
    string,
    { Properties: { Roles: Json[]; PolicyDocument: { Statement: Statement[] } } }
  >;
  return Object.values(policies)
    .filter((p) => p.Properties.Roles.some((r) => referencedIds(r).includes(roleId)))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

export const list = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);
