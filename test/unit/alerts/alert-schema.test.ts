/**
 * The alert write body judges email recipients as zod's `z.email()` does (it tests them with
 * zod's pattern, without zod's email schema class): an address either accepts, the other does.
 */
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { createAlertBody } from '../../../lib/schemas/alert';

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
