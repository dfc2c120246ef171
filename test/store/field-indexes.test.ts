// Indexed fields on both stores (delivery.md, "Indexes"): model create, update and delete build and drop the
// indexes in the same call, and the planner serves the filters and sorts the stores compile with them, as
// EXPLAIN shows for the very SQL a page runs. SQLite always; PostgreSQL when DATABASE_URL is set.
import type { RecordTable } from '../../src/store/query/record-table.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { ModelDefinition } from '../../src/domain/fields.js';
import { readListing } from '../../src/domain/listing.js';
import { newId } from '../../src/ids.js';
import { openStore } from '../../src/store/open-store.js';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import { PostgresFilteredQuery, POSTGRES_FILTERS } from '../../src/store/postgres/record-filter.js';
import { firstSegment } from '../../src/store/query/filter-sql.js';
import { modelIndexPrefix } from '../../src/store/query/field-indexes.js';
import { SqliteFilteredQuery, SQLITE_FILTERS } from '../../src/store/sqlite/record-filter.js';
import type { NewRecord, Store } from '../../src/store/store.js';
import { postgresTarget, sqliteTarget } from '../support/databases.js';
import { ownedWorkspace } from '../support/workspaces.js';
import { field, modelShape as shape } from '../support/definitions.js';

const postgres = await postgresTarget();
if ('failure' in postgres) {
  test('field indexes on PostgreSQL (CI=true requires PostgreSQL)', () => {
    assert.fail(postgres.failure);
  });
}
const targets = [sqliteTarget(), ...('failure' in postgres ? [] : [postgres])];

const PRODUCT_FIELDS = [
  field('code', 'text', { indexed: true }),
  field('title', 'text', { indexed: true }),
  field('price', 'number', { indexed: true }),
  field('onSale', 'boolean', { indexed: true }),
  field('releasedOn', 'date', { indexed: true }),
  field('brand', 'relation', { relationTo: 'model:product', relationType: 'hasOne', indexed: true }),
  field('related', 'relation', { relationTo: 'model:product', relationType: 'hasMany', indexed: true }),
  field('meta', 'object', { fields: [field('weight', 'number', { indexed: true }), field('note', 'text')] }),
  field('name', 'translatable'),
];

/** What EXPLAIN says of a page or count query, one line per plan node. */
type Explain = (sql: string, values: unknown) => Promise<string>;

interface Catalog {
  explain: Explain;
  /** The names of the model's field indexes in the database's catalog (on `table`: records by default). */
  indexNames(modelId: string, table?: RecordTable): Promise<string[]>;
  /** The SQL and parameters of a page's first segment (what the store runs first for this query). */
  page(model: ModelDefinition, args: Parameters<typeof readListing>[1], table?: RecordTable): { sql: string; values: unknown };
  count(model: ModelDefinition, args: Parameters<typeof readListing>[1]): { sql: string; values: unknown };
  close(): Promise<void>;
}

function sqliteDatabase(url: string): Catalog {
  const db = new Database(url.slice('sqlite:'.length), { readonly: true });
  return {
    async explain(sql, values) {
      const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(values as Record<string, unknown>) as { detail: string }[];
      return rows.map((row) => row.detail).join('\n');
    },
    async indexNames(modelId, table = 'records') {
      const prefix = modelIndexPrefix(modelId, table);
      const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name").all() as { name: string }[];
      return rows.map((row) => row.name).filter((name) => name.startsWith(prefix));
    },
    page(model, args, table = 'records') {
      const query = readListing(model, args);
      const sql = new SqliteFilteredQuery(model.id, query.filter, table);
      return { sql: sql.page('id, data', firstSegment(query, SQLITE_FILTERS)), values: { ...sql.values, o: query.offset } };
    },
    count(model, args) {
      const sql = new SqliteFilteredQuery(model.id, readListing(model, args).filter);
      return { sql: sql.count(), values: sql.values };
    },
    async close() {
      db.close();
    },
  };
}

async function postgresDatabase(url: string): Promise<Catalog> {
  const options = parsePostgresUrl(url);
  const client = new pg.Client({ connectionString: options.connectionString });
  await client.connect();
  return {
    async explain(sql, values) {
      await client.query('ANALYZE records');
      await client.query('ANALYZE published_records');
      // Small tables: without this the planner may read the whole table, which says nothing about the index.
      await client.query('SET enable_seqscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values as unknown[]);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    },
    async indexNames(modelId, table = 'records') {
      const { rows } = await client.query<{ name: string }>(
        'SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 ORDER BY indexname',
        [table],
      );
      return rows.map((row) => row.name).filter((name) => name.startsWith(modelIndexPrefix(modelId, table)));
    },
    page(model, args, table = 'records') {
      const query = readListing(model, args);
      const sql = new PostgresFilteredQuery(model.id, query.filter, table);
      return { sql: sql.page(['id', 'data'], firstSegment(query, POSTGRES_FILTERS)), values: sql.values };
    },
    count(model, args) {
      const sql = new PostgresFilteredQuery(model.id, readListing(model, args).filter);
      return { sql: sql.count(), values: sql.values };
    },
    async close() {
      await client.end();
    },
  };
}

function record(data: Record<string, unknown>, sku: string | null = null, links: NewRecord['links'] = []): NewRecord {
  return { id: newId(), data, dataText: JSON.stringify(data), sku, links };
}

for (const target of targets) {
  describe(`field indexes on ${target.name}`, { skip: target.skip }, () => {
    let store: Store;
    let database: Catalog;
    let workspaceId: string;
    let url: string;

    before(async () => {
      url = target.url(`field_indexes_${randomBytes(3).toString('hex')}`);
      store = await openStore(url);
      const { workspace } = await ownedWorkspace(store, 'acme');
      workspaceId = workspace.id;
      database = url.startsWith('sqlite:') ? sqliteDatabase(url) : await postgresDatabase(url);
    });

    after(async () => {
      await database?.close();
      await store?.close();
      await target.cleanup();
    });

    test(`indexes (${target.name}): model create builds one per indexed value, not the SKU field nor a hasMany relation`, async () => {
      const model = await store.models.create(
        workspaceId,
        newId(),
        shape('product', PRODUCT_FIELDS, { product: { enabled: true, skuField: 'code', priceField: 'price' } }),
      );
      assert.equal((await database.indexNames(model.id)).length, 6, 'title, price, onSale, releasedOn, brand, meta.weight');
      const other = await store.models.create(workspaceId, newId(), shape('other', [field('title', 'text', { indexed: true })]));
      assert.equal((await database.indexNames(other.id)).length, 1);
      assert.equal((await database.indexNames(model.id)).length, 6, "another model's indexes are its own");
    });

    test(`indexes (${target.name}): the planner serves filters and sorts on indexed fields from their indexes`, async () => {
      const model = (await store.models.getBySlug(workspaceId, 'product'))!;
      const other = (await store.models.getBySlug(workspaceId, 'other'))!;
      const context = { model, userId: null };
      const rows: NewRecord[] = [];
      for (let index = 0; index < 3000; index++) {
        const data = {
          code: `C-${index}`,
          title: `Title ${index % 300}`,
          price: index % 500,
          onSale: index % 50 === 0,
          releasedOn: `2024-01-${String(1 + (index % 28)).padStart(2, '0')}`,
          meta: { weight: index % 700 },
        };
        rows.push(record(data, data.code));
      }
      await store.records.insertMany(context, rows);
      await store.records.insertMany(
        { model: other, userId: null },
        Array.from({ length: 3000 }, (_, index) => record({ title: `Title ${index % 300}` })),
      );
      const first = (await store.records.list(model.id, { limit: 1, offset: 0, sort: 'createdAt_asc' }))[0]!;
      const linked = record({ code: 'L-1', brand: first.id, related: [first.id] }, 'L-1', [
        { fieldKey: 'brand', targetId: first.id },
        { fieldKey: 'related', targetId: first.id },
      ]);
      await store.records.insertMany(context, [linked]);

      const names = await database.indexNames(model.id);
      const usesFieldIndex = (plan: string) => names.some((name) => plan.includes(name));
      const cases: [string, Parameters<typeof readListing>[1]][] = [
        ['text equality, creation order', { filter: { title: 'Title 7' } }],
        ['text equality, newest first', { filter: { title: 'Title 7' }, sort: 'createdAt_desc' }],
        ['number range', { filter: { price: { $gte: 10, $lt: 12 } } }],
        ['number $in', { filter: { price: { $in: [3, 4] } }, sort: '-price' }],
        ['boolean', { filter: { onSale: true } }],
        ['date range', { filter: { releasedOn: { $gt: '2024-01-27' } } }],
        ['hasOne relation', { filter: { brand: first.id } }],
        ['object sub-field', { filter: { 'meta.weight': 699 } }],
        ['sort by number, ascending', { sort: 'price' }],
        ['sort by number, descending', { sort: '-price' }],
        ['sort by text, descending', { sort: 'title_desc' }],
        ['sort by date', { sort: 'releasedOn_asc' }],
      ];
      for (const [name, args] of cases) {
        const page = database.page(model, args);
        const plan = await database.explain(page.sql, page.values);
        assert.ok(usesFieldIndex(plan), `${name}: the plan uses a field index\n${page.sql}\n${plan}`);
      }
      for (const [name, args] of cases.filter(([, args]) => args.filter)) {
        const count = database.count(model, args);
        const plan = await database.explain(count.sql, count.values);
        assert.ok(usesFieldIndex(plan), `${name} (count): the plan uses a field index\n${count.sql}\n${plan}`);
      }
      // The SKU field is served by the SKU column's own index, a hasMany relation by the links' primary key.
      const sku = database.page(model, { filter: { code: 'C-5' } });
      assert.match(await database.explain(sku.sql, sku.values), /records_model_sku/);
      const holds = database.page(model, { filter: { related: { $contains: first.id } } });
      assert.match(await database.explain(holds.sql, holds.values), /record_links/);
      // The pages themselves answer what the data says.
      const equal = await store.records.find(model.id, readListing(model, { filter: { title: 'Title 7' }, limit: 100 }));
      assert.equal(equal.length, 10);
      assert.equal(await store.records.count(model.id, readListing(model, { filter: { onSale: true } }).filter!), 60);
    });

    test(`indexes (${target.name}): a drafts model's published copies get the same indexes, which serve their filters`, async () => {
      const model = await store.models.create(
        workspaceId,
        newId(),
        shape('drafted', [field('title', 'text', { indexed: true }), field('n', 'number', { indexed: true })]),
      );
      assert.deepEqual(await database.indexNames(model.id, 'published_records'), [], 'none without drafts');
      await store.records.insertMany(
        { model, userId: null },
        Array.from({ length: 3000 }, (_, index) => record({ title: `Title ${index % 300}`, n: index })),
      );
      const drafted = await store.models.update(model, {
        shape: { ...shape('drafted', model.fields), drafts: true },
        removedFieldKeys: [],
        skuFieldChanged: null,
        drafts: 'on',
      });
      const names = await database.indexNames(model.id, 'published_records');
      assert.equal(names.length, 2);
      for (const args of [{ filter: { title: 'Title 7' } }, { filter: { n: { $gte: 10, $lt: 12 } } }, { sort: '-n' }]) {
        const page = database.page(drafted, args, 'published_records');
        const plan = await database.explain(page.sql, page.values);
        assert.ok(
          names.some((name) => plan.includes(name)),
          `${JSON.stringify(args)}: a published copies' index\n${page.sql}\n${plan}`,
        );
      }
      const found = await store.published.find(model.id, readListing(drafted, { filter: { title: 'Title 7' }, limit: 100 }));
      assert.equal(found.length, 10);
      const off = await store.models.update(drafted, {
        shape: { ...shape('drafted', model.fields), drafts: false },
        removedFieldKeys: [],
        skuFieldChanged: null,
        drafts: 'off',
      });
      assert.equal(off.drafts, false);
      assert.deepEqual(await database.indexNames(model.id, 'published_records'), [], 'gone with drafts');
    });

    test(`indexes (${target.name}): model update builds the indexes asked for and drops the others, in the same call`, async () => {
      const model = (await store.models.getBySlug(workspaceId, 'product'))!;
      const before = await database.indexNames(model.id);
      const fields = PRODUCT_FIELDS.map((item) =>
        item.key === 'price'
          ? field('price', 'number')
          : item.key === 'name'
            ? item
            : item.key === 'meta'
              ? field('meta', 'object', { fields: [field('weight', 'number'), field('note', 'text', { indexed: true })] })
              : item,
      ).filter((item) => item.key !== 'onSale');
      const updated = await store.models.update(model, {
        shape: { ...shape('product', fields), product: model.product },
        removedFieldKeys: ['onSale'],
        skuFieldChanged: null,
      });
      const after = await database.indexNames(model.id);
      assert.equal(after.length, 4, 'title, releasedOn, brand, meta.note');
      assert.equal(after.filter((name) => before.includes(name)).length, 3, 'title, releasedOn and brand keep their indexes');
      assert.equal(before.filter((name) => !after.includes(name)).length, 3, 'price, onSale and meta.weight lose theirs');
      const note = database.page(updated, { filter: { 'meta.note': 'x' } });
      const notePlan = await database.explain(note.sql, note.values);
      assert.ok(
        after.some((name) => !before.includes(name) && notePlan.includes(name)),
        `the new index serves its filter\n${notePlan}`,
      );
      const price = database.page(updated, { filter: { price: { $gte: 10, $lt: 12 } } });
      const pricePlan = await database.explain(price.sql, price.values);
      assert.ok(!before.concat(after).some((name) => pricePlan.includes(name)), `price has no index any more\n${pricePlan}`);
    });

    test(`indexes (${target.name}): a model's indexes go with it`, async () => {
      const model = await store.models.create(
        workspaceId,
        newId(),
        shape('gone', [field('title', 'text', { indexed: true }), field('n', 'number', { indexed: true })]),
      );
      assert.equal((await database.indexNames(model.id)).length, 2);
      assert.equal(await store.models.delete(workspaceId, model.id), true);
      assert.deepEqual(await database.indexNames(model.id), []);
    });

    test(`indexes (${target.name}): a refused update changes no index`, async () => {
      const model = await store.models.create(
        workspaceId,
        newId(),
        shape('dupes', [field('code', 'text'), field('n', 'number', { indexed: true })]),
      );
      await store.records.insertMany({ model, userId: null }, [record({ code: 'same' }), record({ code: 'same' })]);
      const before = await database.indexNames(model.id);
      await assert.rejects(
        store.models.update(model, {
          shape: shape('dupes', [field('code', 'text', { indexed: true }), field('n', 'number')], {
            product: { enabled: true, skuField: 'code', priceField: null },
          }),
          removedFieldKeys: [],
          skuFieldChanged: { skuField: 'code' },
        }),
        /^ServiceError: product\.skuField: stored records repeat values of "code"/,
      );
      assert.deepEqual(await database.indexNames(model.id), before);
    });

    test(`indexes (${target.name}): models created, updated and deleted eight at a time all succeed, each with its indexes`, async () => {
      // Index changes on `records` from interleaved transactions used to deadlock on PostgreSQL.
      const slugs = Array.from({ length: 8 }, (_, index) => `parallel-${index}`);
      const created = await Promise.all(
        slugs.map((slug) => store.models.create(workspaceId, newId(), shape(slug, [field('title', 'text', { indexed: true })]))),
      );
      const updated = await Promise.all(
        created.map((model) =>
          store.models.update(model, {
            shape: shape(model.slug, [field('title', 'text', { indexed: true }), field('n', 'number', { indexed: true })]),
            removedFieldKeys: [],
            skuFieldChanged: null,
          }),
        ),
      );
      for (const model of updated) assert.equal((await database.indexNames(model.id)).length, 2, model.slug);
      assert.deepEqual(
        await Promise.all(updated.map((model) => store.models.delete(workspaceId, model.id))),
        Array(8).fill(true),
      );
      for (const model of updated) assert.deepEqual(await database.indexNames(model.id), [], model.slug);
    });
  });
}
