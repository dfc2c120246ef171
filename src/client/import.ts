// Batched import: at most 1000 rows and at most the workspace's budget per call, 413 answers split further,
// row errors mapped back to the caller's row numbers.
import { ContentServiceError, fieldOfMessage } from './errors.js';
import type { ImportCallResult, JsonObject, RowError } from './types.js';

export const MAX_IMPORT_ROWS = 1000;

export interface PendingRow<T> {
  /** 1-based position in the caller's input. */
  row: number;
  item: T;
  data: JsonObject;
}

export interface BatchOutcome {
  imported: number;
  failed: number;
}

export interface BatcherHooks<T> {
  /** Sends one call (≤1000 rows). */
  send(rows: JsonObject[]): Promise<ImportCallResult>;
  /** The budget learnt so far (from a 413), shared by every import of the client. */
  getBudget(): number | undefined;
  setBudget(budget: number): void;
  onRowError(error: RowError<T>): void;
  /** Rows of a call that had no answer: return the rows to send again, or undefined to report them failed. */
  onOutcomeUnknown?(
    rows: PendingRow<T>[],
    error: ContentServiceError,
  ): Promise<{ resend: PendingRow<T>[]; landed: number } | undefined>;
  /** After every call that got an answer. */
  onBatch?(outcome: BatchOutcome): void;
}

/** Collects rows and sends them in calls; stops at the first failure that is not a row error (`stopped`). */
export class ImportBatcher<T> {
  private buffer: PendingRow<T>[] = [];
  imported = 0;
  failed = 0;
  stopped: ContentServiceError | undefined;

  constructor(
    private readonly hooks: BatcherHooks<T>,
    private readonly batchSize = MAX_IMPORT_ROWS,
  ) {}

  private limit(): number {
    return Math.max(1, Math.min(MAX_IMPORT_ROWS, this.batchSize, this.hooks.getBudget() ?? Infinity));
  }

  /** Adds a row; sends a call when the batch is full. */
  async push(row: PendingRow<T>): Promise<void> {
    if (this.stopped) {
      this.fail([row], this.stopped.code, `not sent: the run stopped after an earlier error (${this.stopped.message})`);
      return;
    }
    this.buffer.push(row);
    if (this.buffer.length >= this.limit()) await this.flush();
  }

  /** Sends what is buffered. */
  async flush(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.limit());
      await this.sendChunk(batch);
    }
  }

  /** Reports rows failed without sending them. */
  fail(rows: PendingRow<T>[], code: string, message: string): void {
    for (const row of rows) {
      this.failed += 1;
      this.hooks.onRowError({ row: row.row, item: row.item, message, code, field: fieldOfMessage(message) });
    }
  }

  private async sendChunk(chunk: PendingRow<T>[], attempt = 0): Promise<void> {
    if (this.stopped) {
      this.fail(chunk, this.stopped.code, `not sent: the run stopped after an earlier error (${this.stopped.message})`);
      return;
    }
    let result: ImportCallResult;
    try {
      result = await this.hooks.send(chunk.map((row) => row.data));
    } catch (error) {
      if (!(error instanceof ContentServiceError)) throw error;
      if (error.code === 'COST_EXCEEDS_BUDGET') {
        // Nothing written, nothing charged: split to the budget the answer names (or halve) and go on.
        const named = Number(error.extensions.budget);
        const budget = Number.isInteger(named) && named > 0 ? named : Math.floor(chunk.length / 2);
        if (budget < 1 || chunk.length <= 1) return this.stop(chunk, error);
        this.hooks.setBudget(Math.min(budget, chunk.length - 1));
        for (let start = 0; start < chunk.length;) {
          const size = this.limit();
          await this.sendChunk(chunk.slice(start, start + size));
          start += size;
        }
        return;
      }
      if (error.code === 'PAYLOAD_TOO_LARGE') {
        if (chunk.length <= 1) {
          this.fail(chunk, error.code, `row too large to send: ${error.message}`);
          return;
        }
        const half = Math.ceil(chunk.length / 2);
        await this.sendChunk(chunk.slice(0, half));
        await this.sendChunk(chunk.slice(half));
        return;
      }
      if (error.outcomeUnknown && this.hooks.onOutcomeUnknown && attempt < 3) {
        const next = await this.hooks.onOutcomeUnknown(chunk, error).catch(() => undefined);
        if (next) {
          this.imported += next.landed;
          this.hooks.onBatch?.({ imported: next.landed, failed: 0 });
          if (next.resend.length > 0) await this.sendChunk(next.resend, attempt + 1);
          return;
        }
      }
      return this.stop(chunk, error);
    }
    this.imported += result.importedCount;
    let failedHere = 0;
    for (const rowError of result.errors) {
      const row = chunk[rowError.row - 1];
      if (!row) continue;
      failedHere += 1;
      this.hooks.onRowError({
        row: row.row,
        item: row.item,
        message: rowError.message,
        code: 'BAD_USER_INPUT',
        field: fieldOfMessage(rowError.message),
      });
    }
    this.failed += failedHere;
    this.hooks.onBatch?.({ imported: result.importedCount, failed: failedHere });
  }

  private stop(chunk: PendingRow<T>[], error: ContentServiceError): void {
    this.stopped = error;
    const message = error.outcomeUnknown
      ? `outcome unknown (${error.message}): the row may or may not be stored; check before sending it again, or import with a key`
      : error.message;
    this.fail(chunk, error.code, message);
  }
}
