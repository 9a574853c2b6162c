/**
 * The HTTP core reads an answer's payload and nothing else of its envelope, so the envelope
 * brings no zod kind of its own into a function: the management `status` and `requestId` pass
 * through unchecked (checking them leniently cost rotate-key zod's number and catch, 1 KiB).
 */
import { describe, expect, it } from 'vitest';
import { bundleOf } from './function-bundle';

/** The zod/mini schema classes in a bundle's unminified text. */
function zodKinds(text: string): Set<string> {
  return new Set([...text.matchAll(/\bvar ZodMini(\w+) = /g)].map((m) => m[1]));
}

describe('bundle floor: the answer envelope', () => {
  it('the HTTP core carries only the object kind for its envelopes', async () => {
    const { text } = await bundleOf('lib/api/http.ts');
    const kinds = zodKinds(text);
    expect(kinds.has('Object')).toBe(true);
    expect([...kinds].filter((kind) => kind === 'Catch' || kind === 'Number')).toEqual([]);
  });
});
