/**
 * The API errors are in every function that makes HTTP calls. A class field declared in
 * TypeScript is also declared in the bundle (`status;`) before the constructor assigns it, so
 * their fields are `declare`d and kept by one keepFields call (lib/errors.ts) or one assignment:
 * about 0.45 KiB less in each function, the fields as before (test/unit/api/error-fields.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { bundleOf } from './function-bundle';

/** Class fields declared without a value in a bundle's unminified text (`  status;`). */
function bareFieldDeclarations(text: string): string[] {
  return [...text.matchAll(/^ {2}(\w+);$/gm)].map((m) => m[1]);
}

describe('bundle floor: the error classes', () => {
  it('no error class of the API core declares a field in the bundle', async () => {
    const { text } = await bundleOf('lib/api/errors.ts');
    expect(text).toContain('var ApiError = class');
    expect(bareFieldDeclarations(text)).toEqual([]);
  });
});
