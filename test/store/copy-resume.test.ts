// content-service copy stopped half way (a stop between two batches) and resumed, into PostgreSQL and into SQLite:
// refused without --resume, then no record twice and none missing; and `backup` of a SQLite store.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { newId } from '../../src/ids.js';
import { copyStore } from '../../src/store/copy/copy-store.js';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import { migrate } from '../../src/store/sqlite/migrations.js';
import { dropSchemaOf, freshPostgresUrl, postgresTarget } from '../support/databases.js';
import { runCli } from '../support/server.js';

const RECORDS = 600;
const pgTarget = await postgresTarget();
if ('failure' in pgTarget) throw new Error(pgTarget.failure);
const dir = mkdtempSync(join(tmpdir(), 'cs-copy-resume-'));
const sourceUrl = `sqlite:${join(dir, 'source.db')}`;
const pgUrls: string[] = [];
let modelId = '';

/** A store made by the raw driver on the service's schema: one workspace, one model with an indexed field, records. */
before(() => {
  const db = new Database(join(dir, 'source.db'));
  migrate(db);
  const [orgId, workspaceId, userId] = [newId(), newId(), newId()];
  modelId = newId();
  const now = Date.now();
  db.prepare('INSERT INTO organisations (id, slug, created_at) VALUES (?, ?, ?)').run(orgId, 'acme', now);
  db.prepare('INSERT INTO workspaces (id, org_id, slug, created_at) VALUES (?, ?, ?, ?)').run(workspaceId, orgId, 'main', now);
  db.prepare('INSERT INTO users (id, email, password_hash, created_at) VALUES (?, ?, ?, ?)').run(
    userId,
    'a@acme.test',
    'hash',
    now,
  );
  db.prepare("INSERT INTO memberships (workspace_id, user_id, role) VALUES (?, ?, 'owner')").run(workspaceId, userId);
  const fields = [
    { key: 'title', type: 'text', required: true, indexed: true },
    { key: 'n', type: 'number' },
  ];
  db.prepare(
    `INSERT INTO models (id, workspace_id, slug, name, display_field, fields, delivery_access, record_count, created_at, updated_at)
     VALUES (?, ?, 'thing', 'Thing', 'title', ?, 'none', ?, ?, ?)`,
  ).run(modelId, workspaceId, JSON.stringify(fields), RECORDS, now, now);
  const insert = db.prepare(
    'INSERT INTO records (id, model_id, workspace_id, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (let index = 0; index < RECORDS; index++) {
      insert.run(
        newId(),
        modelId,
        workspaceId,
        JSON.stringify({ title: `thing ${index}`, n: index / 7 }),
        now + index,
        now + index * 2,
      );
    }
  })();
  db.close();
});

after(async () => {
  for (const url of pgUrls) await dropSchemaOf(url);
  rmSync(dir, { recursive: true, force: true });
});

/** Records in the target: how many rows, how many distinct ids. */
async function recordCounts(url: string): Promise<{ n: number; ids: number }> {
  const sql = 'SELECT count(*) AS n, count(DISTINCT id) AS ids FROM records WHERE model_id = $1';
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      return db.prepare(sql.replace('$1', '?')).get(modelId) as { n: number; ids: number };
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: parsePostgresUrl(url).connectionString });
  await client.connect();
  try {
    const { rows } = await client.query(
      sql.replace('count(*)', 'count(*)::int').replace('count(DISTINCT id)', 'count(DISTINCT id)::int'),
      [modelId],
    );
    return rows[0];
  } finally {
    await client.end();
  }
}

/** The indexes (and, on PostgreSQL, foreign keys) of records in the target, by name. */
async function recordIndexes(url: string): Promise<string[]> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      const sql = "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' ORDER BY name";
      return db.prepare(sql).pluck().all() as string[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: parsePostgresUrl(url).connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT indexname AS name FROM pg_indexes WHERE schemaname = $1 AND tablename = 'records'
       UNION ALL SELECT conname FROM pg_constraint WHERE conrelid = to_regclass($1 || '.records') AND contype = 'f'
       ORDER BY name`,
      [parsePostgresUrl(url).schema],
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

const targets = [
  {
    name: 'PostgreSQL',
    skip: pgTarget.skip,
    url: () => {
      const url = freshPostgresUrl(process.env.DATABASE_URL!, 'copy_resume');
      pgUrls.push(url);
      return url;
    },
  },
  { name: 'SQLite', skip: undefined, url: () => `sqlite:${join(dir, 'target.db')}` },
];

/** A copy from the source into `url`, stopped by an error after its fourth batch of records (of 50). */
async function copyStoppedHalfWay(url: string): Promise<void> {
  let batches = 0;
  await assert.rejects(
    copyStore({
      from: sourceUrl,
      to: url,
      resume: false,
      batchRows: 50,
      onEvent(event) {
        if (event.phase === 'rows' && event.table === 'records' && ++batches === 4) throw new Error('stopped');
      },
    }),
    /stopped/,
  );
}

describe('copy resume', () => {
  for (const target of targets) {
    test(
      `copy: stopped half way into ${target.name}, refused without --resume, then resumed: no record twice, none missing`,
      { skip: target.skip },
      async () => {
        const url = target.url();
        await copyStoppedHalfWay(url);
        const partial = await recordCounts(url);
        assert.ok(partial.n > 0 && partial.n < RECORDS, `half way: ${partial.n} records`);
        // Dropped for the load (made again at its end): a stop meanwhile leaves them to --resume.
        const expectedIndexes = ['records_model_created', 'records_model_sku', 'records_model_updated'];
        const halfWayIndexes = await recordIndexes(url);
        for (const name of expectedIndexes) assert.ok(!halfWayIndexes.includes(name), `${name} dropped for the load`);

        const refused = await runCli(['copy', '--from', sourceUrl, '--to', url]);
        assert.equal(refused.code, 2, refused.stderr);
        assert.match(refused.stderr, /holds an unfinished copy from sqlite:.*source\.db: run the same command with --resume/);

        const resumed = await runCli(['copy', '--from', sourceUrl, '--to', url, '--resume']);
        assert.equal(resumed.code, 0, `${resumed.stdout}\n${resumed.stderr}`);
        assert.match(resumed.stderr, new RegExp(`resuming, ${partial.n + 5} of ${RECORDS + 5} rows already in the target`));
        assert.match(resumed.stdout, new RegExp(`^records +${RECORDS} → +${RECORDS} +ok$`, 'm'));
        assert.match(resumed.stdout, /counts and checksums match/);
        assert.deepEqual(await recordCounts(url), { n: RECORDS, ids: RECORDS });
        const indexes = await recordIndexes(url);
        for (const name of expectedIndexes) assert.ok(indexes.includes(name), `${name} made again: ${indexes.join(', ')}`);
        assert.ok(
          indexes.some((name) => name.startsWith('fx_')),
          `the field index of title: ${indexes.join(', ')}`,
        );
        if (!url.startsWith('sqlite:')) assert.ok(indexes.includes('records_model_id_fkey'), indexes.join(', '));

        const again = await runCli(['copy', '--from', sourceUrl, '--to', url, '--resume']);
        assert.equal(again.code, 2, 'a finished copy is not a copy to resume');
        assert.match(
          again.stderr,
          /is not empty \(1 organisations, 1 workspaces, 1 users, 1 memberships, 1 models, 600 records\)/,
        );
      },
    );
  }

  /** One changed byte in a record of the target, in each of the columns the checksum covers. */
  const tampers: { column: string; sqlite: string; postgres: string }[] = [
    {
      column: 'data',
      sqlite: "UPDATE records SET data = replace(data, 'thing', 'thinG') WHERE id = ?",
      postgres: `UPDATE records SET data = jsonb_set(data, '{title}', to_jsonb(replace(data->>'title', 'thing', 'thinG'))) WHERE id = $1`,
    },
    {
      column: 'id',
      sqlite: "UPDATE records SET id = id || 'x' WHERE id = ?",
      postgres: "UPDATE records SET id = id || 'x' WHERE id = $1",
    },
    {
      column: 'created_at',
      sqlite: 'UPDATE records SET created_at = created_at + 1 WHERE id = ?',
      postgres: 'UPDATE records SET created_at = created_at + 1 WHERE id = $1',
    },
    {
      column: 'updated_at',
      sqlite: 'UPDATE records SET updated_at = updated_at - 1 WHERE id = ?',
      postgres: 'UPDATE records SET updated_at = updated_at - 1 WHERE id = $1',
    },
  ];

  /** Changes the target's first record (in id order) with the statement of its kind. */
  async function tamper(url: string, change: (typeof tampers)[number]): Promise<void> {
    if (url.startsWith('sqlite:')) {
      const db = new Database(url.slice('sqlite:'.length));
      try {
        const id = db.prepare('SELECT min(id) FROM records').pluck().get();
        assert.equal(db.prepare(change.sqlite).run(id).changes, 1);
      } finally {
        db.close();
      }
      return;
    }
    const client = new pg.Client({ connectionString: parsePostgresUrl(url).connectionString });
    await client.connect();
    try {
      const { rows } = await client.query<{ id: string }>('SELECT min(id) AS id FROM records');
      assert.equal((await client.query(change.postgres, [rows[0]!.id])).rowCount, 1);
    } finally {
      await client.end();
    }
  }

  for (const target of targets) {
    test(
      `copy: a byte changed in the target's data, id or timestamps (${target.name}) fails the verification`,
      { skip: target.skip },
      async () => {
        for (const change of tampers) {
          // A fresh target each time: a file of its own on SQLite.
          const url = target.name === 'SQLite' ? `sqlite:${join(dir, `tampered-${change.column}.db`)}` : target.url();
          await copyStoppedHalfWay(url);
          await tamper(url, change);
          const resumed = await runCli(['copy', '--from', sourceUrl, '--to', url, '--resume']);
          assert.equal(resumed.code, 1, `${change.column}: ${resumed.stdout}\n${resumed.stderr}`);
          assert.match(
            resumed.stdout,
            new RegExp(`^model ${modelId} +${RECORDS} records +sha256 [0-9a-f]+ +MISMATCH`, 'm'),
            change.column,
          );
          assert.match(resumed.stdout, /The copy does NOT match its source/);
        }
      },
    );
  }

  test('backup: a consistent SQLite snapshot, never over an existing file; PostgreSQL gets the pg_dump command', async () => {
    const out = join(dir, 'backup.db');
    const result = await runCli(['backup', '--database', sourceUrl, '--out', out]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Backed up .*source\.db to .*backup\.db \(\d+ pages\)/);
    const check = await copyStore({ from: `sqlite:${out}`, to: `sqlite:${join(dir, 'from-backup.db')}`, resume: false });
    const fromSource = await copyStore({ from: sourceUrl, to: `sqlite:${join(dir, 'from-source.db')}`, resume: false });
    assert.equal(check.ok, true);
    assert.deepEqual(check.tables, fromSource.tables, 'as many rows in each table as the source');
    assert.deepEqual(check.models, fromSource.models, 'the same checksums as the source');

    const again = await runCli(['backup', '--database', sourceUrl, '--out', out]);
    assert.equal(again.code, 2, 'an existing file is not overwritten');
    assert.match(again.stderr, /exists already/);
    const advice = await runCli([
      'backup',
      '--database',
      'postgres://u:secret@db.internal:5432/content?schema=live',
      '--out',
      'content.dump',
    ]);
    assert.equal(advice.code, 1, 'nothing was written');
    assert.match(
      advice.stderr,
      /pg_dump --format=custom --schema=live --file=content\.dump 'postgres:\/\/u:\*\*\*@db\.internal:5432\/content'/,
    );
    assert.doesNotMatch(advice.stderr, /secret/);
  });
});
