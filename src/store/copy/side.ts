// One end of a copy: a database read from or written to, whichever kind it is. Values travel between the two
// ends in one form: text as strings, integers and booleans as numbers (true is 1), JSON as its text.
export type Value = string | number | null;
export type Row = Value[];
/** The SQLite end answers at once, the PostgreSQL end later: callers await either. */
export type Awaitable<T> = T | Promise<T>;

export interface ModelIndexSource {
  id: string;
  fields: string;
  product: string | null;
  /** Its records as the model counts them (models.record_count): for choosing when to build its indexes only. */
  records: number;
}

export interface CopySide {
  /** For messages: the kind and where (never a password). */
  readonly description: string;
  /** JSON columns are read as PostgreSQL's jsonb prints them (the checksum's form, src/store/copy/jsonb-text.ts). */
  readonly dataIsJsonbText: boolean;
  /** Tables that are there (not the database's own). */
  tableNames(): Awaitable<string[]>;
  /** The table's columns in their order (none: no such table). */
  columnNames(table: string): Awaitable<string[]>;
  count(table: string): Awaitable<number>;
  /** The key of the table's last row in key order, or null when it is empty. */
  lastKey(table: string, key: readonly string[]): Awaitable<Row | null>;
  /** Up to `limit` rows of `columns` after the key `after` (null: from the start), in key order. */
  readPage(table: string, columns: readonly string[], key: readonly string[], after: Row | null, limit: number): Awaitable<Row[]>;
  /** As the source: reads from here on see one snapshot (nothing written meanwhile shows). */
  beginSnapshot(): Awaitable<void>;

  /** As the target: the service's migrations. */
  migrate(): Awaitable<void>;
  /** Writes the rows in one transaction. */
  writeRows(table: string, columns: readonly string[], rows: readonly Row[]): Awaitable<void>;
  /**
   * Before a bulk load of `table`: drops its indexes that no constraint stands on, keeping their definitions in
   * the target (they are cheaper to build once than to keep up row by row). buildIndexes makes them again.
   */
  deferIndexes(table: string): Awaitable<void>;
  /**
   * Before the records' bulk load (after deferIndexes), with the models now here and the source's record count: the
   * field indexes that are cheaper to keep up during the load than to build after it (postgres-indexes.ts).
   */
  fieldIndexesBeforeLoad?(models: readonly ModelIndexSource[], totalRecords: number): Promise<void>;
  /** The source an unfinished copy into here came from, or null when there is none. */
  readMarker(): Awaitable<string | null>;
  writeMarker(source: string): Awaitable<void>;
  dropMarker(): Awaitable<void>;
  /**
   * After the load: every index that deferIndexes dropped (in this run or a stopped one) made again, the indexes of
   * `indexed` fields (and statistics) for the models now here, the foreign keys, the planner's statistics.
   */
  buildIndexes(models: readonly ModelIndexSource[]): Awaitable<void>;
  /**
   * Hashing of the records' chunks by the database itself, on `connections` connections of their own (see
   * checksum.ts); a side without it has its records read and hashed by the copy.
   */
  openChunkHasher?(connections: number): Promise<ChunkHasher>;

  close(): Awaitable<void>;
}

/** One model's records in one chunk (checksum.ts). */
export interface ChunkDigest {
  modelId: string;
  records: number;
  /** SHA-256 (hex) of their lines. */
  digest: string;
}

/** Hashes chunks of the records in the database itself (checksum.ts), on connections of its own. */
export interface ChunkHasher {
  /** The digests per model of the records with lower < id <= upper (null: no bound), in id order. */
  chunk(lower: string | null, upper: string | null): Promise<ChunkDigest[]>;
  close(): Promise<void>;
}
