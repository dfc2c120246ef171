// What the service tests that run on both stores share: the stores to run on, and the check of a refusal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServiceError } from '../../src/domain/errors.js';
import { postgresTarget, sqliteTarget, type Target } from './databases.js';

/**
 * SQLite, and PostgreSQL when DATABASE_URL reaches one. When it does not, a test named after `subject` fails with the
 * reason under CI=true (postgresTarget says when PostgreSQL may be skipped).
 */
export async function storeTargets(subject: string): Promise<Target[]> {
  const postgres = await postgresTarget();
  if ('failure' in postgres) {
    test(`${subject} on PostgreSQL (CI=true requires PostgreSQL)`, () => assert.fail(postgres.failure));
    return [sqliteTarget()];
  }
  return [sqliteTarget(), postgres];
}

/** For assert.rejects: a ServiceError with exactly this code and message. */
export function refusal(code: string, message: string): (error: unknown) => boolean {
  return (error: unknown) => {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, code);
    assert.equal(error.message, message);
    return true;
  };
}
