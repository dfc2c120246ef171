// content-service copy SQLite → PostgreSQL over COPY, against the real PostgreSQL: every value of every copied table
// arrives exactly (text with unicode, quotes, backslashes, tabs, newlines, carriage returns, COPY's own markers `\N`
// and `\.`; JSON with escapes, deep nesting, exact numbers and nulls; SQL nulls), ids and timestamps kept, in many
// small batches with two in flight. The field indexes of the models that hold few of the records are made before the
// load (a copy stopped half way has them, and not those of the model holding most), and all of them after it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { newId } from '../../src/ids.js';
import { copyStore } from '../../src/store/copy/copy-store.js';
import { jsonbText } from '../../src/store/copy/jsonb-text.js';
import { openPostgresSide } from '../../src/store/copy/postgres-side.js';
import { EARLY_INDEX_SHARE } from '../../src/store/copy/postgres-indexes.js';
import type { CopySide, Row } from '../../src/store/copy/side.js';
import { openSqliteSide } from '../../src/store/copy/sqlite-side.js';
import { COPIED_TABLES } from '../../src/store/copy/tables.js';
import { modelIndexPrefix } from '../../src/store/query/field-indexes.js';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import { migrate } from '../../src/store/sqlite/migrations.js';
import { dropSchemaOf, freshPostgresUrl, postgresTarget } from '../support/databases.js';

const pgTarget = await postgresTarget();
if ('failure' in pgTarget) throw new Error(pgTarget.failure);
const dir = mkdtempSync(join(tmpdir(), 'cs-copy-exact-'));
const sourcePath = join(dir, 'source.db');
const pgUrls: string[] = [];

/** Text no layer may change on the way: COPY's escapes and markers, JSON's, and characters beyond ASCII. */
const HARD_TEXT = [
  'tab\there',
  'line\nbreak',
  'carriage\rreturn',
  'back\\slash',
  '\\N',
  '\\.',
  'say "hi" and \'bye\'',
  'Grüße, naïve café, 東京, עברית',
  'emoji 🚲👩‍👩‍👧 and U+2028 \u2028 here',
  '',
  ' leading and trailing ',
  '\\\\N\t\\t\n',
];

const BIG = 'big';
const SMALL = ['small-a', 'small-b', 'small-c'];
const BIG_RECORDS = 400;
const SMALL_RECORDS = 20;
const RECORDS = BIG_RECORDS + SMALL.length * SMALL_RECORDS;
const modelIds = new Map<string, string>();

const FIELDS = [
  { key: 'title', type: 'text', required: true, indexed: true },
  { key: 'n', type: 'number', indexed: true },
  { key: 'body', type: 'text' },
];

/** A record's data as the source holds it: JSON text, some of it not as JSON.stringify writes it. */
function dataText(index: number): string {
  const text = HARD_TEXT[index % HARD_TEXT.length]!;
  const value = {
    title: `${text} #${index}`,
    n: index % 3 === 0 ? index / 7 : index,
    body: text,
    nothing: null,
    nested: { list: [text, null, true, false, 0, -1.5, { deep: [[text]] }], empty: {}, none: [] },
  };
  const json = JSON.stringify(value);
  // Every fifth: escapes that jsonb writes otherwise, spaces, an exponent and a 20-digit integer, as other writers do.
  if (index % 5 !== 0) return json;
  return json.replace(
    '"nothing":null',
    '"nothing" : null, "esc": "\\u00e9\\/\\u001f", "exp": 1.20e1, "huge": 12345678901234567890',
  );
}

before(() => {
  const db = new Database(sourcePath);
  migrate(db);
  const now = Date.now();
  const [orgId, workspaceId, userId] = [newId(), newId(), newId()];
  db.prepare('INSERT INTO organisations (id, slug, created_at) VALUES (?, ?, ?)').run(orgId, 'acme', now);
  db.prepare('INSERT INTO workspaces (id, org_id, slug, created_at) VALUES (?, ?, ?, ?)').run(workspaceId, orgId, 'main', now);
  db.prepare('INSERT INTO users (id, email, password_hash, created_at) VALUES (?, ?, ?, ?)').run(
    userId,
    'ü"\\@acme.test',
    null,
    now,
  );
  db.prepare("INSERT INTO memberships (workspace_id, user_id, role) VALUES (?, ?, 'owner')").run(workspaceId, userId);
  const token = db.prepare(
    'INSERT INTO api_tokens (id, token_hash, workspace_id, user_id, name, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  HARD_TEXT.forEach((text, index) => token.run(newId(), `hash-${index}`, workspaceId, userId, text, now, index % 2 ? now : null));
  const model = db.prepare(
    `INSERT INTO models (id, workspace_id, slug, name, display_field, fields, delivery_access, record_count, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'title', ?, 'none', ?, ?, ?)`,
  );
  for (const slug of [BIG, ...SMALL]) {
    const id = newId();
    modelIds.set(slug, id);
    const count = slug === BIG ? BIG_RECORDS : SMALL_RECORDS;
    model.run(id, workspaceId, slug, `${slug} "名前"\t\\`, JSON.stringify(FIELDS), count, now, now);
  }
  const record = db.prepare(
    `INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const link = db.prepare('INSERT INTO record_links (target_id, source_id, field_key) VALUES (?, ?, ?)');
  const ids: string[] = [];
  db.transaction(() => {
    for (let index = 0; index < RECORDS; index++) {
      const slug = index < BIG_RECORDS ? BIG : SMALL[index % SMALL.length]!;
      const id = newId();
      const sku = index % 4 === 0 ? null : `SKU\t${index}\\`;
      const by = index % 2 === 0 ? null : userId;
      record.run(id, modelIds.get(slug), workspaceId, dataText(index), sku, now + index, now + index * 3, by, by);
      if (ids.length > 0) link.run(ids[index % ids.length], id, `field\t${index % 3}`);
      ids.push(id);
    }
    // Assets, with text and JSON no layer may change, exact doubles and nulls; a record's media field links to one.
    const asset = db.prepare(
      `INSERT INTO assets (id, workspace_id, filename, mime_type, type, size, width, height, blurhash, sha256, alt, tags,
         focal_x, focal_y, access, signing_key, created_at, updated_at, created_by)
       VALUES (?, ?, ?, 'image/png', 'image', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    HARD_TEXT.forEach((text, index) => {
      const id = newId();
      const full = index % 2 === 0;
      asset.run(
        id,
        workspaceId,
        `${text}.png`,
        10_000_000_000 + index,
        full ? 640 : null,
        full ? 480 : null,
        full ? `hash\\${text}` : null,
        `sha-${index}`,
        full ? JSON.stringify({ en: text, de: `${text} \u00e9` }) : null,
        JSON.stringify(full ? [text, 'tag'] : []),
        full ? 1 / 3 : null,
        full ? 0.1 + 0.2 : null,
        full ? 'public' : 'private',
        `key ${text}`,
        now - index,
        now + index,
        full ? userId : null,
      );
      link.run(id, ids[index]!, 'photo');
    });
  })();
  db.close();
});

after(async () => {
  for (const url of pgUrls) await dropSchemaOf(url);
  rmSync(dir, { recursive: true, force: true });
});

function targetUrl(): string {
  const url = freshPostgresUrl(process.env.DATABASE_URL!, 'copy_exact');
  pgUrls.push(url);
  return url;
}

/** Every row of a table in key order, as a copy side reads it. */
async function allRows(side: CopySide, table: string, key: readonly string[]): Promise<{ columns: string[]; rows: Row[] }> {
  const columns = await side.columnNames(table);
  return { columns, rows: await side.readPage(table, columns, key, null, 1_000_000) };
}

/** The jsonb columns of the target (read as jsonb's text; a json column keeps its text), by `table.column`. */
async function jsonColumns(url: string): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: parsePostgresUrl(url).connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT table_name || '.' || column_name AS name FROM information_schema.columns
       WHERE table_schema = $1 AND data_type = 'jsonb'`,
      [parsePostgresUrl(url).schema],
    );
    return new Set(rows.map((row) => row.name));
  } finally {
    await client.end();
  }
}

/** The names of the field indexes on the target's records, by model slug. */
async function fieldIndexes(url: string): Promise<Map<string, string[]>> {
  const client = new pg.Client({ connectionString: parsePostgresUrl(url).connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "SELECT indexname AS name FROM pg_indexes WHERE schemaname = $1 AND tablename = 'records' ORDER BY indexname",
      [parsePostgresUrl(url).schema],
    );
    const bySlug = new Map<string, string[]>();
    for (const [slug, id] of modelIds) {
      bySlug.set(
        slug,
        rows.map((row) => row.name).filter((name) => name.startsWith(modelIndexPrefix(id))),
      );
    }
    return bySlug;
  } finally {
    await client.end();
  }
}

describe('copy over COPY, exactly', { skip: pgTarget.skip }, () => {
  test('copy SQLite → PostgreSQL: every value of every table arrives exactly, in small batches two at a time', async () => {
    const url = targetUrl();
    const result = await copyStore({ from: `sqlite:${sourcePath}`, to: url, resume: false, batchRows: 7 });
    assert.equal(result.ok, true, JSON.stringify(result.tables));
    assert.deepEqual(
      result.models.map((model) => model.records).sort((a, b) => a - b),
      [SMALL_RECORDS, SMALL_RECORDS, SMALL_RECORDS, BIG_RECORDS],
    );

    const json = await jsonColumns(url);
    const source = openSqliteSide(sourcePath, 'source');
    const target = await openPostgresSide(url, 'source');
    try {
      for (const table of COPIED_TABLES) {
        const from = await allRows(source, table.name, table.key);
        const to = await allRows(target, table.name, table.key);
        assert.deepEqual(to.columns, from.columns, `${table.name}: the same columns`);
        assert.equal(to.rows.length, from.rows.length, `${table.name}: as many rows`);
        from.rows.forEach((row, index) => {
          const expected = row.map((value, column) =>
            value !== null && json.has(`${table.name}.${from.columns[column]!}`) ? jsonbText(String(value)) : value,
          );
          assert.deepEqual(to.rows[index], expected, `${table.name} row ${index}`);
        });
      }
      // The data's values, not only its text: the same after JSON.parse on both ends (20-digit integers as text aside).
      const sourceRecords = await allRows(source, 'records', ['id']);
      const targetRecords = await allRows(target, 'records', ['id']);
      const data = sourceRecords.columns.indexOf('data');
      const huge = /"huge": ?\d+/;
      sourceRecords.rows.forEach((row, index) => {
        const parse = (text: unknown) => JSON.parse(String(text).replace(huge, '"huge": 0')) as unknown;
        assert.deepEqual(parse(targetRecords.rows[index]![data]), parse(row[data]), `record ${String(row[0])}`);
      });
      assert.ok(
        sourceRecords.rows.some((row) => String(row[data]).includes('"huge": 12345678901234567890')),
        'a 20-digit integer',
      );
      assert.ok(
        targetRecords.rows.some((row) => String(row[data]).includes('"huge": 12345678901234567890')),
        'kept digit for digit',
      );
    } finally {
      await target.close();
      source.close();
    }

    const indexes = await fieldIndexes(url);
    for (const [slug, names] of indexes) assert.equal(names.length, 2, `${slug}: title and n indexed: ${names.join(', ')}`);
  });

  test('copy: the field indexes of models with few records are made before the load, the others after', async () => {
    assert.ok(SMALL_RECORDS < RECORDS * EARLY_INDEX_SHARE && BIG_RECORDS >= RECORDS * EARLY_INDEX_SHARE);
    const url = targetUrl();
    let batches = 0;
    await assert.rejects(
      copyStore({
        from: `sqlite:${sourcePath}`,
        to: url,
        resume: false,
        batchRows: 50,
        onEvent(event) {
          if (event.phase === 'rows' && event.table === 'records' && ++batches === 3) throw new Error('stopped');
        },
      }),
      /stopped/,
    );
    const halfWay = await fieldIndexes(url);
    assert.deepEqual(halfWay.get(BIG), [], 'the large model: built after the load');
    for (const slug of SMALL) assert.equal(halfWay.get(slug)!.length, 2, `${slug}: made before the load`);

    // Resumed: the indexes kept up so far stay (not dropped and deferred again), the others are built at the end.
    const resumed = await copyStore({ from: `sqlite:${sourcePath}`, to: url, resume: true, batchRows: 50 });
    assert.equal(resumed.ok, true);
    const done = await fieldIndexes(url);
    for (const [slug, names] of done) assert.equal(names.length, 2, `${slug}: ${names.join(', ')}`);
    for (const slug of SMALL) assert.deepEqual(done.get(slug), halfWay.get(slug));
  });
});
