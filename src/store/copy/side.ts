// One end of a copy: a database read from or written to, whichever kind it is. Values travel between the two
// ends in one form: text as strings, integers and booleans as numbers (true is 1), JSON as its text.

export type Value = string | number | null;
export type Row = Value[];

export interface ModelIndexSource {
  id: string;
  fields: string;
  product: string | null;
}

export interface CopySide {
  /** For messages: the kind and where (never a password). */
  readonly description: string;
  /** Tables that are there (not the database's own). */
  tableNames(): Promise<string[]>;
  /** The table's columns in their order (none: no such table). */
  columnNames(table: string): Promise<string[]>;
  count(table: string): Promise<number>;
  /** The key of the table's last row in key order, or null when it is empty. */
  lastKey(table: string, key: readonly string[]): Promise<Row | null>;
  /** Up to `limit` rows of `columns` after the key `after` (null: from the start), in key order. */
  readPage(table: string, columns: readonly string[], key: readonly string[], after: Row | null, limit: number): Promise<Row[]>;
  /** As the source: reads from here on see one snapshot (nothing written meanwhile shows). */
  beginSnapshot(): Promise<void>;

  /** As the target: the service's migrations. */
  migrate(): Promise<void>;
  /** Writes the rows in one transaction. */
  writeRows(table: string, columns: readonly string[], rows: readonly Row[]): Promise<void>;
  /** The source an unfinished copy into here came from, or null when there is none. */
  readMarker(): Promise<string | null>;
  writeMarker(source: string): Promise<void>;
  dropMarker(): Promise<void>;
  /** The indexes of `indexed` fields (and statistics) for the models now here. */
  buildFieldIndexes(models: readonly ModelIndexSource[]): Promise<void>;

  close(): Promise<void>;
}
