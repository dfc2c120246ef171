// A store method written once for both databases is a generator of steps: each `yield*` hands one statement to the
// dialect's runner and resumes with its answer. SQLite runs the steps synchronously inside one immediate
// transaction (nothing else can interleave on its one connection); PostgreSQL awaits each on one pooled connection.
// SQL is written with `?` placeholders; the PostgreSQL runner numbers them.

/** One thing for a runner to do. */
export type Step =
  | { readonly kind: 'all'; readonly sql: string; readonly values: readonly unknown[]; readonly name?: string }
  | { readonly kind: 'run'; readonly sql: string; readonly values: readonly unknown[] }
  | { readonly kind: 'lock'; readonly scope: number; readonly key: string }
  | { readonly kind: 'native'; readonly run: (connection: never) => unknown };

/** The steps of one store method, ending with its result. */
export type Steps<T> = Generator<Step, T, unknown>;

/** The rows a statement answers (a SELECT, or a write with RETURNING). */
export function* all<Row>(sql: string, ...values: unknown[]): Steps<Row[]> {
  return (yield { kind: 'all', sql, values }) as Row[];
}

/** The first row a statement answers, if any. */
export function* one<Row>(sql: string, ...values: unknown[]): Steps<Row | undefined> {
  const rows = yield* all<Row>(sql, ...values);
  return rows[0];
}

/**
 * The rows of a statement that runs on most requests: PostgreSQL prepares it once per connection under `name` (its
 * planning costs several times its execution); SQLite prepares every text once anyway.
 */
export function* allNamed<Row>(name: string, sql: string, ...values: unknown[]): Steps<Row[]> {
  return (yield { kind: 'all', sql, values, name }) as Row[];
}

/** Runs a write; answers how many rows it changed. */
export function* run(sql: string, ...values: unknown[]): Steps<number> {
  return (yield { kind: 'run', sql, values }) as number;
}

/**
 * Serialises the rest of the transaction with every other transaction holding the same scope and key (a PostgreSQL
 * advisory lock until the transaction ends). SQLite needs nothing: its immediate transactions are one writer at a time.
 */
export function* lock(scope: number, key: string): Steps<void> {
  yield { kind: 'lock', scope, key };
}

/**
 * A dialect's own part of a core method, run on the transaction's connection (better-sqlite3's Database, synchronously;
 * a pg PoolClient, awaited): the core names the moment, the dialect brings what it does there.
 */
export function* native<Connection, T>(run: (connection: Connection) => T | Promise<T>): Steps<T> {
  return (yield { kind: 'native', run }) as T;
}
