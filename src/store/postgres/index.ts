import pg from 'pg';
import { PostgresPublishing } from './publishing.js';
import { PostgresScheduleStore } from './schedules.js';
import { PostgresAssetStore } from './assets.js';
import { PostgresHistoryWrites } from './record-history.js';
import { CoreHistoryStore } from '../core/history.js';
import { DEFAULT_HISTORY_KEEP } from '../../domain/revisions.js';
import type { Store } from '../store.js';
import { migrate } from './migrations.js';
import { PostgresModelStore } from './models.js';
import { RecordStatistics } from './record-statistics.js';
import { PostgresRecordStore } from './records.js';
import { CoreMemberStore } from '../core/members.js';
import { PostgresStepRunner } from './step-runner.js';
import { KeptReads } from '../kept/kept-reads.js';
import { WritersMembership } from '../kept/sole-server.js';
import { CoreTenancyStore } from '../core/tenancy.js';
import { PostgresTenancyReads } from './tenancy-reads.js';
import { trackWrites, WriteTracker } from '../kept/write-tracker.js';
import { quoteIdentifier } from './sql.js';
import { postgresLimiters } from './limiters.js';
import { PostgresOutbox } from './webhook-outbox.js';
import { PostgresWebhookStore } from './webhooks.js';

export const DEFAULT_POOL_SIZE = 10;
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PostgresOptions {
  /** The URL for pg, without our own query parameters. */
  connectionString: string;
  /** The schema to keep the tables in (created when missing); null: the server's default search_path. */
  schema: string | null;
  poolSize: number;
}

/**
 * Reads our parameters off a `postgres://` URL: `?schema=<name>` and `?pool=<N>` (else env PG_POOL_SIZE, else 10).
 * The schema becomes every connection's search_path through the startup `options`, so no query can run before it.
 */
export function parsePostgresUrl(databaseUrl: string, env: NodeJS.ProcessEnv = process.env): PostgresOptions {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new Error('PostgreSQL: the database URL is not a valid URL (postgres://user@host:5432/database)');
  }
  const schema = url.searchParams.get('schema');
  const pool = url.searchParams.get('pool') ?? env.PG_POOL_SIZE ?? null;
  url.searchParams.delete('schema');
  url.searchParams.delete('pool');
  if (schema !== null && !SCHEMA_PATTERN.test(schema)) {
    throw new Error(`PostgreSQL: schema "${schema}" must be 1-63 characters of a-z, 0-9 and "_", not starting with a digit`);
  }
  const poolSize = pool === null || pool === '' ? DEFAULT_POOL_SIZE : Number(pool);
  if (!Number.isInteger(poolSize) || poolSize < 1) {
    throw new Error(`PostgreSQL: pool size "${pool}" must be a positive whole number (?pool=N or PG_POOL_SIZE)`);
  }
  if (schema !== null) {
    const options = [url.searchParams.get('options'), `-c search_path=${quoteIdentifier(schema)}`].filter(Boolean);
    url.searchParams.set('options', options.join(' '));
  }
  return { connectionString: url.toString(), schema, poolSize };
}

export interface OpenPostgresOptions {
  /**
   * A server: it keeps the content versions it reads while it is the only process on the schema (sole-server.ts).
   * Every process counts itself among the schema's processes before its first statement, whatever this says.
   */
  keepVersions?: boolean;
  /** Told when the server becomes, or stops being, the only process on the schema (for its log). */
  onSoleChange?: (sole: boolean) => void;
  /** Revisions kept per record (0: none). */
  historyKeep?: number;
}

/** Connects a pool to the database the URL names and brings its schema up to date. */
export async function openPostgresStore(
  databaseUrl: string,
  { keepVersions = false, onSoleChange, historyKeep = DEFAULT_HISTORY_KEEP }: OpenPostgresOptions = {},
): Promise<Store> {
  const options = parsePostgresUrl(databaseUrl);
  let membership: WritersMembership;
  try {
    membership = await WritersMembership.join(options.connectionString, options.schema);
  } catch (error) {
    throw new Error(`PostgreSQL at ${describeServer(options.connectionString)}: ${(error as Error).message}`, { cause: error });
  }
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.poolSize });
  // An idle connection that breaks (server restart) is dropped by the pool; without a listener it would crash the process.
  pool.on('error', () => {});
  const tracker = new WriteTracker();
  trackWrites(pool, tracker, () => membership.whenCounted());
  try {
    await migrate(pool, options.schema);
  } catch (error) {
    await Promise.all([pool.end().catch(() => {}), membership.close()]);
    throw new Error(`PostgreSQL at ${describeServer(options.connectionString)}: ${(error as Error).message}`, { cause: error });
  }
  if (keepVersions) membership.keepTryingToBeSole(onSoleChange);
  let closed: Promise<void> | null = null;
  const outbox = new PostgresOutbox();
  const statistics = new RecordStatistics(pool);
  const publishedStatistics = new RecordStatistics(pool, 'published_records');
  const steps = new PostgresStepRunner(pool);
  const records = new PostgresRecordStore(
    pool,
    outbox,
    statistics,
    keepVersions ? new KeptReads(tracker, membership) : null,
    new PostgresHistoryWrites(historyKeep),
  );
  const publishing = new PostgresPublishing(pool, outbox, publishedStatistics);
  return {
    tenancy: new CoreTenancyStore(
      steps,
      new PostgresTenancyReads(
        pool,
        keepVersions ? { versions: new KeptReads(tracker, membership), tokens: new KeptReads(tracker, membership) } : null,
      ),
    ),
    models: new PostgresModelStore(
      pool,
      outbox,
      keepVersions ? { byId: new KeptReads(tracker, membership), lists: new KeptReads(tracker, membership) } : null,
      publishedStatistics,
    ),
    records,
    published: records.published!,
    publishing,
    schedules: new PostgresScheduleStore(pool, publishing, outbox),
    assets: new PostgresAssetStore(pool, records, outbox),
    webhooks: new PostgresWebhookStore(pool, outbox),
    members: new CoreMemberStore(steps),
    history: new CoreHistoryStore(steps, historyKeep),
    sharedLimiters: postgresLimiters(pool),
    async ping() {
      await pool.query('SELECT 1');
    },
    close() {
      closed ??= Promise.all([statistics.settled(), publishedStatistics.settled()])
        .then(() => pool.end())
        .then(() => membership.close());
      return closed;
    },
  };
}

/** `host:port/database`, for messages: never the password or the query. */
function describeServer(connectionString: string): string {
  const url = new URL(connectionString);
  return `${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname}`;
}
