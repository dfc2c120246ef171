// populate fetches the targets of a page in one query per path, never one per record: the SQL statements that
// read the records table are counted as the drivers run them (better-sqlite3's statements, pg's Pool.query), on a
// real store, SQLite and PostgreSQL (with DATABASE_URL). SQLite gives targets it kept from an earlier read at the
// same content version of their model without a query: "cold" reads first write to every target model.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Actor } from '../../src/services/actor.js';
import { ModelService } from '../../src/services/model-service.js';
import { RecordReader, type Reader } from '../../src/services/record-reader.js';
import { RecordService } from '../../src/services/record-service.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { postgresTarget, sqliteTarget } from '../support/databases.js';
import { ownedWorkspace } from '../support/workspaces.js';

/**
 * SQL texts run on the records table since the last reset, by either driver. SQLite's size checks (the sum of
 * octet_length(data) over some rows, which SQLite answers from the row headers before a read of records that may
 * be large) read no record and are not counted.
 */
const recordQueries: string[] = [];
const readsRecords = (sql: unknown) =>
  typeof sql === 'string' &&
  /\bFROM records\b/.test(sql) &&
  !/^SELECT (sum\()?octet_length\(data\)\)?( AS bytes)? FROM/.test(sql);

// Every statement the SQLite store runs is one of better-sqlite3's Statement objects; every PostgreSQL query goes
// through a pg Pool's query.
{
  const probe = new Database(':memory:');
  const statementPrototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, unknown>;
  probe.close();
  for (const method of ['all', 'get', 'run', 'iterate'] as const) {
    const original = statementPrototype[method] as (this: { source: string }, ...args: unknown[]) => unknown;
    statementPrototype[method] = function (this: { source: string }, ...args: unknown[]) {
      if (readsRecords(this.source)) recordQueries.push(this.source);
      return original.apply(this, args);
    };
  }
  const poolQuery = pg.Pool.prototype.query as (...args: unknown[]) => unknown;
  pg.Pool.prototype.query = function (this: pg.Pool, ...args: unknown[]) {
    const sql = typeof args[0] === 'object' && args[0] !== null ? (args[0] as { text?: string }).text : args[0];
    if (readsRecords(sql)) recordQueries.push(sql as string);
    return poolQuery.apply(this, args);
  } as typeof pg.Pool.prototype.query;
}

const postgres = await postgresTarget();
const targets = [sqliteTarget(), ...('failure' in postgres ? [] : [postgres])];
if ('failure' in postgres) {
  test('populate queries on PostgreSQL (CI=true requires PostgreSQL)', () => assert.fail(postgres.failure));
}

for (const target of targets) {
  describe(`populate queries on ${target.name}`, { skip: target.skip }, () => {
    let store: Store;
    let reader: RecordReader;
    let actor: Actor;
    let productId: string;
    /** One record of each target model, written again (unchanged) to move the model's content version. */
    let touched: string[];

    before(async () => {
      store = await openStore(target.url('populate'));
      actor = (await ownedWorkspace(store, 'acme')).actor;
      const models = new ModelService(store);
      const records = new RecordService(store);
      reader = new RecordReader(store, records);
      const category = await models.create(actor, {
        name: 'Category',
        slug: 'category',
        fields: [
          { key: 'title', type: 'translatable' },
          { key: 'parent', type: 'relation', relationTo: 'model:category' },
        ],
        deliveryAccess: 'public',
      });
      const tag = await models.create(actor, { name: 'Tag', slug: 'tag', fields: [{ key: 'label', type: 'text' }] });
      const product = await models.create(actor, {
        name: 'Product',
        slug: 'product',
        fields: [
          { key: 'title', type: 'text' },
          { key: 'category', type: 'relation', relationTo: 'model:category' },
          { key: 'tags', type: 'relation', relationTo: 'model:tag', relationType: 'hasMany' },
        ],
      });
      productId = product.id;
      const root = await records.create(actor, category.id, { title: { en: 'All' } });
      await records.import(
        actor,
        category.id,
        Array.from({ length: 10 }, (_, n) => ({ title: { en: `Category ${n}` }, parent: root.id })),
      );
      const categoryIds = (await records.list(actor.workspaceId, category.id, { limit: 100 })).items
        .map((r) => r.id)
        .filter((id) => id !== root.id);
      await records.import(
        actor,
        tag.id,
        Array.from({ length: 20 }, (_, n) => ({ label: `tag ${n}` })),
      );
      const tagIds = (await records.list(actor.workspaceId, tag.id, { limit: 100 })).items.map((r) => r.id);
      touched = [root.id, tagIds[0]!];
      await records.import(
        actor,
        product.id,
        Array.from({ length: 100 }, (_, n) => ({
          title: `Product ${n}`,
          category: categoryIds[n % categoryIds.length],
          tags: [tagIds[n % 20], tagIds[(n * 7) % 20], tagIds[(n * 3) % 20]],
        })),
      );
    });

    after(async () => {
      await store?.close();
      await target.cleanup();
    });

    const admin = (): Reader => ({ workspaceId: actor.workspaceId, publicOnly: false, withData: true });

    /** Writes every target model, so that nothing read before is kept. */
    async function cold(): Promise<void> {
      for (const id of touched) {
        await store.records.modify(actor.workspaceId, id, null, (current) => {
          const data = JSON.parse(JSON.stringify(current.data)) as Record<string, unknown>;
          return { data, dataText: JSON.stringify(data), sku: null, links: [] };
        });
      }
    }

    async function queriesOf(limit: number, populate: string[], { warm = false } = {}) {
      if (!warm) await cold();
      const model = (await store.models.get(actor.workspaceId, productId))!;
      recordQueries.length = 0;
      const page = await reader.list(admin(), model, { limit, populate, locale: 'en' });
      return { page, queries: [...recordQueries] };
    }

    test(`populate queries on ${target.name}: one query for the page and one per populate path, whatever the page size`, async () => {
      const paths = ['category', 'category.parent', 'tags'];
      for (const limit of [1, 10, 100]) {
        const { page, queries } = await queriesOf(limit, paths);
        assert.equal(page.items.length, limit);
        assert.equal(queries.length, 1 + paths.length, `limit ${limit}:\n${queries.join('\n')}`);
        const last = page.items[limit - 1]!.data as any;
        assert.equal(last.category.data.parent.data.title, 'All');
        assert.equal(last.tags.length, 3);
        assert.ok(last.tags.every((tag: any) => typeof tag.data.label === 'string'));
        // Read again with nothing written: SQLite gives the kept targets, PostgreSQL reads them again.
        const again = await queriesOf(limit, paths, { warm: true });
        assert.deepEqual(JSON.parse(JSON.stringify(again.page.items)), JSON.parse(JSON.stringify(page.items)));
        assert.equal(again.queries.length, target.name === 'SQLite' ? 1 : 1 + paths.length, again.queries.join('\n'));
      }
    });

    test(`populate queries on ${target.name}: without populate, the page is the only query`, async () => {
      const { queries } = await queriesOf(100, []);
      assert.equal(queries.length, 1, queries.join('\n'));
    });

    test(`populate queries on ${target.name}: getMany reads 100 records in one query, populate adds one per path`, async () => {
      const ids = (await store.records.list(productId, { limit: 100, offset: 0, sort: 'createdAt_asc' })).map((r) => r.id);
      await cold();
      recordQueries.length = 0;
      const found = await reader.getMany(admin(), ids, { populate: ['category'] });
      assert.equal(found.length, 100);
      assert.ok(found.every((record) => typeof (record!.data.category as any).id === 'string'));
      assert.equal(recordQueries.length, 2, recordQueries.join('\n'));
    });
  });
}
