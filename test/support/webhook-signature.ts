/**
 * The webhook signature check exactly as README.md shows it to receivers: the `js` block of its
 * section "Verifying the webhook's signature", evaluated as written. Tests verify with it, so a
 * snippet that stops matching what the notifier sends fails them.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

type Verify = (header: string, body: string, secret: string, now?: number) => boolean;

const README = path.join(import.meta.dirname, '../../README.md');

function snippet(): string {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf("### Verifying the webhook's signature");
  if (start < 0) throw new Error('README.md has no section "Verifying the webhook\'s signature"');
  const block = /```js\n([\s\S]+?)```/.exec(text.slice(start))?.[1];
  if (!block) throw new Error('README.md: no js block in "Verifying the webhook\'s signature"');
  return block;
}

// eslint-disable-next-line @typescript-eslint/no-implied-eval -- the README's own snippet, run as a receiver would
const load = new Function('require', `${snippet()}\nreturn verify;`) as (
  r: NodeJS.Require,
) => Verify;

/** README.md's `verify(header, body, secret, now?)`. */
export const verifyAsDocumented: Verify = load(createRequire(import.meta.url));
