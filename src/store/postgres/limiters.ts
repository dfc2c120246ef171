import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type pg from 'pg';
import type { LimiterFactory } from '../store.js';

/**
 * The write budget (and the sign-in limits) counted in the `write_budget` table (made by the migrations), shared
 * by every process. Rows expired for an hour are deleted every five minutes: sign-in limits make a row per email
 * tried, and a spraying attack tries many.
 */
export function postgresLimiters(pool: pg.Pool): LimiterFactory {
  return (points, duration, keyPrefix = 'workspace') =>
    new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: 'write_budget',
      tableCreated: true,
      clearExpiredByTimeout: keyPrefix !== 'workspace',
      keyPrefix,
      points,
      duration,
    });
}
