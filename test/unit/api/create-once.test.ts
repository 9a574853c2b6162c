/**
 * createOnce against a model of a POST without idempotency: each POST either lands or not, and
 * its answer either arrives or is lost. What a user relies on: one object per create, however
 * the answers go missing, and no second POST while it is unknown whether the first landed.
 */
import { describe, expect, it } from 'vitest';
import {
  apiError,
  createOnce,
  CreateNotConfirmedError,
  transportError,
  type CreateOnceOptions,
} from '../../../lib/api';

const ref = { method: 'POST', path: '/v1/x' };
const status = (code: number) => apiError({ ...ref, status: code });
const timeout = () => transportError({ ...ref, kind: 'timeout', maybeSent: true, detail: 'slow' });

/** What one POST does: lands or not, and answers or throws. */
type Post = { lands: boolean; error?: Error };
const answered: Post = { lands: true };
const lost = (error: Error = status(503)): Post => ({ lands: true, error });
const failed = (error: Error = status(503)): Post => ({ lands: false, error });

/** A service holding the objects that landed; `posts` run in order, then every POST answers. */
function service(posts: Post[], listFailures = 0) {
  const stored: { id: string }[] = [];
  const calls = { posts: 0, lists: 0, sleeps: [] as number[] };
  let failingLists = listFailures;
  const options: CreateOnceOptions<{ id: string }> = {
    create() {
      const post = posts[calls.posts] ?? answered;
      calls.posts += 1;
      const made = { id: `obj-${calls.posts}` };
      if (post.lands) stored.push(made);
      return post.error ? Promise.reject(post.error) : Promise.resolve(made);
    },
    find() {
      calls.lists += 1;
      if (failingLists > 0) {
        failingLists -= 1;
        return Promise.reject(status(502));
      }
      return Promise.resolve(stored[0]);
    },
    clock: {
      sleep: (ms) => {
        calls.sleeps.push(ms);
        return Promise.resolve();
      },
    },
  };
  return { stored, calls, options };
}

describe('createOnce', () => {
  it('an answered POST is the whole cost: no list', async () => {
    const s = service([answered]);
    const made = await createOnce(s.options);
    expect(made).toEqual({ value: { id: 'obj-1' }, via: 'answer', resent: 0 });
    expect(s.calls).toMatchObject({ posts: 1, lists: 0 });
  });

  it('a POST that landed but lost its answer is found by the re-list, never posted again', async () => {
    const s = service([lost()]);
    const made = await createOnce(s.options);
    expect(made).toEqual({ value: { id: 'obj-1' }, via: 'list', resent: 0 });
    expect(s.calls).toMatchObject({ posts: 1, lists: 1 });
    expect(s.stored).toHaveLength(1);
  });

  it('a POST that did not land is made again after the re-list shows it absent (reported as resent)', async () => {
    const s = service([failed(), answered]);
    const made = await createOnce(s.options);
    expect(made).toEqual({ value: { id: 'obj-2' }, via: 'answer', resent: 1 });
    expect(s.calls).toMatchObject({ posts: 2, lists: 1 });
    expect(s.stored).toHaveLength(1);
  });

  it('a refusal (4xx other than 429) is final: no list, no second POST', async () => {
    const s = service([failed(status(400))]);
    await expect(createOnce(s.options)).rejects.toMatchObject({ status: 400 });
    expect(s.calls).toMatchObject({ posts: 1, lists: 0 });
  });

  it('a 429 and an unreadable 2xx are unknown outcomes: looked for before anything else', async () => {
    const s = service([failed(status(429)), lost(status(200))]);
    const made = await createOnce(s.options);
    expect(made.via).toBe('list');
    expect(s.calls).toMatchObject({ posts: 2, lists: 2 });
    expect(s.stored).toHaveLength(1);
  });

  it('gives up after `attempts` POSTs, each followed by a re-list', async () => {
    const s = service([failed(), failed(), failed()]);
    const error = await createOnce({ ...s.options, attempts: 3 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CreateNotConfirmedError);
    expect((error as Error).message).toMatch(/not confirmed after 3 attempt.*failed with 503/);
    expect(s.calls).toMatchObject({ posts: 3, lists: 3 });
  });

  it('a failed list ends the create: the HTTP core did the retrying, so no second list, no second POST', async () => {
    const s = service([failed()], 1);
    await expect(createOnce({ ...s.options, attempts: 3 })).rejects.toThrow(
      /outcome unknown.*list to look for it failed too.*not created again/,
    );
    expect(s.calls).toMatchObject({ posts: 1, lists: 1 });
  });

  it('waits settleMs after a timeout (it may land late), not after a 5xx', async () => {
    const s = service([failed(timeout()), failed(), answered]);
    await createOnce({ ...s.options, settleMs: 700 });
    expect(s.calls.sleeps).toEqual([700]);
  });

  it('reports each unknown outcome before its re-list', async () => {
    const s = service([failed(), lost()]);
    const seen: string[] = [];
    await createOnce({
      ...s.options,
      onUnknown: () =>
        seen.push(`unknown after ${s.calls.posts} post(s), ${s.calls.lists} list(s)`),
    });
    expect(seen).toEqual([
      'unknown after 1 post(s), 0 list(s)',
      'unknown after 2 post(s), 1 list(s)',
    ]);
  });

  it('an aborted run stops at once: no list, no second POST', async () => {
    const s = service([failed()]);
    const controller = new AbortController();
    controller.abort();
    await expect(createOnce({ ...s.options, signal: controller.signal })).rejects.toThrow();
    expect(s.calls).toMatchObject({ posts: 1, lists: 0 });
  });
});
