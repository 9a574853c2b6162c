/** The key audit for people: plain text for a terminal, markdown for a PR or an issue. */
import type { FindingSeverity, KeyFinding, KeyListing } from './audit';
import type { KeyAuditReport } from './inventory';

const count = (findings: readonly KeyFinding[], severity: FindingSeverity) =>
  findings.filter((f) => f.severity === severity).length;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function summary(report: KeyAuditReport): string {
  const { findings } = report;
  const scope = `${plural(report.keys.length, 'key')}, ${plural(report.secrets.length, 'key secret')} of ours`;
  if (findings.length === 0) return `no findings (${scope}, ${report.at})`;
  const bySeverity = (['high', 'medium', 'low'] as const)
    .map((s) => `${count(findings, s)} ${s}`)
    .join(', ');
  return `${plural(findings.length, 'finding')}: ${bySeverity} (${scope}, ${report.at})`;
}

export function renderAuditText(report: KeyAuditReport): string {
  const lines = [summary(report)];
  for (const finding of report.findings) {
    lines.push(`${finding.severity.toUpperCase().padEnd(7)} ${finding.message}`);
    lines.push(`        what to do: ${finding.action}`);
  }
  for (const warning of report.warnings) lines.push(`warning: ${warning}`);
  return lines.join('\n');
}

/** Markdown pipes and line breaks in a cell would break the table. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderAuditMarkdown(report: KeyAuditReport): string {
  const lines = ['### Key audit', '', summary(report)];
  if (report.findings.length > 0) {
    lines.push('', '| Severity | Finding | What to do |', '| --- | --- | --- |');
    for (const f of report.findings)
      lines.push(`| ${f.severity} | ${cell(f.message)} | ${cell(f.action)} |`);
  }
  if (report.warnings.length > 0) {
    lines.push('');
    for (const warning of report.warnings) lines.push(`> ${cell(warning)}`);
  }
  return lines.join('\n');
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '-');

/** One line per key, riskiest first, in aligned columns. */
export function renderKeyList(keys: readonly KeyListing[], warnings: readonly string[]): string {
  const header = [
    'RISK',
    'NAME',
    'SUFFIX',
    'ROLES',
    'STATE',
    'CREATED',
    'LAST USED',
    'EXPIRES',
    'IPS',
    'MANAGED BY',
  ];
  const rows = keys.map((k) => [
    k.risk,
    k.name,
    `…${k.suffix}`,
    k.roles.join(',') || '-',
    k.state,
    day(k.createdAt),
    k.usedAt ? day(k.usedAt) : 'never',
    k.expireAt ? day(k.expireAt) : 'never',
    String(k.ipAccessListSize),
    k.managedBy || '-',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [
    line(header),
    ...rows.map(line),
    ...warnings.map((warning) => `warning: ${warning}`),
  ].join('\n');
}
