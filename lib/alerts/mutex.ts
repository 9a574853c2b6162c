/**
 * A keyed mutex: work for the same key runs one at a time, in arrival order; different keys
 * run in parallel. Only serializes within one process (one Lambda instance); across instances
 * the post-create re-list in provision.ts resolves races.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      // Last in line: drop the entry so the map does not grow with every key ever seen.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with work queued or running (tests check nothing leaks). */
  get size(): number {
    return this.tails.size;
  }
}
