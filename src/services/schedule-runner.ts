// Carries out due schedules (docs/lifecycle.md) in a running `serve`: at start (schedules that fell due while no
// server ran), then every POLL_MS, so a schedule is done within about that long of its time. The store makes each
// happen exactly once, whichever process asks.
import type { ScheduleStore, StoredSchedule } from '../store/store.js';

export const SCHEDULE_POLL_MS = 500;

export interface ScheduleRunnerLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export class ScheduleRunner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly schedules: ScheduleStore,
    private readonly logger: ScheduleRunnerLogger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    void this.pass();
    this.timer = setInterval(() => void this.pass(), SCHEDULE_POLL_MS);
    this.timer.unref();
  }

  /** One look for due schedules (a look under way is waited for instead of starting another). */
  pass(): Promise<void> {
    this.running ??= this.schedules
      .runDue(this.now())
      .then((ran) => ran.forEach((schedule) => this.report(schedule)))
      .catch((error: unknown) => this.logger.warn({ error: String(error) }, 'could not carry out due schedules'))
      .finally(() => (this.running = null));
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private report(schedule: StoredSchedule): void {
    const details = { schedule: schedule.id, action: schedule.action, records: schedule.ids.length };
    if (schedule.status === 'failed') this.logger.warn({ ...details, error: schedule.error }, 'schedule failed');
    else this.logger.info(details, 'schedule carried out');
  }
}
