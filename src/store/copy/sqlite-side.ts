import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { ModelDefinition } from '../../domain/fields.js';
import { syncFieldIndexes } from '../sqlite/field-indexes.js';
import { migrate } from '../sqlite/migrations.js';
import { registerQueryFunctions } from '../sqlite/record-filter.js';
import { DEFERRED_INDEXES_TABLE, PROGRESS_TABLE } from './tables.js';
import type { CopySide, ModelIndexSource, Row } from './side.js';

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `(a, b) > (?, ?)` and `a, b`: the keyset condition and order of a key. */
export function keysetSql(key: readonly string[], placeholders: readonly string[]): { after: string; order: string } {
  const columns = key.map(quote).join(', ');
  return { after: `(${columns}) > (${placeholders.join(', ')})`, order: columns };
}

export function openSqliteSide(path: string, role: 'source' | 'target'): CopySide {
  if (role === 'source' && !existsSync(path)) throw new Error(`source: no SQLite database at ${path}`);
  if (role === 'target') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, role === 'source' ? { readonly: true, fileMustExist: true } : {});
  db.pragma('busy_timeout = 5000');
  if (role === 'target') {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // The field indexes' expressions call the service's SQL functions.
    registerQueryFunctions(db);
  }
  const inserts = new Map<string, Database.Statement>();
  const pages = new Map<string, Database.Statement>();

  const side: CopySide = {
    description: `sqlite:${path}`,
    dataIsJsonbText: false,
    tableNames() {
      const rows = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
        .all();
      return (rows as { name: string }[]).map((row) => row.name);
    },
    columnNames(table) {
      return (db.pragma(`table_info(${quote(table)})`) as { name: string }[]).map((column) => column.name);
    },
    count(table) {
      return (db.prepare(`SELECT count(*) AS n FROM ${quote(table)}`).get() as { n: number }).n;
    },
    lastKey(table, key) {
      const order = key.map((column) => `${quote(column)} DESC`).join(', ');
      const row = db
        .prepare(`SELECT ${key.map(quote).join(', ')} FROM ${quote(table)} ORDER BY ${order} LIMIT 1`)
        .raw(true)
        .get();
      return (row as Row | undefined) ?? null;
    },
    readPage(table, columns, key, after, limit) {
      const sqlKey = `${table}|${columns.join(',')}|${after === null ? 'first' : 'next'}`;
      let statement = pages.get(sqlKey);
      if (!statement) {
        const keyset = keysetSql(
          key,
          key.map(() => '?'),
        );
        const where = after === null ? '' : `WHERE ${keyset.after}`;
        statement = db
          .prepare(`SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)} ${where} ORDER BY ${keyset.order} LIMIT ?`)
          .raw(true);
        pages.set(sqlKey, statement);
      }
      return statement.all(...(after ?? []), limit) as Row[];
    },
    beginSnapshot() {
      db.exec('BEGIN');
      // A read transaction starts at its first read: this one fixes the snapshot now.
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    },
    migrate() {
      migrate(db);
    },
    writeRows(table, columns, rows) {
      const sqlKey = `${table}|${columns.join(',')}`;
      let statement = inserts.get(sqlKey);
      if (!statement) {
        statement = db.prepare(
          `INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        );
        inserts.set(sqlKey, statement);
      }
      const insert = statement;
      db.transaction(() => {
        for (const row of rows) insert.run(row);
      })();
    },
    deferIndexes(table) {
      deferIndexes(db, table);
    },
    readMarker() {
      const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(PROGRESS_TABLE);
      if (!exists) return null;
      const row = db.prepare(`SELECT source FROM ${PROGRESS_TABLE} LIMIT 1`).get() as { source: string } | undefined;
      return row?.source ?? null;
    },
    writeMarker(source) {
      db.transaction(() => {
        db.exec(`CREATE TABLE IF NOT EXISTS ${PROGRESS_TABLE} (source TEXT NOT NULL, started_at INTEGER NOT NULL)`);
        db.prepare(`DELETE FROM ${PROGRESS_TABLE}`).run();
        db.prepare(`INSERT INTO ${PROGRESS_TABLE} (source, started_at) VALUES (?, ?)`).run(source, Date.now());
      })();
    },
    dropMarker() {
      db.exec(`DROP TABLE IF EXISTS ${PROGRESS_TABLE}`);
    },
    buildIndexes(models: readonly ModelIndexSource[]) {
      restoreIndexes(db);
      db.transaction(() => {
        for (const model of models) syncFieldIndexes(db, model.id, definitionOf(model));
      })();
    },
    close() {
      if (db.inTransaction) db.exec('COMMIT');
      db.close();
    },
  };
  return side;
}

export function definitionOf(model: ModelIndexSource): Pick<ModelDefinition, 'fields' | 'product'> {
  return {
    fields: JSON.parse(model.fields) as ModelDefinition['fields'],
    product: model.product === null ? null : (JSON.parse(model.product) as ModelDefinition['product']),
  };
}

/** Makes every index that deferIndexes dropped (in this run or a stopped one) again. */
function restoreIndexes(db: Database.Database): void {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(DEFERRED_INDEXES_TABLE);
  if (!exists) return;
  const indexes = db.prepare(`SELECT name, definition FROM ${DEFERRED_INDEXES_TABLE} ORDER BY name`).all() as {
    name: string;
    definition: string;
  }[];
  for (const index of indexes) {
    db.transaction(() => {
      db.exec(index.definition);
      db.prepare(`DELETE FROM ${DEFERRED_INDEXES_TABLE} WHERE name = ?`).run(index.name);
    })();
  }
  db.exec(`DROP TABLE ${DEFERRED_INDEXES_TABLE}`);
}

/** Drops the table's indexes, kept in DEFERRED_INDEXES_TABLE to be made again once its rows are in (restoreIndexes). */
function deferIndexes(db: Database.Database, table: string): void {
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS ${DEFERRED_INDEXES_TABLE} (name TEXT PRIMARY KEY, definition TEXT NOT NULL)`);
    // Those of PRIMARY KEY and UNIQUE constraints have no sql (and cannot be dropped).
    const indexes = db
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name")
      .all(table) as { name: string; sql: string }[];
    for (const index of indexes) {
      db.prepare(`INSERT INTO ${DEFERRED_INDEXES_TABLE} (name, definition) VALUES (?, ?)`).run(index.name, index.sql);
      db.exec(`DROP INDEX ${quote(index.name)}`);
    }
  })();
}
