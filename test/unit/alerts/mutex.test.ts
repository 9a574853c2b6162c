import { describe, expect, it } from 'vitest';
import { KeyedMutex } from '../../../lib/alerts/mutex';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('KeyedMutex', () => {
  it('runs work for one key one at a time in arrival order, other keys in parallel', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const job = (key: string, name: string) =>
      mutex.run(key, async () => {
        running += key === 'a' ? 1 : 0;
        most = Math.max(most, running);
        log.push(`start ${name}`);
        await tick();
        log.push(`end ${name}`);
        running -= key === 'a' ? 1 : 0;
        return name;
      });
    const results = await Promise.all([
      job('a', 'a1'),
      job('b', 'b1'),
      job('a', 'a2'),
      job('a', 'a3'),
    ]);
    expect(results).toEqual(['a1', 'b1', 'a2', 'a3']);
    expect(most).toBe(1);
    const aOnly = log.filter((l) => l.endsWith('a1') || l.endsWith('a2') || l.endsWith('a3'));
    expect(aOnly).toEqual(['start a1', 'end a1', 'start a2', 'end a2', 'start a3', 'end a3']);
    expect(log.indexOf('start b1')).toBeLessThan(log.indexOf('end a1'));
    expect(mutex.size).toBe(0);
  });

  it('a failing job releases the key for the next one', async () => {
    const mutex = new KeyedMutex();
    const first = mutex.run('k', () => Promise.reject(new Error('boom')));
    const second = mutex.run('k', () => Promise.resolve('ok'));
    await expect(first).rejects.toThrow('boom');
    await expect(second).resolves.toBe('ok');
    expect(mutex.size).toBe(0);
  });
});
