// record.list and the delivery route's records with `filter` and sort by field (delivery.md, "filter", "sort",
// "Indexes"), over HTTP against a real server: every operator with its expected records worked out here from the
// rows the test inserted, every refusal of the contract, the limits, hostile filters, sorts with missing values
// last, total and hasMore of filtered lists, the page size bound, and `indexed` in model definitions.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  Admin,
  authHeaders,
  bootstrapAdmin,
  dataOf,
  expectError,
  gql,
  request,
  uniqueSlug,
  type GqlResponse,
} from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let owner: Admin;
let productModel: any;
let categories: string[];
let tags: string[];
/** The inserted rows with their ids, in creation order. */
let products: { id: string; data: any }[];

interface ListArgs {
  filter?: unknown;
  sort?: string;
  limit?: number;
  offset?: number;
}

const LIST = `query($m: ID!, $filter: JSON, $sort: String, $limit: Int, $offset: Int) {
  record { list(modelId: $m, filter: $filter, sort: $sort, limit: $limit, offset: $offset) { total hasMore items { id data } } }
}`;

function listRaw(modelId: string, args: ListArgs): Promise<GqlResponse> {
  return owner.q(LIST, { m: modelId, ...args });
}

async function list(
  args: ListArgs,
  modelId: string = productModel.id,
): Promise<{ total: number; hasMore: boolean; items: { id: string; data: any }[] }> {
  return dataOf(await listRaw(modelId, args)).record.list;
}

async function ids(filter: unknown, sort?: string): Promise<string[]> {
  return (await list({ filter, sort, limit: 100 })).items.map((item) => item.id);
}

/** The ids of the inserted products the predicate keeps, in creation order. */
function expected(predicate: (data: any, id: string) => boolean): string[] {
  return products.filter((product) => predicate(product.data, product.id)).map((product) => product.id);
}

/** record.list of the product model with the filter variable sent as this JSON text, exactly as written. */
async function listWithFilterText(filterJson: string): Promise<GqlResponse> {
  const body = `{"query": ${JSON.stringify(LIST)}, "variables": {"m": ${JSON.stringify(productModel.id)}, "filter": ${filterJson}}}`;
  return request(server.adminUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...authHeaders(owner.credentials) },
    body,
  });
}

function refusal(response: GqlResponse): string {
  const error = expectError(response, 'BAD_USER_INPUT');
  assert.equal(error.extensions?.field, 'filter', JSON.stringify(error));
  return error.message;
}

before(async () => {
  // A small answer cap, to see the page bound apply to filtered pages; every other answer here is far smaller.
  server = await startServer({ env: { MAX_FIELD_BYTES: '4000', MAX_RECORD_BYTES: '30000', MAX_RESPONSE_BYTES: '100000' } });
  owner = await bootstrapAdmin(server);
  const category = await owner.createModel({
    slug: 'category',
    fields: [{ key: 'name', type: 'text' }],
    deliveryAccess: 'public',
  });
  categories = [];
  for (const name of ['shoes', 'hats', 'bags']) categories.push((await owner.createRecord(category.id, { name })).id);
  const tag = await owner.createModel({ slug: 'tag', fields: [{ key: 'name', type: 'text' }] });
  tags = [];
  for (const name of ['new', 'sale', 'eco']) tags.push((await owner.createRecord(tag.id, { name })).id);
  productModel = await owner.createModel({
    slug: 'product',
    displayField: 'title',
    deliveryAccess: 'public',
    product: { enabled: true, skuField: 'sku', priceField: 'price' },
    fields: [
      { key: 'sku', type: 'text', required: true },
      { key: 'title', type: 'text', indexed: true },
      { key: 'price', type: 'number', indexed: true },
      { key: 'inStock', type: 'boolean' },
      { key: 'releasedOn', type: 'date', indexed: true },
      { key: 'name', type: 'translatable' },
      { key: 'meta', type: 'object', fields: [{ key: 'colour', type: 'text' }] },
      { key: 'category', type: 'relation', relationTo: 'model:category', indexed: true },
      { key: 'tags', type: 'relation', relationTo: 'model:tag', relationType: 'hasMany' },
    ],
  });
  const [shoes, hats, bags] = categories as [string, string, string];
  const [isNew, sale, eco] = tags as [string, string, string];
  const rows = [
    {
      sku: 'A-1',
      title: 'Red Shoe',
      price: 50,
      inStock: true,
      releasedOn: '2024-03-01',
      name: { en: 'Shoe', pl: 'But' },
      meta: { colour: 'red' },
      category: shoes,
      tags: [isNew],
    },
    {
      sku: 'A-2',
      title: 'Blue Shoe',
      price: 120,
      inStock: false,
      releasedOn: '2024-05-01',
      name: { en: 'Shoe', de: 'Schuh' },
      meta: { colour: 'blue' },
      category: shoes,
      tags: [sale, eco],
    },
    {
      sku: 'A-3',
      title: 'Sun Hat',
      price: 20,
      inStock: true,
      releasedOn: '2023-12-24',
      name: { pl: 'Kapelusz' },
      category: hats,
      tags: [],
    },
    {
      sku: 'A-4',
      title: 'ŁÓDŹ Bag',
      price: 99.5,
      releasedOn: '2024-05-01T10:00:00Z',
      name: { pl: 'Torba z Łodzi' },
      meta: {},
      category: bags,
      tags: [eco],
    },
    { sku: 'A-5', title: 'Plain bag', inStock: false, category: bags },
    { sku: 'A-6', title: 'red cap', price: 20, inStock: true, meta: { colour: 'Red' }, tags: [isNew, sale] },
    { sku: 'B-1', title: '100% cotton_cap', price: 0, releasedOn: '2024-01-15', category: hats },
    { sku: 'B-2', price: -5 },
  ];
  const result = await owner.importRows(productModel.id, rows);
  assert.deepEqual(result.errors, []);
  products = (await owner.list(productModel.id, { limit: 100 })).items;
  assert.equal(products.length, rows.length);
});

after(async () => {
  await server?.dispose();
});

describe('filter operators', () => {
  test('filter: a plain value is equality; $eq and $ne; $ne and $nin match records missing the field', async () => {
    assert.deepEqual(
      await ids({ price: 20 }),
      expected((d) => d.price === 20),
    );
    assert.deepEqual(
      await ids({ price: { $eq: 20 } }),
      expected((d) => d.price === 20),
    );
    assert.deepEqual(
      await ids({ price: { $ne: 20 } }),
      expected((d) => d.price !== 20),
    );
    assert.deepEqual(
      await ids({ title: 'Red Shoe' }),
      expected((d) => d.title === 'Red Shoe'),
    );
    assert.deepEqual(
      await ids({ inStock: false }),
      expected((d) => d.inStock === false),
    );
    assert.deepEqual(
      await ids({ inStock: { $ne: true } }),
      expected((d) => d.inStock !== true),
    );
  });

  test('filter: $gt, $gte, $lt, $lte compare numbers, text (byte order) and ISO dates (as text)', async () => {
    assert.deepEqual(
      await ids({ price: { $gte: 20, $lt: 100 } }),
      expected((d) => d.price >= 20 && d.price < 100),
    );
    assert.deepEqual(
      await ids({ price: { $gt: 20 } }),
      expected((d) => d.price > 20),
    );
    assert.deepEqual(
      await ids({ price: { $lte: 0 } }),
      expected((d) => d.price <= 0),
    );
    assert.deepEqual(
      await ids({ title: { $lt: 'S' } }),
      expected((d) => typeof d.title === 'string' && d.title < 'S'),
    );
    assert.deepEqual(
      await ids({ releasedOn: { $gte: '2024-05-01' } }),
      expected((d) => typeof d.releasedOn === 'string' && d.releasedOn >= '2024-05-01'),
    );
    assert.deepEqual(
      await ids({ releasedOn: { $lt: '2024-01-01T00:00:00Z' } }),
      expected((d) => typeof d.releasedOn === 'string' && d.releasedOn < '2024-01-01T00:00:00Z'),
    );
  });

  test('filter: $in and $nin take arrays of values', async () => {
    assert.deepEqual(
      await ids({ sku: { $in: ['A-1', 'B-2', 'Z-9'] } }),
      expected((d) => ['A-1', 'B-2'].includes(d.sku)),
    );
    assert.deepEqual(
      await ids({ price: { $nin: [20, 50] } }),
      expected((d) => ![20, 50].includes(d.price)),
    );
    assert.deepEqual(await ids({ price: { $in: [] } }), []);
    assert.deepEqual(
      await ids({ price: { $nin: [] } }),
      expected(() => true),
    );
  });

  test('filter: $exists and null mean present or missing', async () => {
    assert.deepEqual(
      await ids({ price: { $exists: false } }),
      expected((d) => d.price === undefined),
    );
    assert.deepEqual(
      await ids({ price: null }),
      expected((d) => d.price === undefined),
    );
    assert.deepEqual(
      await ids({ releasedOn: { $ne: null } }),
      expected((d) => d.releasedOn !== undefined),
    );
    assert.deepEqual(
      await ids({ meta: { $exists: true } }),
      expected((d) => d.meta !== undefined),
    );
    assert.deepEqual(
      await ids({ name: { $exists: true } }),
      expected((d) => d.name !== undefined),
    );
    assert.deepEqual(
      await ids({ tags: { $exists: true } }),
      expected((d) => d.tags !== undefined),
    );
  });

  test('filter: $contains and $startsWith are case-insensitive on text, letters beyond A-Z too; % and _ are plain characters', async () => {
    const has = (text: unknown, part: string) => typeof text === 'string' && text.toLowerCase().includes(part.toLowerCase());
    assert.deepEqual(
      await ids({ title: { $contains: 'SHOE' } }),
      expected((d) => has(d.title, 'shoe')),
    );
    assert.deepEqual(
      await ids({ title: { $contains: 'łódź' } }),
      expected((d) => has(d.title, 'łódź')),
    );
    assert.deepEqual(
      await ids({ title: { $startsWith: 'red' } }),
      expected((d) => typeof d.title === 'string' && d.title.toLowerCase().startsWith('red')),
    );
    assert.deepEqual(
      await ids({ title: { $contains: '0%' } }),
      expected((d) => has(d.title, '0%')),
    );
    assert.deepEqual(
      await ids({ title: { $contains: '_' } }),
      expected((d) => has(d.title, '_')),
    );
    assert.deepEqual(
      await ids({ title: { $contains: '%' } }),
      expected((d) => has(d.title, '%')),
    );
    assert.deepEqual(
      await ids({ sku: { $startsWith: 'a-' } }),
      expected((d) => d.sku.startsWith('A-')),
    );
  });

  test('filter: paths into translations and object sub-fields', async () => {
    assert.deepEqual(
      await ids({ 'name.en': 'Shoe' }),
      expected((d) => d.name?.en === 'Shoe'),
    );
    assert.deepEqual(
      await ids({ 'name.pl': { $contains: 'ŁODZI' } }),
      expected((d) => typeof d.name?.pl === 'string' && d.name.pl.toLowerCase().includes('łodzi')),
    );
    // Without a locale, $contains searches every translation.
    assert.deepEqual(
      await ids({ name: { $contains: 'schu' } }),
      expected((d) => Object.values(d.name ?? {}).some((text: any) => text.toLowerCase().includes('schu'))),
    );
    assert.deepEqual(
      await ids({ 'meta.colour': { $in: ['red', 'Red'] } }),
      expected((d) => ['red', 'Red'].includes(d.meta?.colour)),
    );
    assert.deepEqual(
      await ids({ 'meta.colour': { $exists: false } }),
      expected((d) => d.meta?.colour === undefined),
    );
  });

  test('filter: relations compare ids; $contains on a hasMany relation means it holds the id', async () => {
    const [shoes] = categories as [string];
    const [isNew, sale] = tags as [string, string];
    assert.deepEqual(
      await ids({ category: shoes }),
      expected((d) => d.category === shoes),
    );
    assert.deepEqual(
      await ids({ category: { $ne: shoes } }),
      expected((d) => d.category !== shoes),
    );
    assert.deepEqual(
      await ids({ tags: { $contains: isNew } }),
      expected((d) => (d.tags ?? []).includes(isNew)),
    );
    assert.deepEqual(
      await ids({ tags: { $contains: sale } }),
      expected((d) => (d.tags ?? []).includes(sale)),
    );
    assert.deepEqual(
      await ids({ $not: { tags: { $contains: sale } } }),
      expected((d) => !(d.tags ?? []).includes(sale)),
    );
  });

  test('filter: the record id and timestamps', async () => {
    const [first, second] = [products[0]!, products[1]!];
    assert.deepEqual(await ids({ id: first.id }), [first.id]);
    assert.deepEqual(await ids({ id: { $in: [second.id, first.id] } }), [first.id, second.id]);
    assert.deepEqual(
      await ids({ id: { $nin: [first.id] } }),
      expected((_, id) => id !== first.id),
    );
    assert.deepEqual(
      await ids({ createdAt: { $gte: '2000-01-01' } }),
      expected(() => true),
    );
    assert.deepEqual(await ids({ updatedAt: { $lt: '2000-01-01T00:00:00Z' } }), []);
  });

  test('filter: $and, $or and $not combine filters; several paths and several operators must all hold', async () => {
    assert.deepEqual(
      await ids({ $or: [{ price: { $lt: 10 } }, { 'meta.colour': 'blue' }] }),
      expected((d) => d.price < 10 || d.meta?.colour === 'blue'),
    );
    assert.deepEqual(
      await ids({ $and: [{ inStock: true }, { $not: { price: 20 } }] }),
      expected((d) => d.inStock === true && d.price !== 20),
    );
    assert.deepEqual(
      await ids({ inStock: true, price: { $gt: 10, $lte: 50 } }),
      expected((d) => d.inStock === true && d.price > 10 && d.price <= 50),
    );
    // A condition on a missing value is false, so its negation holds.
    assert.deepEqual(
      await ids({ $not: { price: { $gt: 10 } } }),
      expected((d) => !(d.price > 10)),
    );
    assert.deepEqual(
      await ids({ price: { $not: { $gt: 10 } } }),
      expected((d) => !(d.price > 10)),
    );
  });

  test('filter: {} and null filter nothing; the answer is the one without a filter', async () => {
    const all = await list({ limit: 3 });
    assert.deepEqual(await list({ filter: {}, limit: 3 }), all);
    assert.deepEqual(await list({ filter: null, limit: 3 }), all);
  });
});

describe('filtered totals and paging', () => {
  test('filter: total and hasMore count the filtered records; paging walks them exactly once', async () => {
    const filter = { price: { $gte: 0 } };
    const matching = expected((d) => d.price >= 0);
    const seen: string[] = [];
    for (let offset = 0; ; offset += 2) {
      const page = await list({ filter, limit: 2, offset });
      assert.equal(page.total, matching.length);
      assert.equal(page.hasMore, offset + page.items.length < matching.length);
      seen.push(...page.items.map((item) => item.id));
      if (!page.hasMore) break;
    }
    assert.deepEqual(seen, matching);
    const none = await list({ filter: { sku: 'nope' } });
    assert.deepEqual(none, { total: 0, hasMore: false, items: [] });
    const limitZero = await list({ filter, limit: 0 });
    assert.deepEqual(limitZero, { total: matching.length, hasMore: true, items: [] });
  });

  test('filter: a selection without total (items only, hasMore alone, through a fragment) answers the same page', async () => {
    const filter = { price: { $gte: 0 } };
    const matching = expected((d) => d.price >= 0);
    const ask = async (selection: string, fragment = '') =>
      dataOf(
        await owner.q(
          `query($m: ID!, $filter: JSON, $limit: Int) { record { list(modelId: $m, filter: $filter, limit: $limit) { ${selection} } } } ${fragment}`,
          { m: productModel.id, filter, limit: 2 },
        ),
      ).record.list;
    assert.deepEqual(
      (await ask('items { id }')).items.map((item: { id: string }) => item.id),
      matching.slice(0, 2),
    );
    assert.deepEqual(await ask('hasMore'), { hasMore: matching.length > 2 });
    assert.deepEqual(await ask('...counted', 'fragment counted on ModelRecordList { total }'), { total: matching.length });
  });

  test('filter: a filtered page whose data is over MAX_RESPONSE_BYTES is refused with how many records fit', async () => {
    const model = await owner.createModel({
      fields: ['title', 'p1', 'p2', 'p3', 'p4', 'p5'].map((key) => ({ key, type: 'text' })),
    });
    const part = 'p'.repeat(3990);
    const rows = Array.from({ length: 12 }, (_, n) => ({
      title: n % 3 === 0 ? 'skip' : `r${n}`,
      p1: part,
      p2: part,
      p3: part,
      p4: part,
      p5: part,
    }));
    assert.equal((await owner.importRows(model.id, rows)).importedCount, 12);
    const filter = { title: { $ne: 'skip' } };
    const refused = expectError(await listRaw(model.id, { filter, limit: 8 }), 'PAYLOAD_TOO_LARGE');
    assert.equal(refused.extensions?.fitting, 4);
    assert.match(refused.message, /limit: 4 fit from this offset/);
    const fitting = await list({ filter, limit: 4 }, model.id);
    assert.deepEqual(
      fitting.items.map((item) => item.data.title),
      ['r1', 'r2', 'r4', 'r5'],
    );
    // Sorted by a field, the bound counts the whole page in its order too.
    expectError(await listRaw(model.id, { sort: '-title', limit: 8 }), 'PAYLOAD_TOO_LARGE');
    assert.equal((await list({ sort: '-title', limit: 4 }, model.id)).items[0]!.data.title, 'skip');
  });
});

describe('sort by field', () => {
  const titleOf = (id: string) => products.find((product) => product.id === id)!.data.title;
  const priceOf = (id: string) => products.find((product) => product.id === id)!.data.price;

  test('sort: by a number field both ways; records missing it last either way', async () => {
    const ascending = await ids(undefined, 'price_asc');
    const prices = ascending.map(priceOf);
    assert.deepEqual(prices, [-5, 0, 20, 20, 50, 99.5, 120, undefined]);
    const descending = await ids(undefined, 'price_desc');
    assert.deepEqual(descending.map(priceOf), [120, 99.5, 50, 20, 20, 0, -5, undefined]);
    // Ties (the two records at 20) are broken by id, in the direction of the sort.
    const tied = expected((d) => d.price === 20).sort();
    assert.deepEqual(
      ascending.filter((id) => priceOf(id) === 20),
      tied,
    );
    assert.deepEqual(
      descending.filter((id) => priceOf(id) === 20),
      [...tied].reverse(),
    );
  });

  test('sort: short forms mean the same, and sorts combine with filters and paging', async () => {
    assert.deepEqual(await ids(undefined, 'price'), await ids(undefined, 'price_asc'));
    assert.deepEqual(await ids(undefined, '-price'), await ids(undefined, 'price_desc'));
    assert.deepEqual(await ids(undefined, '-updatedAt'), await ids(undefined, 'updatedAt_desc'));
    assert.deepEqual(await ids(undefined, 'createdAt'), await ids(undefined, 'createdAt_asc'));
    const page = await list({ filter: { inStock: { $exists: true } }, sort: '-title', limit: 2, offset: 1 });
    const all = expected((d) => d.inStock !== undefined).sort((a, b) =>
      Buffer.compare(Buffer.from(titleOf(b)), Buffer.from(titleOf(a))),
    );
    assert.deepEqual(
      page.items.map((item) => item.id),
      all.slice(1, 3),
    );
    assert.equal(page.total, all.length);
  });

  test('sort: text sorts byte by byte, booleans false first, dates as their text; the missing come last', async () => {
    const titles = (await ids(undefined, 'title_asc')).map(titleOf);
    assert.deepEqual(titles, [
      '100% cotton_cap',
      'Blue Shoe',
      'Plain bag',
      'Red Shoe',
      'Sun Hat',
      'red cap',
      'ŁÓDŹ Bag',
      undefined,
    ]);
    const stock = (await list({ sort: 'inStock', limit: 100 })).items.map((item) => item.data.inStock);
    assert.deepEqual(stock, [false, false, true, true, true, undefined, undefined, undefined]);
    const released = (await list({ sort: '-releasedOn', limit: 100 })).items.map((item) => item.data.releasedOn);
    assert.deepEqual(released, [
      '2024-05-01T10:00:00Z',
      '2024-05-01',
      '2024-03-01',
      '2024-01-15',
      '2023-12-24',
      undefined,
      undefined,
      undefined,
    ]);
    const skus = (await list({ sort: 'sku_desc', limit: 3 })).items.map((item) => item.data.sku);
    assert.deepEqual(skus, ['B-2', 'B-1', 'A-6']);
  });

  test('sort: a page past the records holding the value continues with those missing it', async () => {
    const missing = expected((d) => d.price === undefined);
    const last = await list({ sort: '-price', limit: 5, offset: 7 });
    assert.deepEqual(
      last.items.map((item) => item.id),
      missing,
    );
    assert.equal(last.hasMore, false);
    const straddling = await list({ sort: 'price', limit: 3, offset: 6 });
    assert.deepEqual(
      straddling.items.map((item) => item.data.price),
      [120, undefined],
    );
  });

  test('sort: an unknown sort names the allowed ones, the fields of the model among them', async () => {
    for (const sort of ['colour_asc', 'name_asc', 'category', 'tags_desc', 'meta', '']) {
      const error = expectError(await listRaw(productModel.id, { sort }), 'BAD_USER_INPUT');
      assert.match(
        error.message,
        /^sort: must be one of createdAt_asc, createdAt_desc, updatedAt_asc, updatedAt_desc, sku_asc, sku_desc, title_asc, title_desc, price_asc, price_desc, inStock_asc, inStock_desc, releasedOn_asc, releasedOn_desc \(or a short form such as sku or -sku\)$/,
        sort,
      );
    }
  });
});

describe('filter refusals', () => {
  test('filter: the refusals of the contract, word for word, as BAD_USER_INPUT naming the path', async () => {
    assert.equal(refusal(await listRaw(productModel.id, { filter: { colour: 'red' } })), 'filter.colour: unknown field');
    assert.equal(refusal(await listRaw(productModel.id, { filter: { titel: 'x' } })), 'filter.titel: unknown field');
    assert.equal(
      refusal(await listRaw(productModel.id, { filter: { price: { $gte: 'ten' } } })),
      'filter.price.$gte: expected a number',
    );
    assert.equal(
      refusal(await listRaw(productModel.id, { filter: { $regex: 'a.*' } })),
      'filter.$regex: unknown operator (allowed: $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $exists, $contains, $startsWith, $and, $or, $not)',
    );
  });

  test('filter: values of the wrong type, operators that do not apply, paths beyond the model', async () => {
    const cases: [unknown, RegExp][] = [
      [{ releasedOn: { $gt: 'yesterday' } }, /^filter\.releasedOn\.\$gt: expected an ISO 8601 date/],
      [
        { createdAt: { $gt: 1714000000000 } },
        /^filter\.createdAt\.\$gt: expected an ISO 8601 date or date-time with a time zone/,
      ],
      [{ inStock: 'yes' }, /^filter\.inStock: expected true or false$/],
      [{ category: 7 }, /^filter\.category: expected a record id \(string\)$/],
      [{ price: { $contains: 5 } }, /^filter\.price\.\$contains: \$contains does not apply to a number field/],
      [
        { tags: tags[0] },
        /^filter\.tags: a plain value means \$eq, which does not apply to a hasMany relation \(allowed: \$contains, \$exists\)$/,
      ],
      [
        { 'category.name': 'shoes' },
        /^filter\.category\.name: category is a relation: a path cannot reach into the records it points at$/,
      ],
      [{ 'meta.colour.x': 'a' }, /^filter\.meta\.colour\.x: meta\.colour is a text field: it has no sub-paths$/],
      [{ 'a.b.c.d': 1 }, /^filter\.a\.b\.c\.d: unknown field$/],
      [{ price: { $in: 'x' } }, /^filter\.price\.\$in: expected an array of values$/],
      [{ $and: {} }, /^filter\.\$and: expected a non-empty array of filters$/],
    ];
    for (const [filter, pattern] of cases)
      assert.match(refusal(await listRaw(productModel.id, { filter })), pattern, JSON.stringify(filter));
    const notObject = expectError(await listRaw(productModel.id, { filter: 'price > 5' }), 'BAD_USER_INPUT');
    assert.match(notObject.message, /^filter: expected a JSON object of conditions/);
  });

  test('filter: hostile keys and paths are refused by name and never reach SQL', async () => {
    const cases: [string, RegExp][] = [
      ['{"__proto__": {"price": 1}}', /^filter\.__proto__: key not allowed$/],
      ['{"price": {"__proto__": 1}}', /^filter\.price\.__proto__: unknown operator/],
      ['{"constructor": {"prototype": 1}}', /^filter\.constructor: key not allowed$/],
      [`{"a'); DROP TABLE records; --": 1}`, /^filter\.a'\); DROP TABLE records; --: unknown field$/],
      [`{"title\\" = title OR \\"1": 1}`, /^filter\.title" = title OR "1: unknown field/],
      ['{"$where": "sleep(1000)"}', /^filter\.\$where: unknown operator/],
      ['{"title": {"$regex": ".*"}}', /^filter\.title\.\$regex: unknown operator/],
      ['{"title\\u0000": 1}', /^filter\.title\u0000: must not contain the NUL character$/],
      ['{"title": {"$contains": "\\u0000"}}', /^filter\.title\.\$contains: must not contain the NUL character$/],
    ];
    for (const [text, pattern] of cases) {
      const response = await listWithFilterText(text);
      const message = refusal(response);
      assert.match(message, pattern, text);
      assert.doesNotMatch(message, /SQL|syntax|sqlite|postgres/i);
    }
    // The table is still there.
    assert.equal((await list({ limit: 1 })).total, products.length);
  });

  test('filter: depth 5 answers and depth 6 is refused, naming the limit', async () => {
    const nested = (levels: number) => {
      let filter: unknown = { price: 20 };
      for (let index = 1; index < levels; index++) filter = { $and: [filter] };
      return filter;
    };
    assert.deepEqual(
      await ids(nested(5)),
      expected((d) => d.price === 20),
    );
    assert.equal(
      refusal(await listRaw(productModel.id, { filter: nested(6) })),
      'filter.$and[0].$and[0].$and[0].$and[0].$and[0]: a filter may nest at most 5 levels deep',
    );
    // 100,000 levels, as JSON text (too deep for JSON.stringify): refused at the sixth, never walked.
    const deep = `${'{"$not":'.repeat(100_000)}{"price":1}${'}'.repeat(100_000)}`;
    assert.match(refusal(await listWithFilterText(deep)), /^filter(\.\$not){5}: a filter may nest at most 5 levels deep$/);
  });

  test('filter: 50 conditions answer and 51 are refused, naming the limit', async () => {
    const conditions = (count: number) => ({ $or: Array.from({ length: count }, (_, index) => ({ price: index - 10 })) });
    assert.deepEqual(
      await ids(conditions(50)),
      expected((d) => Number.isInteger(d.price) && d.price >= -10 && d.price < 40),
    );
    assert.equal(
      refusal(await listRaw(productModel.id, { filter: conditions(51) })),
      'filter.$or: a filter may hold at most 50 conditions',
    );
    const spread = {
      price: { $gte: -100, $lte: 1000 },
      $and: Array.from({ length: 25 }, () => ({ inStock: { $exists: true }, sku: { $ne: 'x' } })),
    };
    assert.equal(refusal(await listRaw(productModel.id, { filter: spread })), 'filter: a filter may hold at most 50 conditions');
  });

  test('filter: 1000 values in $in answer and 1001 are refused, naming the limit', async () => {
    const skus = (count: number) => Array.from({ length: count }, (_, index) => `A-${index}`);
    assert.deepEqual(
      await ids({ sku: { $in: skus(1000) } }),
      expected((d) => /^A-\d+$/.test(d.sku)),
    );
    assert.equal(
      refusal(await listRaw(productModel.id, { filter: { sku: { $in: skus(1001) } } })),
      'filter.sku.$in: at most 1000 values in $in, got 1001',
    );
    assert.equal(
      refusal(await listRaw(productModel.id, { filter: { sku: { $nin: skus(100_000) } } })),
      'filter.sku.$nin: at most 1000 values in $nin, got 100000',
    );
  });
});

describe('delivery route', () => {
  const RECORDS = `query($slug: String!, $filter: JSON, $sort: String, $limit: Int, $offset: Int) {
    public { model { records(modelSlug: $slug, filter: $filter, sort: $sort, limit: $limit, offset: $offset) { total hasMore items { id data } } } }
  }`;
  const deliver = (variables: Record<string, unknown>) => gql(server.deliveryUrl('acme', 'main'), {}, RECORDS, variables);

  test('delivery: records take filter and sort like the admin list', async () => {
    const variables = { slug: 'product', filter: { price: { $lt: 100 } }, sort: '-price', limit: 3, offset: 1 };
    const delivered = dataOf(await deliver(variables)).public.model.records;
    const admin = await list({ filter: variables.filter, sort: variables.sort, limit: 3, offset: 1 });
    assert.deepEqual(delivered, admin);
    assert.equal(delivered.total, expected((d) => d.price < 100).length);
  });

  test('delivery: a filter cannot reach into another model; refusals are the same', async () => {
    const through = expectError(await deliver({ slug: 'product', filter: { 'category.name': 'shoes' } }), 'BAD_USER_INPUT');
    assert.match(through.message, /^filter\.category\.name: category is a relation/);
    const unknown = expectError(await deliver({ slug: 'product', filter: { colour: 'red' } }), 'BAD_USER_INPUT');
    assert.equal(unknown.message, 'filter.colour: unknown field');
  });
});

describe('indexed fields in model definitions', () => {
  const FIELDS = 'fields { key type indexed fields { key indexed } }';

  test('model: indexed is answered on every field, false unless set', async () => {
    const model = await owner.ok(`query($id: ID!) { model { get(id: $id) { ${FIELDS} } } }`, { id: productModel.id });
    const byKey = Object.fromEntries(model.model.get.fields.map((field: any) => [field.key, field.indexed]));
    assert.deepEqual(byKey, {
      sku: false,
      title: true,
      price: true,
      inStock: false,
      releasedOn: true,
      name: false,
      meta: false,
      category: true,
      tags: false,
    });
    const delivered = dataOf(
      await gql(server.deliveryUrl('acme', 'main'), {}, `{ public { model { definitions { slug fields { key indexed } } } } }`),
    );
    const product = delivered.public.model.definitions.find((definition: any) => definition.slug === 'product');
    assert.equal(product.fields.find((field: any) => field.key === 'price').indexed, true);
  });

  test('model: indexed on a type no index serves is refused naming the field', async () => {
    const response = await owner.createModelRaw({
      fields: [
        { key: 'title', type: 'text' },
        { key: 'body', type: 'text', indexed: true },
        { key: 'name', type: 'translatable', indexed: true },
      ],
    });
    assert.equal(
      expectError(response, 'BAD_USER_INPUT').message,
      'fields[2].indexed: only text, number, boolean, date, relation fields can be indexed, not translatable fields',
    );
  });

  test('model: update turns indexed on and off (sub-fields too, with records stored) and lists answer the same', async () => {
    const model = await owner.createModel({
      fields: [
        { key: 'title', type: 'text' },
        { key: 'meta', type: 'object', fields: [{ key: 'size', type: 'number' }] },
      ],
    });
    await owner.importRows(model.id, [{ title: 'b', meta: { size: 2 } }, { title: 'a', meta: { size: 1 } }, { title: 'c' }]);
    const before = await list({ filter: { 'meta.size': { $gte: 1 } }, sort: 'title' }, model.id);
    const update = (fields: unknown) =>
      owner.ok(`mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { ${FIELDS} } } }`, {
        input: { id: model.id, fields },
      });
    const on = await update([
      { key: 'title', type: 'text', indexed: true },
      { key: 'meta', type: 'object', fields: [{ key: 'size', type: 'number', indexed: true }] },
    ]);
    assert.equal(on.model.update.fields[0].indexed, true);
    assert.equal(on.model.update.fields[1].fields[0].indexed, true);
    assert.deepEqual(await list({ filter: { 'meta.size': { $gte: 1 } }, sort: 'title' }, model.id), before);
    const off = await update([
      { key: 'title', type: 'text' },
      { key: 'meta', type: 'object', fields: [{ key: 'size', type: 'number' }] },
    ]);
    assert.equal(off.model.update.fields[0].indexed, false);
    assert.deepEqual(await list({ filter: { 'meta.size': { $gte: 1 } }, sort: 'title' }, model.id), before);
    assert.deepEqual(
      before.items.map((item) => item.data.title),
      ['a', 'b'],
    );
  });

  test('model: a model with indexed fields and no records can be deleted, and its slug used again', async () => {
    const slug = uniqueSlug('indexed');
    const model = await owner.createModel({ slug, fields: [{ key: 'title', type: 'text', indexed: true }] });
    dataOf(await owner.q(`mutation($id: ID!) { model { delete(id: $id) { deleted } } }`, { id: model.id }));
    const again = await owner.createModel({ slug, fields: [{ key: 'title', type: 'number', indexed: true }] });
    await owner.createRecord(again.id, { title: 3 });
    assert.equal((await list({ filter: { title: { $gt: 2 } } }, again.id)).total, 1);
  });
});
