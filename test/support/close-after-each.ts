/** Things a test opens (sandboxes, servers) and wants closed when it ends, pass or fail. */
import { afterEach } from 'vitest';

export interface Closable {
  close(): Promise<void> | void;
}

/** Registers an afterEach that closes, in parallel, whatever was pushed onto the returned list. */
export function closeAfterEach<T extends Closable = Closable>(): T[] {
  const open: T[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map(async (s) => s.close()));
  });
  return open;
}
