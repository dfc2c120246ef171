// The delivery worker's (worker.ts) records of its attempts: those that end in the same turn of the event loop (or
// within gatherMs) are written together, at most MAX_RECORD_BATCH in one statement.
import type { AttemptRecord, WebhookStore } from '../store/store.js';

/** Attempts recorded in one transaction at most (those that end in the same turn of the event loop go together). */
const MAX_RECORD_BATCH = 64;

export class AttemptRecorder {
  /** Attempts made and waiting to be recorded, with what their recording settles; written once per turn. */
  private toRecord: { attempt: AttemptRecord; settle: (recorded: boolean) => void; fail: (error: unknown) => void }[] = [];
  private recordScheduled = false;

  /** `gathering`: whether records wait gatherMs (else they are written in the next turn). */
  constructor(
    private readonly store: WebhookStore,
    private readonly gatherMs: number,
    private readonly gathering: () => boolean,
  ) {}

  /**
   * Records the attempt with the others that end in this turn (within gatherMs): one statement for them all.
   * Resolves with whether it was recorded (false: its claim ran out).
   */
  record(attempt: AttemptRecord): Promise<boolean> {
    return new Promise((settle, fail) => {
      this.toRecord.push({ attempt, settle, fail });
      if (this.recordScheduled) return;
      this.recordScheduled = true;
      if (!this.gathering()) setImmediate(() => void this.recordBatches());
      else setTimeout(() => void this.recordBatches(), this.gatherMs);
    });
  }

  private async recordBatches(): Promise<void> {
    this.recordScheduled = false;
    const waiting = this.toRecord;
    this.toRecord = [];
    await Promise.all(
      Array.from({ length: Math.ceil(waiting.length / MAX_RECORD_BATCH) }, async (_, index) => {
        const batch = waiting.slice(index * MAX_RECORD_BATCH, (index + 1) * MAX_RECORD_BATCH);
        try {
          const recorded = await this.store.recordAttempts(batch.map((entry) => entry.attempt));
          batch.forEach((entry, position) => entry.settle(recorded[position]!));
        } catch (error) {
          for (const entry of batch) entry.fail(error);
        }
      }),
    );
  }
}
