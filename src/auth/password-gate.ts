/**
 * Bounds how many password hashes run at once in this process. A scrypt check takes a core for a tenth of a second
 * or more and 32 MiB; without a bound, a flood of sign-ins queues hundreds of them on the thread pool and takes
 * every core from the API. At most `concurrency` run, at most `queue` more wait their turn, and anything beyond
 * that is refused at once (`run` answers `busy`) rather than piling up.
 */
export class PasswordHashGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly concurrency: number,
    readonly queue: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<{ busy: true } | { busy: false; value: T }> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.queue) return { busy: true };
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return { busy: false, value: await work() };
    } finally {
      // Hands the slot straight to the next in line, so a newcomer cannot overtake the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
