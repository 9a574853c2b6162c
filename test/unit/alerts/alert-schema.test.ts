/**
 * The alert write bodies as lib/schemas/alert.ts builds them without some of zod's helpers:
 * email recipients judged as `z.email()` judges them (zod's pattern alone), and the update body
 * as `z.partial` made it (every field optional, each still checked, unknown keys dropped).
 */
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { formatIssues } from '../../../lib/format-issues';
import { createAlertBody, updateAlertBody } from '../../../lib/schemas/alert';

const ADDRESSES = [
  'ops@example.com',
  'first.last+tag@sub.example.co.uk',
  "o'brien@example.ie",
  'a_b-c@example-mail.org',
  'UPPER@EXAMPLE.COM',
  'not-an-address',
  'two@@example.com',
  '@example.com',
  'ops@',
  'ops@example',
  'ops@example.c',
  'ops@-example.com',
  '.ops@example.com',
  'ops.@example.com',
  'ops..x@example.com',
  'ops @example.com',
  'ops@exa mple.com',
  'ops@example.com ',
  'ops@[127.0.0.1]',
  'ünïcode@example.com',
  '',
];

const body = (recipient: string) => ({
  source: 'saved_search',
  savedSearchId: 's1',
  name: 'Errors',
  threshold: 1,
  thresholdType: 'above',
  interval: '5m',
  channel: { type: 'email', emailRecipients: [recipient] },
});

describe('email recipients of an alert body', () => {
  it.each(ADDRESSES)('%j is judged as z.email() judges it', (address) => {
    const zodSays = z.email().safeParse(address).success;
    const result = createAlertBody.safeParse(body(address));
    expect(result.success).toBe(zodSays);
    if (!result.success) {
      expect(result.error.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
        ['channel.emailRecipients.0', 'not an email address'],
      ]);
    }
  });

  it('the list holds both verdicts, so the comparison can fail', () => {
    const verdicts = new Set(ADDRESSES.map((a) => z.email().safeParse(a).success));
    expect(verdicts).toEqual(new Set([true, false]));
  });
});

describe('the update body', () => {
  const shown = (input: unknown) => {
    const result = updateAlertBody.safeParse(input);
    return result.success ? { data: result.data } : { lines: formatIssues(result.error.issues) };
  };

  it('takes any subset of the fields, none required, and drops keys it does not know', () => {
    expect(shown({})).toEqual({ data: {} });
    expect(shown({ threshold: 3, note: 'paged', later: true })).toEqual({
      data: { threshold: 3, note: 'paged' },
    });
    expect(shown(body('ops@example.com'))).toEqual({ data: body('ops@example.com') });
  });

  it('still checks each field it is given, and the schedule rules', () => {
    expect(shown({ threshold: 'high', interval: '2m', name: '' })).toEqual({
      lines: [
        'threshold: Invalid input: expected number, received string',
        'interval: Invalid option: expected one of "1m"|"5m"|"15m"|"30m"|"1h"|"6h"|"12h"|"1d"',
        'name: Too small: expected string to have >=1 characters',
      ],
    });
    expect(shown({ interval: '5m', scheduleOffsetMinutes: 5 })).toEqual({
      lines: ['scheduleOffsetMinutes: must be less than the interval (5m)'],
    });
    expect(shown({ channel: { type: 'email', emailRecipients: ['nobody'] } })).toEqual({
      lines: ['channel.emailRecipients[0]: not an email address'],
    });
    expect(shown(null)).toEqual({
      lines: ['(root): Invalid input: expected object, received null'],
    });
  });
});
