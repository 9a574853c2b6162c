import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCapture } from '../../support/cli';
import { dashboardFileJsonSchema, folderFileJsonSchema } from '../../../lib/dashboards/json-schema';
import { formatFileIssue, validateFiles } from '../../../lib/dashboards/validate';

const DIR = path.join(import.meta.dirname, '../../../dashboards');
const VARS = {
  WEBHOOK_ID: 'wh-1',
  ALERTS_WEBHOOK_URL: 'https://hooks.example.test/checkout',
  ALERTS_WEBHOOK_TOKEN: 'Token example',
  STAGING: '0b6f0d37-5a0e-4c3e-9f1e-3a2b1c0d9e8f',
  PRODUCTION: '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
};

async function exampleFiles() {
  const entries = await readdir(DIR, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries
      .filter((e) => e.isFile() && /\.(ya?ml|json)$/.test(e.name) && !e.name.startsWith('.'))
      .map(async (e) => {
        const full = path.join(e.parentPath, e.name);
        return { file: path.relative(DIR, full), text: await readFile(full, 'utf8') };
      }),
  );
}

describe('dashboards/ README and example files', () => {
  it('every yaml block of the README parses and validates', async () => {
    const readme = await readFile(path.join(DIR, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const { issues } = await validateFiles(
      blocks.map((text, i) => ({ file: `README-${i}.yaml`, text })),
      { vars: VARS },
    );
    expect(issues.map(formatFileIssue)).toEqual([]);
    // The old README form (an unquoted placeholder in a flow map) is a YAML error.
    const old = readme.replace("webhookId: '${WEBHOOK_ID}'", 'webhookId: ${WEBHOOK_ID}');
    const oldBlock = /```yaml\n([\s\S]*?)```/.exec(old)![1];
    expect(
      (await validateFiles([{ file: 'old.yaml', text: oldBlock }], { vars: VARS })).issues[0]
        .message,
    ).toMatch(/^YAML syntax/);
  });

  it('the example files validate and reference the committed schema, which is current', async () => {
    const files = await exampleFiles();
    expect(files.length).toBeGreaterThanOrEqual(3);
    expect((await validateFiles(files, { vars: VARS })).issues.map(formatFileIssue)).toEqual([]);
    const committed = JSON.parse(await readFile(path.join(DIR, '.schema.json'), 'utf8')) as unknown;
    expect(committed).toEqual(folderFileJsonSchema());
    // One example of each kind, the webhook named by a tile alert and by the search's alert.
    const { objects, dashboards } = await validateFiles(files, { vars: VARS });
    expect(objects.webhooks.map((w) => w.name)).toEqual(['Checkout alerts']);
    expect(objects.savedSearches[0].alerts[0].channel.webhook).toBe('Checkout alerts');
    const tileAlerts = dashboards.flatMap((d) => d.tiles.flatMap((t) => t.alerts));
    expect(tileAlerts.some((a) => a.channel.webhook === 'Checkout alerts')).toBe(true);
    for (const { file, text } of files) {
      const ref = file.endsWith('.json')
        ? (JSON.parse(text) as { $schema?: string }).$schema
        : /^# yaml-language-server: \$schema=(\S+)$/m.exec(text)?.[1];
      expect(ref, file).toBeDefined();
      expect(path.resolve(DIR, path.dirname(file), ref!)).toBe(path.join(DIR, '.schema.json'));
    }
  });

  it('in the JSON Schema a service is an id or a ${NAME} placeholder (editors see files unreplaced)', () => {
    const schema = dashboardFileJsonSchema() as {
      properties: { services: { items: { anyOf: { pattern: string }[] } } };
    };
    const ok = (v: string) =>
      schema.properties.services.items.anyOf.some((a) => new RegExp(a.pattern).test(v));
    expect(ok(VARS.STAGING)).toBe(true);
    expect(ok('${STAGING}')).toBe(true);
    expect(ok('staging')).toBe(false);
  });

  it('the JSON Schema describes every field', () => {
    const missing: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}[${i}]`));
      if (node === null || typeof node !== 'object') return;
      const o = node as Record<string, unknown>;
      if (o.properties && typeof o.properties === 'object') {
        for (const [k, v] of Object.entries(o.properties)) {
          const d = v as { description?: string; anyOf?: { description?: string }[] };
          if (!d.description && !d.anyOf?.some((x) => x.description)) missing.push(`${at}.${k}`);
        }
      }
      for (const [k, v] of Object.entries(o)) walk(v, `${at}.${k}`);
    };
    walk(folderFileJsonSchema(), '$');
    expect(missing).toEqual([]);
  });

  it('`dashboards validate --dir` checks offline: 0 for the examples, 1 with one line per problem', async () => {
    const ok = await runCapture(['dashboards', 'validate', '--dir', DIR], {
      env: {
        CLOUDOPS_VAR_WEBHOOK_ID: 'wh-1',
        CLOUDOPS_VAR_ALERTS_WEBHOOK_URL: VARS.ALERTS_WEBHOOK_URL,
        CLOUDOPS_VAR_ALERTS_WEBHOOK_TOKEN: VARS.ALERTS_WEBHOOK_TOKEN,
      },
    });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      /^3 dashboard file\(s\), 1 webhook\(s\), 1 saved search\(es\) valid under .*: 9 tile\(s\), 3 alert\(s\)\./,
    );
    const bad = await runCapture(['dashboards', 'validate', '--dir', DIR]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      'checkout-service.yaml:31:22 tiles[0].alerts[0].channel.webhookId: ${WEBHOOK_ID} is not defined',
    );
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const usage = await runCapture(['dashboards', 'validate']);
    expect(usage.code).toBe(64);
  });
});
