// A timer the worker keeps at most one of per purpose; it never keeps the process alive.
export class OneShotTimer {
  private timer: NodeJS.Timeout | null = null;

  /** Calls `fire` after `ms`, unless this timer is already pending (then that call stands). */
  startUnlessPending(ms: number, fire: () => void): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      fire();
    }, ms);
    this.timer.unref();
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
