/**
 * CPU time to validate 1,000 dashboard files of 20 tiles each (issue 12: ≤ 1 s of CPU): YAML
 * files as people write them (series with source names, filters, groupBy, some alerts, a config
 * tile), validated in memory (parse, limits, variables, schema, grid rules) as
 * `dashboards validate` does after reading. CPU is user + system of this process
 * (process.cpuUsage), median of 5 runs after one warm-up run.
 *   npx tsx bench/figures/dashfile.ts
 */
import { validateFiles } from '../../lib/dashboards/validate';
import type { SourceFile } from '../../lib/dashboards/types';
import type { Figure } from './types';

const FILES = 1000;
const TILES = 20;
const RUNS = 5;

function tile(i: number, n: number): string {
  const x = (i % 2) * 12;
  const y = Math.floor(i / 2) * 4;
  if (i % 10 === 9)
    return `  - name: Config ${i}\n    x: ${x}\n    y: ${y}\n    w: 12\n    h: 4\n    config:\n      displayType: line\n      source: Logs\n      select:\n        - { aggFn: avg, valueExpression: Duration, where: "svc:s${n}", whereLanguage: lucene }\n      groupBy: endpoint\n`;
  const alert =
    i % 5 === 0
      ? `    alerts:\n      - name: burst ${i}\n        threshold: ${10 + i}\n        thresholdType: above\n        interval: 5m\n        channel: { type: webhook, webhookId: "\${WEBHOOK_ID}" }\n`
      : '';
  return (
    `  - name: Tile ${i}\n    x: ${x}\n    y: ${y}\n    w: 12\n    h: 4\n    series:\n` +
    `      - type: time\n        source: Logs\n        aggFn: count\n        where: "svc:s${n} tile:${i} level:error"\n        whereLanguage: lucene\n        groupBy: [endpoint, host]\n` +
    alert
  );
}

export function benchFiles(files = FILES, tiles = TILES): SourceFile[] {
  return Array.from({ length: files }, (_, n) => {
    let text = `# yaml-language-server: $schema=./.schema.json\nname: Service ${n}\ntags: [team-${n % 7}, prod]\ntiles:\n`;
    for (let i = 0; i < tiles; i++) text += tile(i, n);
    return { file: `svc/${String(n).padStart(4, '0')}.yaml`, text };
  });
}

async function cpuMs(run: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function measure(): Promise<Figure[]> {
  const files = benchFiles();
  const vars = { WEBHOOK_ID: 'wh-1' };
  const check = async () => {
    const { dashboards, issues } = await validateFiles(files, { vars });
    if (issues.length > 0 || dashboards.length !== FILES)
      throw new Error(`bench files invalid: ${issues.length} issue(s)`);
  };
  await check(); // warm-up (JIT)
  const samples: number[] = [];
  for (let r = 0; r < RUNS; r++) samples.push(await cpuMs(check));
  const value = Math.round(median(samples));
  const bytes = files.reduce((n, f) => n + f.text.length, 0);
  return [
    {
      name: 'dashboards_validate_cpu_ms_1000x20',
      value,
      goal: '<= 1000',
      met: value <= 1000,
      command: 'npx tsx bench/figures/dashfile.ts',
      note: `${FILES} YAML files x ${TILES} tiles (${(bytes / 1024 / 1024).toFixed(1)} MiB), CPU ms of validateFiles, median of ${RUNS} (${samples.map((s) => s.toFixed(0)).join(', ')})`,
    },
  ];
}

if (process.argv[1] === import.meta.filename) {
  console.log(JSON.stringify(await measure(), null, 2));
}
