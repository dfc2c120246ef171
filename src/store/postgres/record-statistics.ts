// The planner chooses a filtered page's plan from the statistics of `records` (the field values' statistics objects,
// field-indexes.ts), which only ANALYZE gathers. Autovacuum gathers them after enough writes, when it runs at all
// (it can be off, and it waits up to a minute). A model filled by an import after its fields were indexed has no
// statistics for them: the planner then guesses a handful of matches for `category = 'x'` and reads every match to
// sort them (a bitmap scan of all ~1,000 matches of a 1 % filter on 100,000 records, 10–30 ms) instead of walking
// the field's index in page order and stopping at the 20th (well under 1 ms).
// Published copies (published_records) are analysed alike, counted by the copies publishes and drafts turned on make.
import type { Pool } from 'pg';
import type { RecordTable } from '../query/record-table.js';

/** Rows written before the table is analysed again: a fifth of what it held at the last ANALYZE, at least this. */
const MIN_ROWS_BETWEEN = 10_000;

export class RecordStatistics {
  private rowsSince = 0;
  private rowsAtLast = 0;
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly pool: Pool,
    private readonly table: RecordTable = 'records',
  ) {}

  /** Records inserted (committed): once enough of them have been, the table is analysed, after the writer's answer. */
  wrote(rows: number): void {
    this.rowsSince += rows;
    if (this.rowsSince < Math.max(MIN_ROWS_BETWEEN, this.rowsAtLast / 5)) return;
    this.rowsSince = 0;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.analyse().finally(() => {
      this.running = null;
    });
  }

  /** Waits for an ANALYZE under way (before the pool closes). */
  async settled(): Promise<void> {
    await this.running;
  }

  private async analyse(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.pool.query(`ANALYZE ${this.table}`);
        const { rows } = await this.pool.query<{ n: number }>(
          'SELECT reltuples::float8 AS n FROM pg_class WHERE oid = $1::regclass',
          [this.table],
        );
        this.rowsAtLast = Math.max(0, rows[0]?.n ?? 0);
      } catch {
        // Statistics only speed reading up: a failed ANALYZE (a closing pool, a dropped schema) changes no answer.
        return;
      }
    } while (this.again);
  }
}
