// One table's rows from the source into the target, in key order, a batch (one transaction) at a time. Up to
// WRITES_IN_FLIGHT batches are handed to the target before the oldest is awaited, so that the target (PostgreSQL,
// in its own process) takes one batch while this process reads, hashes and writes out the next: neither waits for
// the other. A PostgreSQL target runs them one after another on one connection, and a batch after a failed one
// writes nothing (postgres-copy-in.ts), so the target always holds the rows up to a key: what --resume relies on.
import type { ChecksumAccumulator } from './checksum.js';
import { CHECKSUM_COLUMNS } from './checksum.js';
import type { CopySide, Row } from './side.js';

/** Batches handed to the target and not yet done, at most. */
export const WRITES_IN_FLIGHT = 2;

export interface TableLoad {
  table: string;
  columns: readonly string[];
  key: readonly string[];
  /** The target's last key (a resumed copy), or null. */
  after: Row | null;
  batchRows: number;
  /** The records' source checksum, fed every row in key order (null: not hashed). */
  sourceHash: ChecksumAccumulator | null;
  /** A batch is written (committed): its last key, its row count. */
  written: (lastKey: Row, rows: number) => void;
}

interface Pending {
  writing: Promise<void>;
  lastKey: Row;
  rows: number;
}

/** Copies the table's rows after `load.after`; resolves when the target has them all. */
export async function loadTable(source: CopySide, target: CopySide, load: TableLoad): Promise<void> {
  const { table, columns, key, batchRows } = load;
  const keyIndexes = key.map((name) => columns.indexOf(name));
  const hashed = load.sourceHash ? CHECKSUM_COLUMNS.map((name) => columns.indexOf(name)) : null;
  const pending: Pending[] = [];
  const settle = async () => {
    const oldest = pending.shift()!;
    await oldest.writing;
    load.written(oldest.lastKey, oldest.rows);
  };
  try {
    let page = await source.readPage(table, columns, key, load.after, batchRows);
    while (page.length > 0) {
      const last = page[page.length - 1]!;
      const lastKey = keyIndexes.map((index) => last[index]!);
      const writing = Promise.resolve(target.writeRows(table, columns, page));
      // Awaited in turn (settle); not an unhandled rejection meanwhile.
      writing.catch(() => {});
      pending.push({ writing, lastKey, rows: page.length });
      if (hashed) hashRows(load.sourceHash!, hashed, page);
      const next = page.length < batchRows ? [] : await source.readPage(table, columns, key, lastKey, batchRows);
      if (pending.length >= WRITES_IN_FLIGHT) await settle();
      page = next;
    }
    while (pending.length > 0) await settle();
  } finally {
    // A failure leaves nothing running behind it: the batches handed over are awaited (those after a failed one fail).
    await Promise.allSettled(pending.map((batch) => batch.writing));
  }
}

function hashRows(hash: ChecksumAccumulator, indexes: readonly number[], page: readonly Row[]): void {
  const [id, modelId, data, createdAt, updatedAt] = indexes as [number, number, number, number, number];
  for (const row of page) hash.add(row[id]!, row[modelId]!, row[data]!, row[createdAt]!, row[updatedAt]!);
}
