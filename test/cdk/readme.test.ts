/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- synthesized CloudFormation JSON is untyped */
/**
 * cdk/README.md is checked against the code and the synthesized template, so it cannot drift:
 * its settings table lists exactly the keys cdk/config.ts accepts (and which are required), its
 * watchdog table every variable the watchdog reads and where a deployment's value comes from,
 * and its seeding section every secret the template makes, with shapes the functions accept.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CfnElement } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTEXT_KEYS, stackConfigSchema, WATCHDOG_CONTEXT_KEYS } from '../../cdk/config';
import { REPO_ROOT } from '../../cdk/constructs/function';
import { watchdogEnv } from '../../lib/pipes/config';
import { managementKeySecret, observabilityTokenSecret } from '../../lib/schemas';
import { BASE_CONTEXT, synth, type Synthesized } from './helpers';

const README = readFileSync(path.join(REPO_ROOT, 'cdk/README.md'), 'utf8');

/** The text of one `##`/`###` section, up to the next heading of any level. */
function section(title: string): string {
  const start = README.search(new RegExp(`^#{2,3} ${title}$`, 'm'));
  if (start < 0) throw new Error(`cdk/README.md has no section "${title}"`);
  const rest = README.slice(start).split('\n').slice(1).join('\n');
  const end = rest.search(/^#{2,3} /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Rows of the markdown tables in a section whose first cell is code: [first, ...other cells]. */
function rows(text: string): string[][] {
  return [...text.matchAll(/^\| `([^`]+)` +\|(.*)\|$/gm)].map(([, first, rest]) => [
    first,
    ...rest.split('|').map((cell) => cell.trim()),
  ]);
}

/** Every watchdog tunable set, so each variable a deployment can set is in the template. */
const WATCHDOG_VALUES: Record<keyof typeof WATCHDOG_CONTEXT_KEYS, unknown> = {
  'cloudops:watchdogLinkTemplate': 'https://console.example/{pipeId}',
  'cloudops:watchdogIncludePipes': 'p1,p2',
  'cloudops:watchdogExcludePipes': 'p3',
  'cloudops:watchdogExpectedStopped': 'p4',
  'cloudops:watchdogStuckMinutes': 30,
  'cloudops:watchdogReminderMinutes': 240,
  'cloudops:watchdogFlapMaxChanges': 3,
  'cloudops:watchdogFlapWindowMinutes': 15,
  'cloudops:watchdogFlapStableMinutes': 15,
  'cloudops:watchdogAnnounceNew': 'false',
  'cloudops:watchdogSelfWatchFailures': 3,
  'cloudops:watchdogAutoRestart': 'true',
  'cloudops:watchdogAutoRestartMax': 2,
  'cloudops:watchdogAutoRestartWindowMinutes': 60,
  'cloudops:watchdogStallMinutes': 30,
  'cloudops:watchdogExpectTraffic': 'orders-*',
  'cloudops:watchdogErrorsPerRun': 0,
  'cloudops:watchdogApiDeadlineMs': 20000,
  'cloudops:watchdogServicesPerMessage': 10,
  'cloudops:watchdogPagerDutyUrl': 'https://events.eu.pagerduty.com/v2/enqueue',
};

let everything: Synthesized;
let openSource: Synthesized;
beforeAll(() => {
  everything = synth({
    ...WATCHDOG_VALUES,
    'cloudops:adminSecret': 'true',
    'cloudops:slackWebhookSecretName': 'cloudops/slack',
    'cloudops:webhookSecretName': 'cloudops/webhook',
    'cloudops:pagerdutySecretName': 'cloudops/pagerduty',
    'cloudops:watchdogRoutes': {
      routes: [{ name: 'team-a', pipeNames: ['orders-*'], notify: ['pagerduty'] }],
    },
  });
  openSource = synth({ 'cloudops:observabilityMode': 'open-source' });
});
afterAll(() => {
  everything?.cleanup();
  openSource?.cleanup();
});

describe('cdk/README.md: settings', () => {
  const table = () => rows(section('Configure')).filter(([key]) => key.startsWith('cloudops:'));

  it('lists every context key cdk/config.ts accepts, once, and no other', () => {
    const listed = table().map(([key]) => key);
    expect([...listed].sort()).toEqual([...CONTEXT_KEYS].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('says "required" exactly for the keys synth cannot do without (what the tests synthesize with)', () => {
    const required = table()
      .filter(([, requirement]) => requirement === 'required')
      .map(([key]) => key)
      .sort();
    const schemaRequired = CONTEXT_KEYS.filter(
      (key) => !stackConfigSchema.shape[key].safeParse(undefined).success,
    ).sort();
    expect(required).toEqual(schemaRequired);
    expect(Object.keys(BASE_CONTEXT).sort()).toEqual(required);
  });
});

describe("cdk/README.md: the watchdog's settings", () => {
  const envOf = (s: Synthesized) =>
    s.template.toJSON().Resources[
      s.stack.getLogicalId(s.stack.pipeWatchdog.consumer.fn.node.defaultChild as CfnElement)
    ].Properties.Environment.Variables as Record<string, unknown>;

  it('lists every variable the watchdog reads, and where a deployment gets each one is true', () => {
    const listed = rows(section("The watchdog's settings"));
    expect(listed.map(([name]) => name).sort()).toEqual(Object.keys(watchdogEnv.shape).sort());
    const env = envOf(everything);
    const byVariable = Object.fromEntries(
      Object.entries(WATCHDOG_CONTEXT_KEYS).map(([key, variable]) => [variable, key]),
    );
    for (const [variable, from] of listed) {
      if (from.startsWith('local runs only')) {
        expect(env, variable).not.toHaveProperty(variable);
        continue;
      }
      expect(env, `${variable} (${from})`).toHaveProperty(variable);
      const key = /^`(cloudops:[A-Za-z]+)`$/.exec(from)?.[1];
      if (key && byVariable[variable]) expect(key, variable).toBe(byVariable[variable]);
      if (!key) expect(from, variable).toMatch(/^the stack/);
    }
  });
});

describe('cdk/README.md: seeding the secrets', () => {
  const seeding = () => section('Seeding the secrets');
  const secretOutputs = (s: Synthesized) =>
    Object.keys(s.template.toJSON().Outputs as Record<string, unknown>)
      .filter((name) => name.endsWith('SecretArn'))
      .sort();
  const table = () => rows(seeding()).filter(([output]) => output.endsWith('SecretArn'));

  it('names every secret the template makes, and when it makes it', () => {
    const listed = table();
    expect(listed.map(([output]) => output).sort()).toEqual(secretOutputs(everything));
    const always = listed.filter(([, , when]) => when === 'always').map(([output]) => output);
    expect(always.sort()).toEqual(secretOutputs(openSource));
    // Each output names a secret the template really makes.
    const secrets = Object.keys(everything.template.findResources('AWS::SecretsManager::Secret'));
    for (const [output] of listed) {
      const value = everything.template.toJSON().Outputs[output].Value;
      expect(secrets, output).toContain(value.Ref);
    }
  });

  it('shows shapes the functions accept: every field known, every required field there', () => {
    const block = /```json\n([\s\S]+?)```/.exec(seeding())?.[1];
    const shapes = JSON.parse(block!) as Record<string, Record<string, string>>;
    expect(Object.keys(shapes).sort()).toEqual(
      [...new Set(table().map(([, , , shape]) => shape))].sort(),
    );
    const schemas = {
      'management key': managementKeySecret,
      token: observabilityTokenSecret._zod.innerType,
    };
    for (const [name, example] of Object.entries(shapes)) {
      const shape = schemas[name as keyof typeof schemas].shape as Record<
        string,
        { safeParse(value: unknown): { success: boolean } }
      >;
      const fields = Object.keys(shape);
      for (const field of Object.keys(example)) expect(fields, `${name}.${field}`).toContain(field);
      const required = fields.filter((f) => !shape[f].safeParse(undefined).success);
      for (const field of required)
        expect(Object.keys(example), `${name}.${field}`).toContain(field);
    }
  });

  it('says once what an unseeded secret does, and why the keys must differ', () => {
    const text = README.replace(/\s+/g, ' ');
    expect(text.match(/not configured yet/g)).toHaveLength(1);
    expect(text).not.toMatch(/fail \(and alarm\)/);
    expect(text).toMatch(/The keys must be different API keys\./);
  });
});
