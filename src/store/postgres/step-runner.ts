import type { Pool, PoolClient } from 'pg';
import type { SqlDialect, StepRunner } from '../core/runner.js';
import type { Step, Steps } from '../core/steps.js';
import { inTransaction, isUniqueViolation, type Queryable } from './sql.js';

const POSTGRES_DIALECT: SqlDialect = {
  byteOrder: ' COLLATE "C"',
  lockRows: (aliases) => ` FOR UPDATE OF ${aliases}`,
  isUniqueViolation,
  bool: (value) => value,
};

const numbered = new Map<string, string>();

/** `?` placeholders numbered `$1, $2, …` (outside quoted text); remembered per SQL text, a fixed few. */
export function numberPlaceholders(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g, (match) => (match === '?' ? `$${++n}` : match));
    numbered.set(sql, text);
  }
  return text;
}

/** Steps awaited one by one; a transaction holds one pooled connection from BEGIN to COMMIT. */
export class PostgresStepRunner implements StepRunner {
  readonly sql = POSTGRES_DIALECT;

  constructor(private readonly pool: Pool) {}

  read<T>(steps: Steps<T>): Promise<T> {
    return drive(this.pool, steps);
  }

  transaction<T>(steps: Steps<T>): Promise<T> {
    return inTransaction(this.pool, (client) => drive(client, steps));
  }
}

async function drive<T>(connection: Queryable | PoolClient, steps: Steps<T>): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    let answer: unknown;
    try {
      answer = await execute(connection, next.value);
    } catch (error) {
      next = steps.throw(error);
      continue;
    }
    next = steps.next(answer);
  }
  return next.value;
}

async function execute(connection: Queryable | PoolClient, step: Step): Promise<unknown> {
  switch (step.kind) {
    case 'all': {
      const text = numberPlaceholders(step.sql);
      const values = step.values as unknown[];
      return (await connection.query(step.name === undefined ? { text, values } : { name: step.name, text, values })).rows;
    }
    case 'run':
      return (await connection.query(numberPlaceholders(step.sql), step.values as unknown[])).rowCount ?? 0;
    case 'lock':
      return connection.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [step.scope, step.key]);
    case 'native':
      return (step.run as (connection: Queryable | PoolClient) => unknown)(connection);
  }
}
