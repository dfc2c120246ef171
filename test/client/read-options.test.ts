// The SDK's reading options against a real server process (delivery.md, "the same reading arguments on the admin
// route"): filter, sort by field, locale and populate on listRecords / listAll / getRecord, and getMany. Every
// expected answer is computed here from the rows the test inserted.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  ContentClient,
  ContentServiceError,
  MAX_IDS_PER_CALL,
  type ModelRecord,
  type RecordFilter,
} from '../../src/client/index.js';
import { bootstrapAdmin, type Admin } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';
import { createCatalog, ids, pickLocale, sortedBy, valueAt, type Catalog, type Row } from './catalog-fixture.js';

let server: TestServer;
let admin: Admin;
let client: ContentClient;
let catalog: Catalog;

before(async () => {
  server = await startServer();
  admin = await bootstrapAdmin(server);
  client = new ContentClient({ baseUrl: server.url, token: admin.token, workspaceId: admin.workspaceId });
  catalog = await createCatalog(client);
});

after(async () => {
  await server?.dispose();
});

async function all(filter: RecordFilter, options: { sort?: string; pageSize?: number } = {}): Promise<ModelRecord[]> {
  const found: ModelRecord[] = [];
  for await (const record of client.listAll(catalog.product.id, { filter, ...options })) found.push(record);
  return found;
}

function where(predicate: (row: Row) => boolean): (string | null)[] {
  return ids(catalog.products.filter(predicate));
}

const text = (row: Row, path: string) => valueAt(row, path) as string | undefined;

describe('filter', () => {
  test('each operator selects exactly the rows it names (creation order, every page)', async () => {
    const [boots, sneakers] = catalog.categories;
    const some = catalog.products.filter((_, i) => i % 5 === 0);
    const cases: [string, RecordFilter, (row: Row) => boolean][] = [
      ['equality on a relation', { category: boots!.id }, (row) => row.data.category === boots!.id],
      ['$eq on text', { slug: { $eq: 'shoe-17' } }, (row) => row.data.slug === 'shoe-17'],
      ['$ne on a boolean', { active: { $ne: true } }, (row) => row.data.active !== true],
      [
        '$gte and $lt on a number',
        { price: { $gte: 10, $lt: 100 } },
        (row) => typeof row.data.price === 'number' && row.data.price >= 10 && row.data.price < 100,
      ],
      [
        '$gt and $lte on a date',
        { released: { $gt: '2024-02-01', $lte: '2024-03-15' } },
        (row) => text(row, 'released')! > '2024-02-01' && text(row, 'released')! <= '2024-03-15',
      ],
      [
        '$in on the SKU',
        { sku: { $in: ['SKU-001', 'SKU-050', 'SKU-999'] } },
        (row) => ['SKU-001', 'SKU-050'].includes(text(row, 'sku')!),
      ],
      [
        '$nin on the SKU',
        { sku: { $nin: ['SKU-001', 'SKU-002'] } },
        (row) => !['SKU-001', 'SKU-002'].includes(text(row, 'sku')!),
      ],
      ['null means missing', { price: null }, (row) => row.data.price === undefined],
      ['$ne null means present', { price: { $ne: null } }, (row) => row.data.price !== undefined],
      ['$exists false', { price: { $exists: false } }, (row) => row.data.price === undefined],
      [
        '$contains on text is case-insensitive',
        { title: { $contains: 'EM 01' } },
        (row) => text(row, 'title')!.toLowerCase().includes('em 01'),
      ],
      [
        '$startsWith into one locale of a translatable',
        { 'name.en': { $startsWith: 'red SHOE' } },
        (row) => (text(row, 'name.en') ?? '').toLowerCase().startsWith('red shoe'),
      ],
      [
        '$contains on hasMany holds the id',
        { tags: { $contains: sneakers!.id } },
        (row) => (row.data.tags as string[]).includes(sneakers!.id),
      ],
      ['a sub-field of an object field', { 'meta.color': 'blue' }, (row) => valueAt(row, 'meta.color') === 'blue'],
      [
        '$or of two filters',
        { $or: [{ 'meta.color': 'red' }, { price: { $lt: 5 } }] },
        (row) => valueAt(row, 'meta.color') === 'red' || (typeof row.data.price === 'number' && row.data.price < 5),
      ],
      [
        '$and with $not',
        { $and: [{ active: true }, { $not: { 'meta.color': 'green' } }] },
        (row) => row.data.active === true && valueAt(row, 'meta.color') !== 'green',
      ],
      ['$not on a path', { price: { $not: { $gt: 50 } } }, (row) => !(typeof row.data.price === 'number' && row.data.price > 50)],
      ['the record id', { id: { $in: ids(some) as string[] } }, (row) => some.includes(row)],
      [
        'createdAt of the record',
        { createdAt: { $gte: catalog.products[100]!.createdAt } },
        (row) => row.createdAt >= catalog.products[100]!.createdAt,
      ],
    ];
    for (const [name, filter, predicate] of cases) {
      const expected = where(predicate);
      const found = await all(filter, { pageSize: 30 });
      assert.deepEqual(ids(found), expected, `${name}: ${JSON.stringify(filter)}`);
      const first = await client.listRecords(catalog.product.id, { filter, limit: 7 });
      assert.equal(first.total, expected.length, `${name}: total counts the filtered records`);
      assert.equal(first.hasMore, expected.length > 7, `${name}: hasMore`);
      assert.deepEqual(ids(first.items), expected.slice(0, 7), `${name}: first page`);
    }
  });

  test('listAll with a filter visits each matching record once, also after unfiltered paging of the model', async () => {
    const expected = where((row) => row.data.active === true);
    assert.ok(expected.length > 50 && expected.length < catalog.products.length);
    // Unfiltered paging first, so that any remembered page ends (offset → record) exist for these offsets.
    for await (const _ of client.listAll(catalog.product.id, { pageSize: 40 })) void _;
    const found = await all({ active: true }, { pageSize: 40 });
    assert.deepEqual(ids(found), expected);
    assert.equal(new Set(ids(found)).size, found.length, 'no record twice');
    const again = await all({ active: true }, { pageSize: 40 });
    assert.deepEqual(ids(again), expected, 'the same pages a second time');
  });

  test('refusals come back as ContentServiceError naming the path', async () => {
    const unknown = await client.listRecords(catalog.product.id, { filter: { colour: 'red' } }).catch((error: unknown) => error);
    assert.ok(unknown instanceof ContentServiceError);
    assert.equal(unknown.code, 'BAD_USER_INPUT');
    assert.equal(unknown.message, 'filter.colour: unknown field');
    assert.equal(unknown.field, 'filter', 'field: the argument, as for every refusal');

    const wrongType = await client
      .listRecords(catalog.product.id, { filter: { price: { $gte: '10' } } })
      .catch((error: unknown) => error);
    assert.ok(wrongType instanceof ContentServiceError);
    assert.equal(wrongType.code, 'BAD_USER_INPUT');
    assert.equal(wrongType.message, 'filter.price.$gte: expected a number');

    const operator = await client
      .listRecords(catalog.product.id, { filter: JSON.parse('{"$regex": "x"}') as RecordFilter })
      .catch((error: unknown) => error);
    assert.ok(operator instanceof ContentServiceError);
    assert.equal(operator.code, 'BAD_USER_INPUT');
    assert.match(operator.message, /^filter\.\$regex: unknown operator \(allowed: \$eq, /);
  });
});

// The filter type follows the contract's language: these lines must not compile (`npm run typecheck`).
export function rejectedFilterShapes(): RecordFilter[] {
  return [
    // @ts-expect-error an operator that does not exist
    { $regex: 'x' },
    // @ts-expect-error a field operator that does not exist
    { price: { $regex: 'x' } },
    // @ts-expect-error $gte takes a number or a string, not an array
    { price: { $gte: [1] } },
    // @ts-expect-error $in takes an array
    { price: { $in: 5 } },
    // @ts-expect-error $and takes an array of filters
    { $and: { price: 1 } },
    // @ts-expect-error $not takes one filter
    { $not: [{ price: 1 }] },
    // @ts-expect-error $exists takes a boolean
    { price: { $exists: 'yes' } },
    // @ts-expect-error a plain array is no condition
    { tags: ['a'] },
  ];
}

describe('sort', () => {
  async function sortedIds(sort: string): Promise<string[]> {
    const found: string[] = [];
    for await (const record of client.listAll(catalog.product.id, { sort, pageSize: 45 })) found.push(record.id);
    return found;
  }

  test('by a number, a text and a date field, both ways; missing values last; short forms', async () => {
    for (const [path, direction, sorts] of [
      ['price', 'asc', ['price_asc', 'price']],
      ['price', 'desc', ['price_desc', '-price']],
      ['title', 'desc', ['title_desc', '-title']],
      ['released', 'asc', ['released_asc', 'released']],
    ] as const) {
      const { present, missing } = sortedBy(catalog.products, path, direction);
      for (const sort of sorts) {
        const found = await sortedIds(sort);
        assert.equal(found.length, catalog.products.length, sort);
        assert.deepEqual(found.slice(0, present.length), ids(present), `${sort}: order of the values`);
        assert.deepEqual(
          [...found.slice(present.length)].sort(),
          (ids(missing) as string[]).sort(),
          `${sort}: records missing the field come last`,
        );
      }
    }
    assert.deepEqual(await sortedIds('-updatedAt'), await sortedIds('updatedAt_desc'));
  });

  test('a sort with a filter pages through the filtered records in that order', async () => {
    const filtered = catalog.products.filter((row) => row.data.active === false);
    const { present, missing } = sortedBy(filtered, 'price', 'desc');
    const found: string[] = [];
    for await (const record of client.listAll(catalog.product.id, { filter: { active: false }, sort: '-price', pageSize: 10 }))
      found.push(record.id);
    assert.deepEqual(found.slice(0, present.length), ids(present));
    assert.deepEqual(found.slice(present.length).sort(), (ids(missing) as string[]).sort());
  });

  test('an unknown sort is refused naming the allowed ones', async () => {
    const error = await client.listRecords(catalog.product.id, { sort: 'colour_asc' }).catch((e: unknown) => e);
    assert.ok(error instanceof ContentServiceError);
    assert.equal(error.code, 'BAD_USER_INPUT');
    assert.match(error.message, /^sort: .*createdAt_asc/);
  });
});

describe('locale and populate', () => {
  /** The populated form of a row, computed from the inserted rows (nested paths populated first). */
  function populated(row: Row | undefined, nested: Record<string, Row[]> = {}, locale?: string): unknown {
    if (!row) return null;
    const data: Record<string, unknown> = { ...row.data };
    for (const [key, targets] of Object.entries(nested)) {
      const value = data[key];
      if (typeof value === 'string')
        data[key] = populated(
          targets.find((t) => t.id === value),
          {},
          locale,
        );
    }
    if (locale) for (const key of ['name']) if (key in data) data[key] = pickLocale(data[key], locale);
    return { id: row.id, modelId: row.modelId, data, createdAt: row.createdAt, updatedAt: row.updatedAt };
  }

  test('locale picks the locale, then its language, then the default locale, then null', async () => {
    const page = await client.listRecords(catalog.product.id, { locale: 'de-AT', limit: 100 });
    assert.equal(page.items.length, 100);
    for (const record of page.items) {
      const row = catalog.products.find((r) => r.id === record.id)!;
      assert.deepEqual(record.data, { ...row.data, name: pickLocale(row.data.name, 'de-AT') }, record.id);
    }
    const values = new Set(page.items.map((record) => record.data.name));
    assert.ok(values.has(null), 'a name with none of the locales is null');
    assert.deepEqual(
      (await client.listRecords(catalog.product.id, { limit: 5 })).items.map((r) => r.data),
      catalog.products.slice(0, 5).map((r) => r.data),
      'without locale the stored objects',
    );
  });

  test('populate replaces relation ids with records (hasOne, hasMany, nested), with locale inside', async () => {
    const { categories, groups, products } = catalog;
    const page = await client.listRecords(catalog.product.id, {
      populate: ['category', 'tags', 'category.group'],
      locale: 'de',
      limit: 20,
      offset: 40,
    });
    assert.equal(page.items.length, 20);
    for (const [k, record] of page.items.entries()) {
      const row = products[40 + k]!;
      assert.equal(record.id, row.id);
      const category = categories.find((c) => c.id === row.data.category);
      assert.deepEqual(record.data.category, populated(category, { group: groups }, 'de'), 'hasOne, with its group');
      assert.deepEqual(
        record.data.tags,
        (row.data.tags as string[]).map((id) =>
          populated(
            categories.find((c) => c.id === id),
            {},
            'de',
          ),
        ),
        'hasMany in stored order, not nested',
      );
      assert.equal(record.data.supplier, row.data.supplier, 'a field not named stays an id');
      assert.equal(record.data.name, pickLocale(row.data.name, 'de'));
    }
  });

  test('getRecord takes locale and populate; the older getRecord(id, signal) still works', async () => {
    const row = catalog.products[8]!;
    const record = await client.getRecord(row.id, { locale: 'pl', populate: ['category'] });
    assert.equal(record?.data.name, pickLocale(row.data.name, 'pl'));
    assert.deepEqual(
      record?.data.category,
      populated(
        catalog.categories.find((c) => c.id === row.data.category),
        {},
        'pl',
      ),
    );

    assert.deepEqual((await client.getRecord(row.id, new AbortController().signal))?.data, row.data);
    const controller = new AbortController();
    controller.abort();
    const aborted = await client.getRecord(row.id, controller.signal).catch((error: unknown) => error);
    assert.ok(aborted instanceof ContentServiceError);
    assert.equal(aborted.code, 'ABORTED', 'the signal of the older form is used');
  });

  test('populate of a field that is not a relation is refused naming it', async () => {
    const error = await client.listRecords(catalog.product.id, { populate: ['title'] }).catch((e: unknown) => e);
    assert.ok(error instanceof ContentServiceError);
    assert.equal(error.code, 'BAD_USER_INPUT');
    assert.equal(error.message, 'populate.title: not a relation field');
  });
});

describe('getMany', () => {
  test('input order, null where not found, repeated ids repeated', async () => {
    const { products } = catalog;
    const missing = randomUUID();
    const wanted = [products[3]!.id, missing, products[1]!.id, products[3]!.id, catalog.groups[0]!.id];
    const found = await client.getMany(wanted);
    assert.deepEqual(ids(found), [products[3]!.id, null, products[1]!.id, products[3]!.id, catalog.groups[0]!.id]);
    assert.deepEqual(found[0]?.data, products[3]!.data);
    assert.deepEqual(await client.getMany([]), []);
  });

  test('more ids than one call takes go in calls of at most the cap, answers in input order', async () => {
    let calls = 0;
    const counting = new ContentClient({
      baseUrl: server.url,
      token: admin.token,
      workspaceId: admin.workspaceId,
      fetch: (input, init) => {
        const body = JSON.parse(String(init?.body)) as { variables: { ids?: unknown[] } };
        if (body.variables.ids) {
          calls += 1;
          assert.ok(body.variables.ids.length <= MAX_IDS_PER_CALL, `a call of ${body.variables.ids.length} ids`);
        }
        return fetch(input, init);
      },
    });
    const wanted: string[] = [];
    const expected: (string | null)[] = [];
    for (let i = 0; i < 2 * MAX_IDS_PER_CALL + 30; i += 1) {
      const row = catalog.products[(i * 7) % catalog.products.length]!;
      const id = i % 11 === 5 ? randomUUID() : row.id;
      wanted.push(id);
      expected.push(i % 11 === 5 ? null : row.id);
    }
    const found = await counting.getMany(wanted, { locale: 'en', populate: ['category'] });
    assert.equal(calls, 3);
    assert.deepEqual(ids(found), expected);
    const first = found[0]!;
    const row = catalog.products[0]!;
    assert.equal(first.data.name, pickLocale(row.data.name, 'en'));
    assert.equal((first.data.category as { id: string }).id, row.data.category);
  });

  test('the server refuses more ids than its cap in one call', async () => {
    const tooMany = Array.from({ length: MAX_IDS_PER_CALL + 1 }, () => randomUUID());
    const error = await client
      .request(`query($ids: [ID!]!) { record { getMany(ids: $ids) { id } } }`, { ids: tooMany })
      .catch((e: unknown) => e);
    assert.ok(error instanceof ContentServiceError);
    assert.equal(error.code, 'BAD_USER_INPUT');
    assert.match(error.message, /^ids: /);
  });
});

describe('getMany of large records', () => {
  let small: TestServer;
  before(async () => {
    small = await startServer({ env: { MAX_RESPONSE_BYTES: '200000' } });
  });
  after(async () => {
    await small?.dispose();
  });

  test('a call whose answer would be too large is asked again in halves', async () => {
    const owner = await bootstrapAdmin(small);
    const model = await owner.createSimpleModel();
    const rows = Array.from({ length: 10 }, (_, i) => ({ title: `big ${i}`, note: String(i).repeat(30_000) }));
    await owner.importRows(model.id, rows);
    // Ids only: a page with the data would be over the answer cap itself.
    const listed = await owner.ok(`query($m: ID!) { record { list(modelId: $m, limit: 100) { items { id } } } }`, {
      m: model.id,
    });
    const stored = listed.record.list.items as { id: string }[];
    const sizes: number[] = [];
    const halving = new ContentClient({
      baseUrl: small.url,
      token: owner.token,
      workspaceId: owner.workspaceId,
      fetch: (input, init) => {
        sizes.push((JSON.parse(String(init?.body)) as { variables: { ids: unknown[] } }).variables.ids.length);
        return fetch(input, init);
      },
    });
    const wanted = [...stored].reverse().map((record) => record.id);
    const found = await halving.getMany(wanted);
    assert.deepEqual(sizes, [10, 5, 5], 'refused whole, then two halves');
    assert.deepEqual(ids(found), wanted);
    assert.deepEqual(
      found.map((record) => record?.data),
      [...rows].reverse(),
    );
  });
});
