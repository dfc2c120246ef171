import type { CustomTypesConfig, Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow } from 'pg';

/** Anything that runs a query: the pool, or the client of a transaction. */
export type Queryable = Pick<Pool, 'query'> | PoolClient;

/**
 * Every value of an answer as PostgreSQL's text, unparsed: a record's `data` goes into the answer as the JSON text
 * PostgreSQL wrote (pg would parse jsonb into objects, which the answer then serialises again), numbers are read
 * where they are used (a `bigint` comes as text anyway).
 */
export const TEXT_VALUES: CustomTypesConfig = {
  getTypeParser: () => (value: string) => value,
};

/**
 * Runs `work` in one transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it throws. `begin`
 * is the statement that starts it: BEGIN, or BEGIN and more statements without parameters, sent in one round trip.
 */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
  begin: string = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch {
      broken = true;
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/** A `bigint` column (epoch milliseconds, counts): pg returns it as a string so it cannot lose precision; ours fit a double. */
export function toNumber(value: string | number): number {
  return typeof value === 'number' ? value : Number(value);
}

/** SQLSTATE 23505, optionally of one named constraint or unique index. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const failure = error as { code?: unknown; constraint?: unknown } | null;
  if (failure?.code !== '23505') return false;
  return constraint === undefined || failure.constraint === constraint;
}

/**
 * pool.query for a statement whose errors are answers to give (a refusal, a write to check again): pool.query closes
 * the connection of a statement that failed, and opening another costs several round trips; this one keeps it.
 */
export async function queryKeepingConnection<Row extends QueryResultRow>(
  pool: Pool,
  config: QueryConfig,
): Promise<QueryResult<Row>> {
  const client = await pool.connect();
  try {
    return await client.query<Row>(config);
  } finally {
    client.release();
  }
}

/** SQLSTATE 23503: a row refers to one that is not there (a record of a model deleted meanwhile). */
export function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23503';
}

/** SQLSTATE 40P01: PostgreSQL ended this transaction to break a deadlock; nothing of it was written. */
export function isDeadlock(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '40P01';
}

/** `"name"`: an identifier quoted for SQL text (only for names we validated; values always go as parameters). */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
