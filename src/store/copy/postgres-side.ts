import pg from 'pg';
import { syncFieldIndexes } from '../postgres/field-indexes.js';
import { parsePostgresUrl } from '../postgres/index.js';
import { migrate } from '../postgres/migrations.js';
import { WritersMembership } from '../postgres/sole-server.js';
import { quoteIdentifier } from '../postgres/sql.js';
import { NULL_TEXT, type ChunkDigest } from './checksum.js';
import { copyIn, copyText } from './postgres-copy-in.js';
import { definitionOf } from './sqlite-side.js';
import { DEFERRED_INDEXES_TABLE, PROGRESS_TABLE } from './tables.js';
import type { ChunkHasher, CopySide, ModelIndexSource, Row } from './side.js';

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
  // One connection: a source reads in one snapshot, a target writes one batch at a time.
  const client = new pg.Client({ connectionString: options.connectionString, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  let membership: WritersMembership | null = null;
  try {
    // A target is written to: it counts itself among the schema's processes first, as every writer does
    // (a sole server there then stops keeping content versions).
    if (role === 'target') membership = await WritersMembership.join(options.connectionString, options.schema);
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
  const types = new Map<string, ColumnType[]>();

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

  /** The select expression that reads a column in the copy's form. */
  function readExpression(table: string, column: ColumnType): string {
    const name = quoteIdentifier(column.name);
    const expression = READ_EXPRESSIONS[`${table}.${column.name}`];
    if (expression) return `(${expression})::bigint`;
    if (column.type === 'boolean') return `${name}::integer`;
    if (column.type === 'json' || column.type === 'jsonb') return `${name}::text`;
    return name;
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
      const pool = new pg.Pool({ connectionString: options.connectionString, max: 1 });
      pool.on('error', () => {});
      try {
        await migrate(pool, options.schema);
      } finally {
        await pool.end();
      }
    },
    async writeRows(table, columns, rows) {
      if (rows.length === 0) return;
      // COPY, one statement (and transaction) a batch; its text form is the input form of each column's type.
      await copyIn(
        client,
        `COPY ${quoteIdentifier(table)} (${columns.map(quoteIdentifier).join(', ')}) FROM STDIN`,
        copyText(rows),
      );
    },
    async deferIndexes(table) {
      await client.query('BEGIN');
      try {
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${DEFERRED_INDEXES_TABLE} (name text PRIMARY KEY, definition text NOT NULL)`,
        );
        const name = quoteIdentifier(table);
        // Its foreign keys too: checked row by row (a query each) while loading, at once (one join) when made again.
        const foreignKeys = await query(
          "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = to_regclass($1) AND contype = 'f' ORDER BY conname",
          [name],
        );
        // The indexes that no constraint stands on (the primary key's, a UNIQUE constraint's, a foreign key's referenced key).
        const indexes = await query(
          `SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
           WHERE x.indrelid = to_regclass($1) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
           ORDER BY i.relname`,
          [name],
        );
        const save = `INSERT INTO ${DEFERRED_INDEXES_TABLE} (name, definition) VALUES ($1, $2)`;
        for (const [constraint, definition] of foreignKeys) {
          const quoted = quoteIdentifier(String(constraint));
          await client.query(save, [
            `${table}.${String(constraint)}`,
            `ALTER TABLE ${name} ADD CONSTRAINT ${quoted} ${String(definition)}`,
          ]);
          await client.query(`ALTER TABLE ${name} DROP CONSTRAINT ${quoted}`);
        }
        for (const [index, definition] of indexes) {
          await client.query(save, [String(index), definition]);
          await client.query(`DROP INDEX ${quoteIdentifier(String(index))}`);
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    },
    async readMarker() {
      const exists = await query('SELECT (to_regclass($1) IS NOT NULL)::integer', [PROGRESS_TABLE]);
      if (exists[0]![0] !== 1) return null;
      const rows = await query(`SELECT source FROM ${PROGRESS_TABLE} LIMIT 1`);
      return rows[0] ? String(rows[0][0]) : null;
    },
    async writeMarker(source) {
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

/** Connections that build indexes at once. */
const INDEX_CONNECTIONS = 2;

/** A session for one job of the copy's end: its own connection, closed after. */
async function withClients<T>(
  connectionString: string,
  count: number,
  setup: readonly string[],
  work: (clients: pg.Client[]) => Promise<T>,
): Promise<T> {
  const clients: pg.Client[] = [];
  try {
    for (let index = 0; index < count; index++) {
      const client = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
      client.on('error', () => {});
      clients.push(client);
      await client.connect();
      for (const statement of setup) await client.query(statement);
    }
    return await work(clients);
  } finally {
    await Promise.all(clients.map((client) => client.end().catch(() => {})));
  }
}

/** Runs the jobs on the clients, each client taking the next job when its last is done. */
async function runOn<T>(
  clients: readonly pg.Client[],
  jobs: readonly T[],
  run: (client: pg.Client, job: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (next < jobs.length) await run(client, jobs[next++]!);
    }),
  );
}

/**
 * The indexes that deferIndexes dropped and the models' field indexes, several at a time on connections of their
 * own (CREATE INDEX locks out writes, not other index builds); then the foreign keys (their check locks out index
 * builds, so they come after) and ANALYZE.
 */
async function buildIndexes(client: pg.Client, connectionString: string, models: readonly ModelIndexSource[]): Promise<void> {
  const exists = await client.query({
    text: 'SELECT (to_regclass($1) IS NOT NULL)::integer',
    values: [DEFERRED_INDEXES_TABLE],
    rowMode: 'array',
  });
  const deferred: { name: string; definition: string }[] =
    exists.rows[0]![0] === 1
      ? (
          await client.query<{ name: string; definition: string }>(
            `SELECT name, definition FROM ${DEFERRED_INDEXES_TABLE} ORDER BY name`,
          )
        ).rows
      : [];
  const constraints = deferred.filter((index) => index.definition.startsWith('ALTER TABLE'));
  type Job = { kind: 'deferred'; name: string; definition: string } | { kind: 'field'; model: ModelIndexSource };
  const jobs: Job[] = [
    ...deferred.filter((index) => !constraints.includes(index)).map((index) => ({ kind: 'deferred' as const, ...index })),
    ...models.map((model) => ({ kind: 'field' as const, model })),
  ];
  const restore = async (on: pg.Client, index: { name: string; definition: string }) => {
    await on.query('BEGIN');
    try {
      await on.query(index.definition);
      await on.query(`DELETE FROM ${DEFERRED_INDEXES_TABLE} WHERE name = $1`, [index.name]);
      await on.query('COMMIT');
    } catch (error) {
      await on.query('ROLLBACK').catch(() => {});
      throw error;
    }
  };
  await withClients(connectionString, INDEX_CONNECTIONS, ["SET maintenance_work_mem = '256MB'"], (clients) =>
    runOn(clients, jobs, async (on, job) => {
      if (job.kind === 'deferred') await restore(on, job);
      else await syncFieldIndexes(on, job.model.id, definitionOf(job.model));
    }),
  );
  for (const constraint of constraints) await restore(client, constraint);
  if (exists.rows[0]![0] === 1) await client.query(`DROP TABLE ${DEFERRED_INDEXES_TABLE}`);
  await client.query('ANALYZE records');
}

/** The line checksum.ts hashes for a record, made by PostgreSQL. */
const RECORD_LINE = `id || E'\\t' || data::text || E'\\t' || coalesce(created_at::text, '${NULL_TEXT}') || E'\\t' ||
  coalesce(updated_at::text, '${NULL_TEXT}') || E'\\n'`;

/** Chunks of the records hashed by PostgreSQL (checksum.ts), on `connections` connections of their own, in turn. */
async function openChunkHasher(connectionString: string, connections: number): Promise<ChunkHasher> {
  const clients: pg.Client[] = [];
  const close = () => Promise.all(clients.map((client) => client.end().catch(() => {}))).then(() => {});
  try {
    for (let index = 0; index < connections; index++) {
      const client = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
      client.on('error', () => {});
      clients.push(client);
      await client.connect();
      await client.query("SET work_mem = '64MB'");
    }
  } catch (error) {
    await close();
    throw error;
  }
  // Each client runs its queries one after another (pg queues them): a chunk goes to the one with the fewest waiting.
  const waiting = clients.map(() => 0);
  return {
    async chunk(lower, upper) {
      const conditions: string[] = [];
      const values: string[] = [];
      if (lower !== null) conditions.push(`id > $${values.push(lower)}`);
      if (upper !== null) conditions.push(`id <= $${values.push(upper)}`);
      const index = waiting.indexOf(Math.min(...waiting));
      waiting[index]!++;
      try {
        const { rows } = await clients[index]!.query<ChunkDigest>(
          `SELECT model_id AS "modelId", count(*)::integer AS records,
                  encode(sha256(convert_to(string_agg(${RECORD_LINE}, '' ORDER BY id), 'UTF8')), 'hex') AS digest
           FROM records ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''} GROUP BY model_id`,
          values,
        );
        return rows;
      } finally {
        waiting[index]!--;
      }
    },
    close,
  };
}
