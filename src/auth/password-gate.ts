/**
 * Bounds the sign-ins a process works on, and the password hashes among them. A scrypt check takes a core for a
 * tenth of a second or more and 32 MiB; without a bound, a flood of sign-ins queues hundreds of them on the thread
 * pool and takes every core from the API, and their lookups take every database connection. At most
 * `concurrency + queue` sign-ins are admitted at once, anything beyond is refused at once (`admit` answers `busy`)
 * before any work is done, and at most `concurrency` of the admitted hash at the same time; the others wait
 * their turn, in order.
 */
export class PasswordHashGate {
  private admitted = 0;
  private hashing = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly concurrency: number,
    readonly queue: number,
  ) {}

  /** Runs `work` (one sign-in) if there is room; `hash` runs a password hash when a hashing slot is free. */
  async admit<T>(
    work: (hash: <H>(derive: () => Promise<H>) => Promise<H>) => Promise<T>,
  ): Promise<{ busy: true } | { busy: false; value: T }> {
    if (this.admitted >= this.concurrency + this.queue) return { busy: true };
    this.admitted++;
    try {
      return { busy: false, value: await work((derive) => this.hash(derive)) };
    } finally {
      this.admitted--;
    }
  }

  private async hash<H>(derive: () => Promise<H>): Promise<H> {
    if (this.hashing >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.hashing++;
    try {
      return await derive();
    } finally {
      // Hands the slot straight to the next in line, so a newcomer cannot overtake the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.hashing--;
    }
  }
}
