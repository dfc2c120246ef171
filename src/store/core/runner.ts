import type { Steps } from './steps.js';

/** The SQL a dialect writes differently, as fragments the core puts into its statements. */
export interface SqlDialect {
  /** After an ORDER BY column of text: byte order, the same on both databases. */
  readonly byteOrder: string;
  /** After a SELECT in a transaction: keeps the rows from other writers until it ends (`FOR UPDATE OF …`). */
  lockRows(aliases: string): string;
  /** Whether an error is a unique-constraint violation (of one named constraint or index, when given). */
  isUniqueViolation(error: unknown, constraint?: string): boolean;
  /** A boolean as a statement's value (SQLite has no boolean: 1 or 0). */
  bool(value: boolean): boolean | number;
}

/** Runs a store method's steps on one database. */
export interface StepRunner {
  readonly sql: SqlDialect;
  /** Outside a transaction: reads, and single statements that are atomic by themselves. */
  read<T>(steps: Steps<T>): Promise<T>;
  /** In one transaction: all of it commits, or (when a step or the method throws) none of it. */
  transaction<T>(steps: Steps<T>): Promise<T>;
}
