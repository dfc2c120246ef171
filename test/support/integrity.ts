// Checks a stopped (or crashed) server's database directly: the engine's own integrity check, plus the
// invariants the service keeps itself (kept record counts, relation links, parseable record data).
import Database from 'better-sqlite3';
import pg from 'pg';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';

export interface IntegrityReport {
  /** What was checked, e.g. `PRAGMA integrity_check`, for the figures a test prints. */
  checks: string[];
  /** Every violation found; empty when the database is sound. */
  problems: string[];
}

/** The invariant queries, one per problem kind; each returns rows `{ problem }` naming what is wrong. */
const INVARIANTS = {
  'kept record counts': `
    SELECT 'model ' || m.id || ': record_count ' || m.record_count || ', records ' || COUNT(r.id) AS problem
    FROM models m LEFT JOIN records r ON r.model_id = m.id
    GROUP BY m.id, m.record_count HAVING COUNT(r.id) <> m.record_count`,
  'relation links point at records': `
    SELECT 'link ' || l.source_id || ' -> ' || l.target_id || ' has no ' ||
           CASE WHEN s.id IS NULL THEN 'source' ELSE 'target' END AS problem
    FROM record_links l LEFT JOIN records s ON s.id = l.source_id LEFT JOIN records t ON t.id = l.target_id
    WHERE s.id IS NULL OR t.id IS NULL`,
  'records belong to their model workspace': `
    SELECT 'record ' || r.id || ' workspace differs from its model''s' AS problem
    FROM records r JOIN models m ON m.id = r.model_id WHERE r.workspace_id <> m.workspace_id`,
};

export async function checkIntegrity(databaseUrl: string): Promise<IntegrityReport> {
  return databaseUrl.startsWith('postgres') ? checkPostgres(databaseUrl) : checkSqlite(databaseUrl.replace(/^sqlite:/, ''));
}

function checkSqlite(path: string): IntegrityReport {
  // Opening read-write replays the WAL a killed process left, as the next server start would.
  const db = new Database(path);
  try {
    const problems: string[] = [];
    const integrity = db.pragma('integrity_check') as { integrity_check: string }[];
    if (integrity.length !== 1 || integrity[0]!.integrity_check !== 'ok') {
      problems.push(...integrity.map((row) => `integrity_check: ${row.integrity_check}`));
    }
    for (const row of db.pragma('foreign_key_check') as Record<string, unknown>[])
      problems.push(`foreign_key_check: ${JSON.stringify(row)}`);
    for (const sql of Object.values(INVARIANTS)) {
      for (const row of db.prepare(sql).all() as { problem: string }[]) problems.push(row.problem);
    }
    for (const row of db.prepare(`SELECT id FROM records WHERE NOT json_valid(data) OR json_type(data) <> 'object'`).all() as {
      id: string;
    }[]) {
      problems.push(`record ${row.id}: data is not a JSON object`);
    }
    return {
      checks: ['PRAGMA integrity_check', 'PRAGMA foreign_key_check', ...Object.keys(INVARIANTS), 'record data is a JSON object'],
      problems,
    };
  } finally {
    db.close();
  }
}

async function checkPostgres(databaseUrl: string): Promise<IntegrityReport> {
  const { connectionString, schema } = parsePostgresUrl(databaseUrl);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    if (schema) await client.query(`SET search_path TO "${schema}"`);
    const problems: string[] = [];
    const checks: string[] = [];
    const amcheck = await verifyIndexes(client, schema ?? 'public');
    checks.push(amcheck.check);
    problems.push(...amcheck.problems);
    for (const sql of Object.values(INVARIANTS)) {
      for (const row of (await client.query<{ problem: string }>(sql)).rows) problems.push(row.problem);
    }
    const notObjects = await client.query<{ id: string }>(`SELECT id FROM records WHERE jsonb_typeof(data) <> 'object'`);
    for (const row of notObjects.rows) problems.push(`record ${row.id}: data is not a JSON object`);
    checks.push(...Object.keys(INVARIANTS), 'record data is a JSON object');
    return { checks, problems };
  } finally {
    await client.end();
  }
}

/**
 * amcheck's bt_index_check(heapallindexed) on every B-tree index of the schema: each index is well formed and
 * indexes every heap row. amcheck ships with PostgreSQL (contrib); without it the check is reported as not run.
 */
async function verifyIndexes(client: pg.Client, schema: string): Promise<{ check: string; problems: string[] }> {
  const available = await client.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'amcheck'`);
  if (available.rowCount === 0) return { check: 'amcheck not available: index check not run', problems: [] };
  let installed = await client.query<{ schema: string }>(
    `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'amcheck'`,
  );
  if (installed.rowCount === 0) {
    // Into the test's own schema, so that dropping the schema removes it again.
    await client.query(`CREATE EXTENSION IF NOT EXISTS amcheck SCHEMA "${schema}"`);
    installed = await client.query(
      `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'amcheck'`,
    );
  }
  const amcheckSchema = installed.rows[0]!.schema;
  const indexes = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     JOIN pg_am a ON a.oid = c.relam WHERE n.nspname = $1 AND a.amname = 'btree'`,
    [schema],
  );
  const problems: string[] = [];
  for (const { name } of indexes.rows) {
    try {
      await client.query(`SELECT "${amcheckSchema}".bt_index_check(index => $1::regclass, heapallindexed => true)`, [
        `"${schema}"."${name}"`,
      ]);
    } catch (error) {
      problems.push(`bt_index_check ${name}: ${(error as Error).message}`);
    }
  }
  return { check: `amcheck bt_index_check(heapallindexed) on ${indexes.rowCount} indexes`, problems };
}
