import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { onCleanup } from './cleanup.js';

export type DbKind = 'sqlite' | 'postgres';

export interface BenchDatabase {
  kind: DbKind;
  /** The URL the service takes (`--database`). */
  url: string;
  /** SQLite: the file; PostgreSQL: the schema. */
  location: string;
  dispose(): Promise<void>;
}

/** SQLite always; PostgreSQL when DATABASE_URL names one. `--db sqlite|postgres` picks one. */
export function databaseKinds(only: string): DbKind[] {
  const hasPostgres = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '');
  if (only === 'sqlite') return ['sqlite'];
  if (only === 'postgres') {
    if (!hasPostgres) throw new Error('--db postgres needs DATABASE_URL=postgres://user@host:5432/database');
    return ['postgres'];
  }
  return hasPostgres ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** The base PostgreSQL URL (DATABASE_URL without our own ?schema / ?pool parameters). */
export function postgresBaseUrl(): string {
  const url = new URL(process.env.DATABASE_URL!);
  url.searchParams.delete('schema');
  url.searchParams.delete('pool');
  return url.toString();
}

/** A fresh empty database: a new SQLite file in a temporary directory, or a new PostgreSQL schema. */
export async function createDatabase(kind: DbKind): Promise<BenchDatabase> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'cs-bench-'));
    const file = join(dir, 'content.db');
    const dispose = async () => rmSync(dir, { recursive: true, force: true });
    const unregister = onCleanup(dispose);
    return {
      kind,
      url: `sqlite:${file}`,
      location: file,
      dispose: async () => {
        unregister();
        await dispose();
      },
    };
  }
  const schema = `cs_bench_${randomBytes(5).toString('hex')}`;
  const url = new URL(process.env.DATABASE_URL!);
  url.searchParams.delete('schema');
  url.searchParams.set('schema', schema);
  const dispose = () => dropSchema(schema);
  const unregister = onCleanup(dispose);
  return {
    kind,
    url: url.toString(),
    location: schema,
    dispose: async () => {
      unregister();
      await dispose();
    },
  };
}

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresBaseUrl() });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
