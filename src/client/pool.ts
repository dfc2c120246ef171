/** Runs at most `size` tasks at once. */
export class Pool {
  private readonly running = new Set<Promise<void>>();
  constructor(private readonly size: number) {}

  async run(task: () => Promise<void>): Promise<void> {
    while (this.running.size >= Math.max(1, this.size)) await Promise.race(this.running);
    const promise: Promise<void> = task().finally(() => this.running.delete(promise));
    this.running.add(promise);
  }

  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.race(this.running);
  }
}
