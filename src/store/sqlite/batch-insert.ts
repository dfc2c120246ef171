import type Database from 'better-sqlite3';
import type { NewRecord } from '../store.js';

/** Rows per INSERT statement, largest first: a batch is cut greedily into runs of these sizes. */
const CHUNK_SIZES = [256, 64, 16, 4, 1] as const;

/** What every row of one batch shares: bound once per statement run, not once per row. */
export interface BatchConstants {
  model: string;
  workspace: string;
  at: number;
  user: string | null;
}

/**
 * An import batch's records in multi-row INSERT statements. Per row only its id, data and SKU are bound; a
 * statement run costs better-sqlite3 a call, a result object and a reset, so one run per 256 rows instead of one
 * per row saves most of the driver's share of an import (the rows are the same; the B-tree work is SQLite's).
 *
 * A row whose SKU is taken (stored, or earlier in the batch) is skipped by ON CONFLICT, as the one-row insert does.
 * Which rows were skipped is read only when a run inserts fewer rows than it was given: the ids are new, so the
 * chunk's ids found in the table are exactly the rows it inserted.
 */
export class BatchInsert {
  private readonly statements = new Map<number, Database.Statement>();
  private readonly selectPresent: Database.Statement;

  constructor(db: Database.Database) {
    for (const size of CHUNK_SIZES) {
      const row = "(?, @model, @workspace, ?, ?, @at, @at, @user, @user, 'import')";
      this.statements.set(
        size,
        db.prepare(
          `INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by, revision_operation)
           VALUES ${Array.from({ length: size }, () => row).join(', ')} ON CONFLICT (model_id, sku) DO NOTHING`,
        ),
      );
    }
    this.selectPresent = db.prepare('SELECT id FROM records WHERE id IN (SELECT value FROM json_each(?))').pluck(true);
  }

  /** Inserts `records` (inside the caller's transaction); returns the indexes of the rows skipped for their SKU. */
  insert(records: readonly NewRecord[], constants: BatchConstants): number[] {
    const skipped: number[] = [];
    let start = 0;
    for (const size of CHUNK_SIZES) {
      const statement = this.statements.get(size)!;
      while (records.length - start >= size) {
        const values: unknown[] = new Array(size * 3);
        for (let offset = 0; offset < size; offset++) {
          const record = records[start + offset]!;
          values[offset * 3] = record.id;
          values[offset * 3 + 1] = record.dataText;
          values[offset * 3 + 2] = record.sku;
        }
        const { changes } = statement.run(values, constants);
        if (changes < size) this.collectSkipped(records, start, size, skipped);
        start += size;
      }
    }
    return skipped;
  }

  private collectSkipped(records: readonly NewRecord[], start: number, size: number, skipped: number[]): void {
    const ids = records.slice(start, start + size).map((record) => record.id);
    const present = new Set(this.selectPresent.all(JSON.stringify(ids)) as string[]);
    for (let offset = 0; offset < size; offset++) {
      if (!present.has(ids[offset]!)) skipped.push(start + offset);
    }
  }
}
