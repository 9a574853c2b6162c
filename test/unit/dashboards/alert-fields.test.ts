/**
 * The August 2026 alert fields in dashboard files: `numConsecutiveWindows`, the schedule
 * (`scheduleOffsetMinutes` or `scheduleStartAt`, not both, the offset below its interval) and
 * email channels; every problem is one line naming file:line and field, found before any request.
 */
import { describe, expect, it } from 'vitest';
import { dashboardFileJsonSchema } from '../../../lib/dashboards/json-schema';
import { formatFileIssue, validateFiles } from '../../../lib/dashboards/validate';

/** A file with one line tile and its alert fields as given (YAML flow mappings, one per line). */
function file(alert: string[]): string {
  return [
    'name: August', //                                    1
    'tiles:', //                                          2
    '  - name: errors', //                                3
    '    x: 0', //                                        4
    '    y: 0', //                                        5
    '    w: 12', //                                       6
    '    h: 4', //                                        7
    '    config:', //                                     8
    '      displayType: line', //                         9
    '      sourceId: 0123456789abcdef01234567', //        10
    '      select: [{ aggFn: count }]', //                11
    '    alerts:', //                                     12
    '      - name: hi', //                                13
    '        threshold: 3', //                            14
    '        thresholdType: above', //                    15
    ...alert.map((l) => `        ${l}`), //               16...
  ].join('\n');
}
const check = async (alert: string[]) =>
  (await validateFiles([{ file: 'a.yaml', text: file(alert) }])).issues.map(formatFileIssue);
const webhook = 'channel: { type: webhook, webhook: ops }';

describe('alert fields of a dashboard file', () => {
  it('accepts the new fields and keeps them on the desired alert', async () => {
    const email = 'channel: { type: email, emailRecipients: [oncall@example.com, b@example.org] }';
    const { dashboards, issues } = await validateFiles([
      {
        file: 'a.yaml',
        text: file([
          'interval: 15m',
          'numConsecutiveWindows: 3',
          'scheduleOffsetMinutes: 5',
          email,
        ]),
      },
    ]);
    expect(issues).toEqual([]);
    expect(dashboards[0].tiles[0].alerts[0]).toMatchObject({
      numConsecutiveWindows: 3,
      scheduleOffsetMinutes: 5,
      channel: { type: 'email', emailRecipients: ['oncall@example.com', 'b@example.org'] },
    });
    expect(
      await check(['interval: 1h', "scheduleStartAt: '2026-09-01T06:00:00+02:00'", webhook]),
    ).toEqual([]);
  });

  it('refuses an offset together with a start time, and an offset not below the interval', async () => {
    expect(
      await check([
        'interval: 15m',
        'scheduleOffsetMinutes: 15',
        "scheduleStartAt: '2026-09-01T06:00:00Z'",
        webhook,
      ]),
    ).toEqual([
      'a.yaml:17:32 tiles[0].alerts[0].scheduleOffsetMinutes: must be less than the interval (15m = 15 minutes)',
      'a.yaml:18:26 tiles[0].alerts[0].scheduleStartAt: set scheduleOffsetMinutes or scheduleStartAt, not both',
    ]);
  });

  it('bounds every number with a one-line error, before any request', async () => {
    expect(
      await check([
        'interval: 1d',
        'numConsecutiveWindows: 99999999999',
        'scheduleOffsetMinutes: 1440',
        webhook,
      ]),
    ).toEqual([
      'a.yaml:17:32 tiles[0].alerts[0].numConsecutiveWindows: Too big: expected number to be <=100',
      'a.yaml:18:32 tiles[0].alerts[0].scheduleOffsetMinutes: Too big: expected number to be <=1439',
    ]);
    expect(await check(['interval: 5m', 'numConsecutiveWindows: 0', webhook])).toEqual([
      'a.yaml:17:32 tiles[0].alerts[0].numConsecutiveWindows: Too small: expected number to be >=1',
    ]);
    expect(await check(['interval: 5m', 'numConsecutiveWindows: 2.5', webhook])).toEqual([
      'a.yaml:17:32 tiles[0].alerts[0].numConsecutiveWindows: Invalid input: expected int, received number',
    ]);
    expect(await check(['interval: 5m', 'scheduleStartAt: tomorrow', webhook])).toEqual([
      'a.yaml:17:26 tiles[0].alerts[0].scheduleStartAt: Invalid ISO datetime',
    ]);
  });

  it('a channel is a webhook or email recipients, exactly one, each recipient an address', async () => {
    const at = (column: number) => `a.yaml:17:${column} tiles[0].alerts[0].channel`;
    expect(
      await check([
        'interval: 5m',
        'channel: { type: email, webhook: ops, emailRecipients: [a@example.com] }',
      ]),
    ).toEqual([`${at(64)}.emailRecipients: a channel is a webhook or email recipients, not both`]);
    expect(await check(['interval: 5m', 'channel: { type: email }'])).toEqual([
      `${at(18)}.emailRecipients: required when type is email`,
    ]);
    expect(
      await check(['interval: 5m', 'channel: { type: webhook, emailRecipients: [a@example.com] }']),
    ).toEqual([
      `${at(18)}.webhookId: webhookId (or webhook: <name>) is required when type is webhook`,
      `${at(52)}.emailRecipients: only when type is email (this is webhook)`,
    ]);
    expect(
      await check([
        'interval: 5m',
        'channel: { type: email, emailRecipients: [a@example.com, nobody] }',
      ]),
    ).toEqual([`${at(66)}.emailRecipients[1]: not an email address`]);
    expect(await check(['interval: 5m', 'channel: { type: email, emailRecipients: [] }'])).toEqual([
      `${at(50)}.emailRecipients: Too small: expected array to have >=1 items`,
    ]);
  });

  it('the JSON Schema describes the new fields with their bounds', () => {
    const schema = JSON.stringify(dashboardFileJsonSchema());
    for (const field of [
      'numConsecutiveWindows',
      'scheduleOffsetMinutes',
      'scheduleStartAt',
      'emailRecipients',
    ])
      expect(schema).toContain(`"${field}"`);
    expect(schema).toContain('"maximum":1439');
  });
});
