// SQLite's updatedAt pages (src/store/sqlite/updated-order.ts): records_model_updated holds only the records
// modified after their creation, and an updatedAt page merges them with the never-modified ones read from
// records_model_created. The pages must be exactly those of ORDER BY updated_at, id on every record, and the
// planner must read both arms from their indexes (no sort of the model's records).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { ModelDefinition } from '../../src/domain/fields.js';
import { readListing, type ListArguments, type RecordSort } from '../../src/domain/listing.js';
import { newId } from '../../src/ids.js';
import { openStore } from '../../src/store/open-store.js';
import { firstSegment } from '../../src/store/query/filter-sql.js';
import { SqliteFilteredQuery, SQLITE_FILTERS } from '../../src/store/sqlite/record-filter.js';
import { updatedOrderSql } from '../../src/store/sqlite/updated-order.js';
import type { NewRecord, Store } from '../../src/store/store.js';
import { sqliteTarget } from '../support/databases.js';
import { ownedWorkspace } from '../support/workspaces.js';

const BASE = Date.parse('2026-01-01T00:00:00Z');
const COUNT = 240;
const SORTS: RecordSort[] = ['updatedAt_asc', 'updatedAt_desc'];

describe('updatedAt order on SQLite: the merge of the partial index and the creation index', () => {
  const target = sqliteTarget();
  let store: Store;
  let db: Database.Database;
  let model: ModelDefinition;

  before(async () => {
    const url = target.url('updated_order');
    store = await openStore(url);
    const { workspace } = await ownedWorkspace(store, 'acme');
    model = await store.models.create(workspace.id, newId(), {
      name: 'Item',
      slug: 'item',
      description: null,
      icon: null,
      color: null,
      fields: [
        { key: 'colour', label: 'colour', type: 'text', required: false },
        { key: 'n', label: 'n', type: 'number', required: false },
      ],
      product: null,
      displayField: 'colour',
      deliveryAccess: 'none',
    });
    const rows: NewRecord[] = Array.from({ length: COUNT }, (_, index) => {
      const data = { colour: ['red', 'green', 'blue'][index % 3]!, n: index };
      return { id: newId(), data, dataText: JSON.stringify(data), sku: null, links: [] };
    });
    await store.records.insertMany({ model, userId: null }, rows);
    db = new Database(url.slice('sqlite:'.length));
    // Creation times with ties (groups of 4 in one millisecond). A third of the records are modified: some later,
    // often at a time other records were created at (ties across the arms), some in the millisecond of their
    // creation (they stay in the never-modified arm, which is their place), one at a time before its creation (a
    // clock set back: it belongs to the modified arm, `<>`).
    const update = db.prepare('UPDATE records SET created_at = ?, updated_at = ? WHERE id = ?');
    db.transaction(() => {
      rows.forEach((row, index) => {
        const created = BASE + Math.floor(index / 4);
        let updated = created;
        if (index % 3 === 1) updated = created + 1 + (index % 5);
        if (index % 9 === 4) updated = created + 37;
        if (index === 17) updated = created - 3;
        update.run(created, updated, row.id);
      });
    })();
  });

  after(async () => {
    db?.close();
    await store?.close();
    await target.cleanup();
  });

  /** The ids of ORDER BY updated_at, id on every record: what the pages must be. */
  function expected(sort: RecordSort, limit: number, offset: number, where = '1'): string[] {
    const direction = sort.endsWith('_asc') ? 'ASC' : 'DESC';
    const rows = db
      .prepare(
        `SELECT id FROM records WHERE model_id = ? AND (${where}) ORDER BY updated_at ${direction}, id ${direction} LIMIT ? OFFSET ?`,
      )
      .all(model.id, limit, offset) as { id: string }[];
    return rows.map((row) => row.id);
  }

  test('the data covers both arms, ties and the cases the comment names', () => {
    const count = (where: string) =>
      (db.prepare(`SELECT count(*) AS n FROM records WHERE model_id = ? AND ${where}`).get(model.id) as { n: number }).n;
    assert.ok(count('updated_at = created_at') > 100);
    assert.ok(count('updated_at > created_at') > 50);
    assert.equal(count('updated_at < created_at'), 1);
    const ties = db
      .prepare(
        `SELECT count(*) AS n FROM records a JOIN records b ON a.updated_at = b.updated_at
         WHERE a.model_id = ? AND a.updated_at = a.created_at AND b.updated_at <> b.created_at`,
      )
      .get(model.id) as { n: number };
    assert.ok(ties.n > 10, 'records of both arms at the same time');
  });

  test('plain pages (list): every offset, both directions, the same as ORDER BY updated_at, id', async () => {
    for (const sort of SORTS) {
      for (const limit of [1, 7, 50, 100]) {
        for (let offset = 0; offset <= COUNT + 5; offset += limit === 1 ? 1 : 13) {
          const page = await store.records.list(model.id, { sort, limit, offset });
          assert.deepEqual(
            page.map((record) => record.id),
            expected(sort, limit, offset),
            `${sort} limit ${limit} offset ${offset}`,
          );
        }
      }
      const all = await store.records.list(model.id, { sort, limit: COUNT, offset: 0 });
      for (const record of all) assert.equal(typeof record.updatedAt, 'string');
    }
  });

  test('pages after a cursor continue the order across the arms', async () => {
    for (const sort of SORTS) {
      const all = expected(sort, COUNT, 0);
      const times = new Map(
        (
          db.prepare('SELECT id, updated_at FROM records WHERE model_id = ?').all(model.id) as {
            id: string;
            updated_at: number;
          }[]
        ).map((row) => [row.id, row.updated_at]),
      );
      for (let start = 1; start < COUNT; start += 11) {
        const last = all[start - 1]!;
        const page = await store.records.list(model.id, { sort, limit: 20, offset: start }, { time: times.get(last)!, id: last });
        assert.deepEqual(
          page.map((record) => record.id),
          all.slice(start, start + 20),
          `${sort} after ${start}`,
        );
      }
    }
  });

  test('filtered pages (find): the filter on both arms, a range on updatedAt too', async () => {
    const from = new Date(BASE + 20).toISOString();
    const cases: [ListArguments['filter'], string][] = [
      [{ colour: 'red' }, "json_extract(data, '$.colour') = 'red'"],
      [{ n: { $gte: 100 } }, "json_extract(data, '$.n') >= 100"],
      [{ updatedAt: { $gte: from } }, `updated_at >= ${BASE + 20}`],
      [
        { $or: [{ colour: 'blue' }, { updatedAt: { $lt: from } }] },
        `json_extract(data, '$.colour') = 'blue' OR updated_at < ${BASE + 20}`,
      ],
    ];
    for (const sort of SORTS) {
      for (const [filter, where] of cases) {
        for (const offset of [0, 5, 31, 64, 90]) {
          const query = readListing(model, { sort, filter, limit: 25, offset });
          const page = await store.records.find(model.id, query);
          assert.deepEqual(
            page.map((record) => record.id),
            expected(sort, 25, offset, where),
            `${sort} ${JSON.stringify(filter)} offset ${offset}`,
          );
        }
      }
    }
  });

  test('counts of filters on updatedAt add the two arms: the same as counting every record, read from the indexes', async () => {
    const at = (offset: number) => new Date(BASE + offset).toISOString();
    const cases: [ListArguments['filter'], string][] = [
      [{ updatedAt: { $gte: at(20) } }, `updated_at >= ${BASE + 20}`],
      [{ updatedAt: { $gt: at(30), $lt: at(45) } }, `updated_at > ${BASE + 30} AND updated_at < ${BASE + 45}`],
      [{ updatedAt: { $in: [at(3), at(40)] } }, `updated_at IN (${BASE + 3}, ${BASE + 40})`],
      [{ $not: { updatedAt: { $lte: at(50) } } }, `NOT (updated_at <= ${BASE + 50})`],
      [
        { $or: [{ colour: 'blue' }, { updatedAt: { $lt: at(20) } }] },
        `json_extract(data, '$.colour') = 'blue' OR updated_at < ${BASE + 20}`,
      ],
      [{ colour: 'red', updatedAt: { $ne: at(12) } }, `json_extract(data, '$.colour') = 'red' AND updated_at <> ${BASE + 12}`],
    ];
    for (const [filter, where] of cases) {
      const node = readListing(model, { filter }).filter!;
      const expectedCount = (
        db.prepare(`SELECT count(*) AS n FROM records WHERE model_id = ? AND (${where})`).get(model.id) as { n: number }
      ).n;
      assert.equal(await store.records.count(model.id, node), expectedCount, JSON.stringify(filter));
    }
    const range = new SqliteFilteredQuery(
      model.id,
      readListing(model, { filter: { updatedAt: { $gt: at(30), $lt: at(45) } } }).filter,
    );
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${range.count()}`).all(range.values) as { detail: string }[])
      .map((row) => row.detail)
      .join('\n');
    assert.match(plan, /COVERING INDEX records_model_created \(model_id=\? AND created_at>\? AND created_at<\?\)/, plan);
    assert.match(plan, /COVERING INDEX records_model_updated \(model_id=\? AND updated_at>\? AND updated_at<\?\)/, plan);
    assert.doesNotMatch(plan, /SCAN records/, plan);
  });

  test('a page over the response bound is refused at the same record as in ORDER BY updated_at, id', async () => {
    const sizes = new Map(
      (
        db.prepare('SELECT id, octet_length(data) AS size FROM records WHERE model_id = ?').all(model.id) as {
          id: string;
          size: number;
        }[]
      ).map((row) => [row.id, row.size]),
    );
    for (const sort of SORTS) {
      for (const offset of [0, 37, 150]) {
        const order = expected(sort, 30, offset);
        const fitting = 11;
        const bound = order.slice(0, fitting + 1).reduce((total, id) => total + sizes.get(id)!, 0) - 1;
        const refusal = { code: 'PAYLOAD_TOO_LARGE', extensions: { field: 'limit', maxResponseBytes: bound, fitting } };
        const reading = { data: true, maxDataBytes: bound };
        await assert.rejects(store.records.list(model.id, { sort, limit: 30, offset }, undefined, reading), refusal);
        const query = readListing(model, { sort, filter: { n: { $gte: 0 } }, limit: 30, offset });
        await assert.rejects(store.records.find(model.id, query, reading), refusal);
        assert.equal((await store.records.list(model.id, { sort, limit: fitting, offset }, undefined, reading)).length, fitting);
      }
    }
  });

  test('a modify moves the record to the modified arm, at its new time', async () => {
    const first = (await store.records.list(model.id, { sort: 'updatedAt_asc', limit: 1, offset: 0 }))[0]!;
    const modified = await store.records.modify(model.workspaceId, first.id, null, (current) => ({
      data: current.data,
      dataText: JSON.stringify(current.data),
      sku: null,
      links: [],
    }));
    assert.ok(modified);
    const newest = (await store.records.list(model.id, { sort: 'updatedAt_desc', limit: 1, offset: 0 }))[0]!;
    assert.equal(newest.id, first.id);
    assert.deepEqual(
      (await store.records.list(model.id, { sort: 'updatedAt_asc', limit: COUNT, offset: 0 })).map((record) => record.id),
      expected('updatedAt_asc', COUNT, 0),
    );
  });

  test('the plan reads each arm from its index alone: MERGE (UNION ALL), no temporary B-tree, then the page by rowid', () => {
    const plan = (sql: string, values: unknown[] | Record<string, unknown>) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(values) as { detail: string }[]).map((row) => row.detail).join('\n');
    const plans: [string, string][] = [];
    for (const direction of ['ASC', 'DESC'] as const) {
      // What the plain page runs (records.ts), with and without a cursor.
      const arms = { neverUpdated: 'model_id = ?', updated: 'model_id = ?' };
      plans.push([
        `plain ${direction}`,
        plan(updatedOrderSql('id, data', arms, direction, 'LIMIT 100 OFFSET ?'), [model.id, model.id, 0]),
      ]);
      const cursorArms = {
        neverUpdated: `model_id = ? AND (created_at, id) > (?, ?)`,
        updated: `model_id = ? AND (updated_at, id) > (?, ?)`,
      };
      plans.push([
        `cursor ${direction}`,
        plan(updatedOrderSql('id, data', cursorArms, direction, 'LIMIT 100'), [model.id, BASE, '', model.id, BASE, '']),
      ]);
    }
    for (const sort of SORTS) {
      for (const filter of [undefined, { updatedAt: { $gte: new Date(BASE + 20).toISOString() } }]) {
        const query = readListing(model, { sort, filter, limit: 100, offset: 10 });
        const sql = new SqliteFilteredQuery(model.id, query.filter);
        plans.push([
          `find ${sort} ${JSON.stringify(filter)}`,
          plan(sql.page('id, data', firstSegment(query, SQLITE_FILTERS)), { ...sql.values, o: 10 }),
        ]);
      }
    }
    for (const [name, text] of plans) {
      assert.match(text, /MERGE \(UNION ALL\)/, `${name}\n${text}`);
      // Unfiltered, or filtered on the times alone, the ids and times come from the indexes alone.
      assert.match(text, /SEARCH records USING COVERING INDEX records_model_created/, `${name}\n${text}`);
      assert.match(text, /SEARCH records USING COVERING INDEX records_model_updated/, `${name}\n${text}`);
      assert.match(
        text,
        /SEARCH records USING INTEGER PRIMARY KEY \(rowid=\?\)/,
        `${name}: the page's records by rowid\n${text}`,
      );
      assert.doesNotMatch(text, /TEMP B-TREE/, `${name}\n${text}`);
    }
  });

  test('records_model_updated is partial: a record never modified has no entry in it', () => {
    const sql = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'records_model_updated'").get() as { sql: string }).sql;
    assert.match(sql, /WHERE updated_at <> created_at$/);
  });
});
