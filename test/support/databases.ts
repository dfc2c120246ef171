// The databases a suite runs against: SQLite always (a temporary directory), PostgreSQL when DATABASE_URL is set
// (each URL a fresh schema with a random name, dropped by cleanup). With CI=true an unreachable PostgreSQL is a
// failure to report, not a reason to skip.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';

export interface Target {
  name: string;
  /** A reason to skip, or undefined to run. */
  skip: string | undefined;
  /** A URL for a store on the target's database, a fresh one per name. */
  url(name: string): string;
  cleanup(): Promise<void>;
}

export function sqliteTarget(): Target {
  const dir = mkdtempSync(join(tmpdir(), 'cs-store-'));
  return {
    name: 'SQLite',
    skip: undefined,
    url: (name) => `sqlite:${join(dir, `${name}.db`)}`,
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function postgresTarget(): Promise<Target | { failure: string }> {
  const databaseUrl = process.env.DATABASE_URL;
  const suffix = randomBytes(5).toString('hex');
  const schemas = new Set<string>();
  const admin = () =>
    new pg.Client({ connectionString: parsePostgresUrl(databaseUrl ?? '').connectionString, connectionTimeoutMillis: 5000 });
  const target: Target = {
    name: 'PostgreSQL',
    skip: undefined,
    url(name) {
      const url = new URL(databaseUrl!);
      const schema = `cs_test_${suffix}_${name}`;
      schemas.add(schema);
      url.searchParams.set('schema', schema);
      return url.toString();
    },
    async cleanup() {
      const client = admin();
      await client.connect();
      try {
        for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
  if (!databaseUrl) return { ...target, skip: 'DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test)' };
  const client = admin();
  try {
    await client.connect();
    await client.query('SELECT 1');
    return target;
  } catch (error) {
    const reason = `PostgreSQL from DATABASE_URL is unreachable: ${(error as Error).message}`;
    return process.env.CI === 'true' ? { failure: reason } : { ...target, skip: reason };
  } finally {
    await client.end().catch(() => {});
  }
}

/** A URL for a new schema with a random name on the database of `databaseUrl`. */
export function freshPostgresUrl(databaseUrl: string, purpose: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('schema', `test_${purpose}_${randomBytes(6).toString('hex')}`);
  return url.toString();
}

/** Drops the schema a `?schema=` URL names, with everything in it. */
export async function dropSchemaOf(databaseUrl: string): Promise<void> {
  const schema = new URL(databaseUrl).searchParams.get('schema');
  if (!schema) return;
  const client = new pg.Client({ connectionString: parsePostgresUrl(databaseUrl).connectionString });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
