import { mkdirSync } from 'node:fs';
import { SqlitePublishing } from './publishing.js';
import { SqliteScheduleStore } from './schedules.js';
import { SqliteAssetStore } from './assets.js';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Store } from '../store.js';
import { BackgroundCheckpointer } from './checkpointer.js';
import { migrate } from './migrations.js';
import { CoreMemberStore } from '../core/members.js';
import { SqliteStepRunner } from './step-runner.js';
import { SqliteModelStore } from './models.js';
import { FilterStatements, registerQueryFunctions } from './record-filter.js';
import { SqliteRecordStore } from './records.js';
import { CoreTenancyStore } from '../core/tenancy.js';
import { SqliteTenancyReads } from './tenancy-reads.js';
import { SqliteOutbox } from './webhook-outbox.js';
import { SqliteWebhookStore } from './webhooks.js';
import { SqliteHistoryWrites } from './record-history.js';
import { CoreHistoryStore } from '../core/history.js';
import { DEFAULT_HISTORY_KEEP } from '../../domain/revisions.js';

/**
 * Makes `db.prepare` return one statement per SQL text: compiling SQL costs more than running these small
 * statements. The store only calls run/get/all on them (never iterate), so sharing one statement is safe.
 * Returns the plain `prepare`, for statements whose texts are not a fixed few (filtered pages keep their own,
 * bounded cache).
 */
function reusePreparedStatements(db: Database.Database): (sql: string) => Database.Statement {
  const prepare = db.prepare.bind(db);
  const statements = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  }) as typeof db.prepare;
  return (sql) => prepare(sql);
}

/** Opens (creating when needed) the SQLite database file and brings its schema up to date. */
export function openSqliteStore(path: string, { historyKeep = DEFAULT_HISTORY_KEEP }: { historyKeep?: number } = {}): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // Statement journals in memory: an import's multi-row INSERT keeps one (it may have to undo itself), and past
  // 64 KiB SQLite spilled it to a temporary file, three times the writes of the rows themselves.
  db.pragma('temp_store = MEMORY');
  migrate(db);
  registerQueryFunctions(db);
  const prepareOnce = reusePreparedStatements(db);
  const checkpoints = new BackgroundCheckpointer(db, path);
  const outbox = new SqliteOutbox(db);
  const steps = new SqliteStepRunner(db);
  const records = new SqliteRecordStore(
    db,
    () => checkpoints.committed(),
    new FilterStatements(prepareOnce),
    outbox,
    new SqliteHistoryWrites(db, historyKeep),
  );
  const publishing = new SqlitePublishing(db, records.writes, outbox);
  return {
    tenancy: new CoreTenancyStore(steps, new SqliteTenancyReads(db)),
    models: new SqliteModelStore(db, outbox),
    records,
    published: records.published!,
    publishing,
    schedules: new SqliteScheduleStore(db, records.writes, publishing, outbox),
    assets: new SqliteAssetStore(db, records.writes, records, outbox),
    webhooks: new SqliteWebhookStore(db, outbox, records.writes),
    members: new CoreMemberStore(steps),
    history: new CoreHistoryStore(steps, historyKeep),
    sharedLimiters: null,
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async close() {
      records.writes.flush();
      await checkpoints.stop();
      db.close();
    },
  };
}
