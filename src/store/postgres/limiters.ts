import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type pg from 'pg';
import type { LimiterFactory } from '../../budget/write-budget.js';

/** The write budget counted in the `write_budget` table (made by the migrations), shared by every process. */
export function postgresLimiters(pool: pg.Pool): LimiterFactory {
  return (points, duration) =>
    new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: 'write_budget',
      tableCreated: true,
      clearExpiredByTimeout: false,
      keyPrefix: 'workspace',
      points,
      duration,
    });
}
