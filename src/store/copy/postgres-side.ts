import pg from 'pg';
import { parsePostgresUrl } from '../postgres/index.js';
import { migrate } from '../postgres/migrations.js';
import { WritersMembership } from '../kept/sole-server.js';
import { quoteIdentifier } from '../postgres/sql.js';
import { CopyChain, copyIn, copyText } from './postgres-copy-in.js';
import { openChunkHasher } from './postgres-hasher.js';
import { copyClient } from './postgres-clients.js';
import { buildIndexes, deferIndexes, fieldIndexesBeforeLoad } from './postgres-indexes.js';
import { PROGRESS_TABLE } from './tables.js';
import type { CopySide, Row } from './side.js';

/**
 * Columns read through an expression instead of as they are: the workspace's content version takes in its
 * content_counters rows (which only PostgreSQL has), so that it never goes back on the target.
 */
const READ_EXPRESSIONS: Readonly<Record<string, string>> = {
  'workspaces.content_version':
    'content_version + coalesce((SELECT sum(c.changes) FROM content_counters c WHERE c.workspace_id = workspaces.id), 0)',
};

interface ColumnType {
  name: string;
  type: string;
}

/** `host:port/database`, for messages: never the password. */
export function describePostgres(connectionString: string, schema: string | null): string {
  const url = new URL(connectionString);
  const where = `${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname}`;
  return `postgres://${where}${schema ? `?schema=${schema}` : ''}`;
}

export async function openPostgresSide(databaseUrl: string, role: 'source' | 'target'): Promise<CopySide> {
  const options = parsePostgresUrl(databaseUrl);
  const description = describePostgres(options.connectionString, options.schema);
  const { client, membership } = await connectSide(options.connectionString, options.schema, role, description);
  const types = new Map<string, ColumnType[]>();
  let chain = { table: '', batches: new CopyChain() };

  async function columnTypes(table: string): Promise<ColumnType[]> {
    let columns = types.get(table);
    if (!columns) {
      const { rows } = await client.query<{ name: string; type: string }>(
        `SELECT column_name AS name, data_type AS type FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
        [table],
      );
      columns = rows;
      types.set(table, columns);
    }
    return columns;
  }

  async function query(sql: string, values: unknown[] = []): Promise<Row[]> {
    const result = await client.query({ text: sql, values, rowMode: 'array' });
    return result.rows as Row[];
  }

  return {
    description,
    dataIsJsonbText: true,
    async tableNames() {
      const rows = await query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
      );
      return rows.map((row) => String(row[0]));
    },
    async columnNames(table) {
      return (await columnTypes(table)).map((column) => column.name);
    },
    async count(table) {
      const rows = await query(`SELECT count(*) FROM ${quoteIdentifier(table)}`);
      return Number(rows[0]![0]);
    },
    async lastKey(table, key) {
      const order = key.map((column) => `${quoteIdentifier(column)} DESC`).join(', ');
      const rows = await query(
        `SELECT ${key.map(quoteIdentifier).join(', ')} FROM ${quoteIdentifier(table)} ORDER BY ${order} LIMIT 1`,
      );
      return rows[0] ?? null;
    },
    async readPage(table, columns, key, after, limit) {
      const byName = new Map((await columnTypes(table)).map((column) => [column.name, column]));
      const selected = columns.map((name) => byName.get(name)!);
      const keyColumns = key.map(quoteIdentifier).join(', ');
      const where = after === null ? '' : `WHERE (${keyColumns}) > (${key.map((_, index) => `$${index + 2}`).join(', ')})`;
      const rows = await query(
        `SELECT ${selected.map((column) => readExpression(table, column)).join(', ')} FROM ${quoteIdentifier(table)}
         ${where} ORDER BY ${keyColumns} LIMIT $1`,
        [limit, ...(after ?? [])],
      );
      // bigint comes as a string (pg keeps its precision); ours (times, counters) fit a double.
      const numeric = selected.map(
        (column) => column.type === 'bigint' || READ_EXPRESSIONS[`${table}.${column.name}`] !== undefined,
      );
      for (const row of rows) {
        for (let index = 0; index < row.length; index++) {
          if (numeric[index] && row[index] !== null) row[index] = Number(row[index]);
        }
      }
      return rows;
    },
    async beginSnapshot() {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    },
    async migrate() {
      await migrateTarget(options.connectionString, options.schema);
    },
    async writeRows(table, columns, rows) {
      if (rows.length === 0) return;
      // COPY, one statement (and transaction) a batch; its text form is the input form of each column's type.
      // A new table starts a new chain: a failed batch stopped the copy, and a resumed one starts over from the target.
      if (chain.table !== table) chain = { table, batches: new CopyChain() };
      await copyIn(
        client,
        `COPY ${quoteIdentifier(table)} (${columns.map(quoteIdentifier).join(', ')}) FROM STDIN`,
        copyText(rows),
        chain.batches,
      );
    },
    async deferIndexes(table) {
      await deferIndexes(client, query, table);
    },
    async fieldIndexesBeforeLoad(models, totalRecords) {
      await fieldIndexesBeforeLoad(client, models, totalRecords);
    },
    async readMarker() {
      return readMarker(query);
    },
    async writeMarker(source) {
      await writeMarker(client, source);
    },
    async dropMarker() {
      await client.query(`DROP TABLE IF EXISTS ${PROGRESS_TABLE}`);
    },
    async buildIndexes(models) {
      await buildIndexes(client, options.connectionString, models);
    },
    async openChunkHasher(connections) {
      return openChunkHasher(options.connectionString, connections);
    },
    async close() {
      await client.end().catch(() => {});
      await membership?.close();
    },
  };
}

/** The side's one connection (a source reads in one snapshot, a target writes one batch at a time), and a target's membership. */
async function connectSide(
  connectionString: string,
  schema: string | null,
  role: 'source' | 'target',
  description: string,
): Promise<{ client: pg.Client; membership: WritersMembership | null }> {
  const client = copyClient(connectionString);
  let membership: WritersMembership | null = null;
  try {
    // A target is written to: it counts itself among the schema's processes first, as every writer does
    // (a sole server there then stops keeping content versions).
    if (role === 'target') membership = await WritersMembership.join(connectionString, schema);
    await client.connect();
    await client.query('SELECT 1');
    // A batch lost to a crash of the server is written again by --resume, and the copy is verified at the end: it
    // need not wait for each commit to reach the disk.
    if (role === 'target') await client.query('SET synchronous_commit = off');
  } catch (error) {
    await client.end().catch(() => {});
    await membership?.close();
    throw new Error(`${role}: cannot reach PostgreSQL at ${description}: ${(error as Error).message}`, { cause: error });
  }
  return { client, membership };
}

/** The select expression that reads a column in the copy's form. */
function readExpression(table: string, column: ColumnType): string {
  const name = quoteIdentifier(column.name);
  const expression = READ_EXPRESSIONS[`${table}.${column.name}`];
  if (expression) return `(${expression})::bigint`;
  if (column.type === 'boolean') return `${name}::integer`;
  if (column.type === 'json' || column.type === 'jsonb') return `${name}::text`;
  return name;
}

async function writeMarker(client: pg.Client, source: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS ${PROGRESS_TABLE} (source text NOT NULL, started_at bigint NOT NULL)`);
    await client.query(`DELETE FROM ${PROGRESS_TABLE}`);
    await client.query(`INSERT INTO ${PROGRESS_TABLE} (source, started_at) VALUES ($1, $2)`, [source, Date.now()]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

async function readMarker(query: (sql: string, values?: unknown[]) => Promise<Row[]>): Promise<string | null> {
  const exists = await query('SELECT (to_regclass($1) IS NOT NULL)::integer', [PROGRESS_TABLE]);
  if (exists[0]![0] !== 1) return null;
  const rows = await query(`SELECT source FROM ${PROGRESS_TABLE} LIMIT 1`);
  return rows[0] ? String(rows[0][0]) : null;
}

/** The service's migrations, on a pool of one connection of their own. */
async function migrateTarget(connectionString: string, schema: string | null): Promise<void> {
  const pool = new pg.Pool({ connectionString, max: 1 });
  pool.on('error', () => {});
  try {
    await migrate(pool, schema);
  } finally {
    await pool.end();
  }
}
