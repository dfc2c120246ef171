// For random filters and sorts over random records, RecordService's page (ids, order, total, hasMore) equals an
// evaluation of the same filter and sort written here, independently of the service: on SQLite always, and on
// PostgreSQL when DATABASE_URL is set. The model has every kind of path a filter can name: text (indexed and not,
// and the SKU field), number, boolean, date, an object's sub-fields, translations, hasOne and hasMany relations,
// the record id and createdAt.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { Actor } from '../../src/services/actor.js';
import { ModelService } from '../../src/services/model-service.js';
import { RecordService } from '../../src/services/record-service.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import type { StoredRecord } from '../../src/domain/stored-record.js';
import { postgresTarget, sqliteTarget } from '../support/databases.js';
import { ownedWorkspace } from '../support/workspaces.js';

const postgres = await postgresTarget();
if ('failure' in postgres) {
  test('filter property on PostgreSQL (CI=true requires PostgreSQL)', () => {
    assert.fail(postgres.failure);
  });
}
const targets = [sqliteTarget(), ...('failure' in postgres ? [] : [postgres])];

// ---------------------------------------------------------------------------------------------------------------
// The model and its values. Small value sets, so that filters match some records and sorts meet ties.

const TEXTS = ['', 'a', 'A', 'ab', 'Ab', 'b', 'ba', 'é', 'É', 'éa', 'Łódź', 'łó', 'z', 'z z'];
const NUMBERS = [-1, 0, 0.5, 1, 2, 10];
const DATES = ['2023-12-31', '2024-01-01', '2024-01-01T10:00:00Z', '2024-02-01'];

const FIELDS = [
  { key: 'code', type: 'text' },
  { key: 't', type: 'text', indexed: true },
  { key: 'u', type: 'text' },
  { key: 'n', type: 'number', indexed: true },
  { key: 'm', type: 'number' },
  { key: 'b', type: 'boolean', indexed: true },
  { key: 'd', type: 'date', indexed: true },
  {
    key: 'o',
    type: 'object',
    fields: [
      { key: 's', type: 'text', indexed: true },
      { key: 'k', type: 'number' },
    ],
  },
  { key: 'tr', type: 'translatable' },
  { key: 'cat', type: 'relation', relationTo: 'model:tag', indexed: true },
  { key: 'tags', type: 'relation', relationTo: 'model:tag', relationType: 'hasMany' },
];

type Row = Record<string, unknown>;
type Filter = Record<string, unknown>;

const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 3 });

/** A record's data; `tags` and `cat` are indexes into the tag records, made ids when stored. */
const rowArbitrary = fc.record(
  {
    code: optional(fc.constantFrom(...TEXTS)),
    t: optional(fc.constantFrom(...TEXTS)),
    u: optional(fc.constantFrom(...TEXTS)),
    n: optional(fc.constantFrom(...NUMBERS)),
    m: optional(fc.constantFrom(...NUMBERS)),
    b: optional(fc.boolean()),
    d: optional(fc.constantFrom(...DATES)),
    o: optional(fc.record({ s: optional(fc.constantFrom(...TEXTS)), k: optional(fc.constantFrom(...NUMBERS)) })),
    tr: optional(fc.record({ en: optional(fc.constantFrom(...TEXTS)), pl: optional(fc.constantFrom(...TEXTS)) })),
    cat: optional(fc.integer({ min: 0, max: 2 })),
    tags: optional(fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { maxLength: 3 })),
  },
  { requiredKeys: [] },
);

const text = fc.constantFrom(...TEXTS);
const number = fc.constantFrom(...NUMBERS, 0.25, 3);
const date = fc.constantFrom(...DATES, '2024-01-01T00:00:00Z', '2024-01-15');
const tag = fc.constantFrom('@tag0', '@tag1', '@tag2', '@none');

function ordered<T>(value: fc.Arbitrary<T>, extra: fc.Arbitrary<Filter>[] = []): fc.Arbitrary<unknown> {
  return fc.oneof(
    value,
    fc.constant(null),
    fc.record({ $eq: value }),
    fc.record({ $ne: fc.oneof(value, fc.constant(null)) }),
    fc.record({ $gt: value }),
    fc.record({ $gte: value }),
    fc.record({ $lt: value }),
    fc.record({ $lte: value }),
    fc.record({ $gte: value, $lt: value }),
    fc.record({ $in: fc.array(value, { maxLength: 3 }) }),
    fc.record({ $nin: fc.array(value, { maxLength: 3 }) }),
    fc.record({ $exists: fc.boolean() }),
    fc.record({ $not: fc.record({ $gt: value }) }),
    ...extra,
  );
}

const textCondition = ordered(text, [fc.record({ $contains: text }), fc.record({ $startsWith: text })]);

const leaf: fc.Arbitrary<Filter> = fc.oneof(
  fc.record({ t: textCondition }),
  fc.record({ u: textCondition }),
  fc.record({ code: textCondition }),
  fc.record({ n: ordered(number) }),
  fc.record({ m: ordered(number) }),
  fc.record({
    b: fc.oneof(
      fc.boolean(),
      fc.record({ $ne: fc.boolean() }),
      fc.record({ $in: fc.array(fc.boolean(), { maxLength: 2 }) }),
      fc.record({ $exists: fc.boolean() }),
    ),
  }),
  fc.record({ d: ordered(date) }),
  fc.record({ 'o.s': textCondition }),
  fc.record({ 'o.k': ordered(number) }),
  fc.record({ o: fc.record({ $exists: fc.boolean() }) }),
  fc.record({ 'tr.en': textCondition }),
  fc.record({ 'tr.pl': textCondition }),
  fc.record({
    tr: fc.oneof(fc.record({ $contains: text }), fc.record({ $startsWith: text }), fc.record({ $exists: fc.boolean() })),
  }),
  fc.record({
    cat: fc.oneof(
      tag,
      fc.record({ $ne: tag }),
      fc.record({ $in: fc.array(tag, { maxLength: 2 }) }),
      fc.record({ $exists: fc.boolean() }),
    ),
  }),
  fc.record({ tags: fc.oneof(fc.record({ $contains: tag }), fc.record({ $exists: fc.boolean() })) }),
  fc.record({
    id: fc.oneof(
      fc.record({
        $in: fc.array(
          fc.nat(40).map((n) => `@row${n}`),
          { maxLength: 4 },
        ),
      }),
      fc.nat(40).map((n) => `@row${n}`),
    ),
  }),
  fc.record({ createdAt: fc.record({ $gte: fc.constantFrom('2000-01-01', '2999-01-01T00:00:00Z') }) }),
);

const filterArbitrary: fc.Arbitrary<Filter> = fc.letrec<{ filter: Filter }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
    leaf,
    leaf,
    fc.tuple(leaf, leaf).map(([a, b]) => ({ ...a, ...b })),
    fc.record({ $and: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ $or: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ $not: tie('filter') }),
  ),
})).filter;

const sortArbitrary = fc.constantFrom(
  undefined,
  'createdAt_desc',
  't_asc',
  '-t',
  'u',
  'code_desc',
  'n',
  '-n',
  'm_desc',
  'b',
  '-b',
  'd_asc',
  'd_desc',
);

const queryArbitrary = fc.record({
  filter: fc.option(filterArbitrary, { nil: undefined, freq: 8 }),
  sort: sortArbitrary,
  limit: fc.constantFrom(0, 1, 3, 7, 20, 100),
  offset: fc.constantFrom(0, 0, 1, 2, 5, 13, 40),
});

// ---------------------------------------------------------------------------------------------------------------
// The evaluation written for the test: values in memory, compared as the contract says (text byte by byte,
// case-insensitive search by toLowerCase, dates as their text).

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return byteOrder(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return (a as number) - (b as number);
}

function valueAt(record: StoredRecord, path: string): unknown {
  if (path === 'id') return record.id;
  if (path === 'createdAt') return Date.parse(record.createdAt);
  let value: unknown = record.data;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value ?? undefined;
}

function conditionHolds(value: unknown, operator: string, operand: unknown, path: string): boolean {
  const present = value !== undefined;
  const equal = (wanted: unknown) => present && compareValues(value, wanted) === 0;
  const lower = (text: string) => text.toLowerCase();
  const search = (candidate: unknown, wanted: string, starts: boolean) =>
    typeof candidate === 'string' &&
    (starts ? lower(candidate).startsWith(lower(wanted)) : lower(candidate).includes(lower(wanted)));
  switch (operator) {
    case '$eq':
      return operand === null ? !present : equal(operand);
    case '$ne':
      return operand === null ? present : !equal(operand);
    case '$gt':
      return present && compareValues(value, operand) > 0;
    case '$gte':
      return present && compareValues(value, operand) >= 0;
    case '$lt':
      return present && compareValues(value, operand) < 0;
    case '$lte':
      return present && compareValues(value, operand) <= 0;
    case '$in':
      return (operand as unknown[]).some(equal);
    case '$nin':
      return !(operand as unknown[]).some(equal);
    case '$exists':
      return present === operand;
    case '$contains':
      if (path === 'tags') return Array.isArray(value) && value.includes(operand);
      if (path === 'tr') return present && Object.values(value as object).some((item) => search(item, operand as string, false));
      return search(value, operand as string, false);
    case '$startsWith':
      if (path === 'tr') return present && Object.values(value as object).some((item) => search(item, operand as string, true));
      return search(value, operand as string, true);
    case '$not':
      return !pathHolds(value, operand, path);
    default:
      throw new Error(`the test does not know ${operator}`);
  }
}

function pathHolds(value: unknown, condition: unknown, path: string): boolean {
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) {
    return conditionHolds(value, '$eq', condition, path);
  }
  return Object.entries(condition).every(([operator, operand]) => conditionHolds(value, operator, operand, path));
}

function matches(record: StoredRecord, filter: Filter): boolean {
  return Object.entries(filter).every(([key, condition]) => {
    if (key === '$and') return (condition as Filter[]).every((inner) => matches(record, inner));
    if (key === '$or') return (condition as Filter[]).some((inner) => matches(record, inner));
    if (key === '$not') return !matches(record, condition as Filter);
    const operand = key === 'createdAt' ? timesToMillis(condition) : condition;
    return pathHolds(valueAt(record, key), operand, key);
  });
}

function timesToMillis(condition: unknown): unknown {
  return Object.fromEntries(
    Object.entries(condition as object).map(([operator, value]) => [operator, Date.parse(value as string)]),
  );
}

/** The order the contract gives: by the field, records missing it last, ties (and the missing) by id. */
function expectedOrder(records: StoredRecord[], sort: string | undefined): StoredRecord[] {
  const name = sort ?? 'createdAt_asc';
  const descending = name.startsWith('-') || name.endsWith('_desc');
  const key = name.replace(/^-/, '').replace(/_(asc|desc)$/, '');
  const direction = descending ? -1 : 1;
  const byId = (a: StoredRecord, b: StoredRecord) => direction * byteOrder(a.id, b.id);
  return [...records].sort((a, b) => {
    const [x, y] = key === 'createdAt' ? [Date.parse(a.createdAt), Date.parse(b.createdAt)] : [valueAt(a, key), valueAt(b, key)];
    if (x === undefined || y === undefined) return x === y ? byId(a, b) : x === undefined ? 1 : -1;
    return direction * compareValues(x, y) || byId(a, b);
  });
}

/** The filter with its `@row<n>` and `@tag<n>` stand-ins replaced by the stored ids. */
function withIds(filter: unknown, ids: Map<string, string>): unknown {
  if (typeof filter === 'string' && filter.startsWith('@')) return ids.get(filter) ?? 'no-such-record';
  if (Array.isArray(filter)) return filter.map((item) => withIds(item, ids));
  if (filter !== null && typeof filter === 'object') {
    return Object.fromEntries(Object.entries(filter).map(([key, value]) => [key, withIds(value, ids)]));
  }
  return filter;
}

// ---------------------------------------------------------------------------------------------------------------

for (const target of targets) {
  describe(`filter and sort on ${target.name}`, { skip: target.skip }, () => {
    let store: Store;
    let actor: Actor;
    let models: ModelService;
    let records: RecordService;
    const ids = new Map<string, string>();
    let modelNumber = 0;

    before(async () => {
      store = await openStore(target.url('filter_property'));
      actor = (await ownedWorkspace(store, 'acme')).actor;
      models = new ModelService(store);
      records = new RecordService(store);
      const tags = await models.create(actor, { name: 'Tag', slug: 'tag', fields: [{ key: 'name', type: 'text' }] });
      for (let index = 0; index < 3; index++)
        ids.set(`@tag${index}`, (await records.create(actor, tags.id, { name: `tag ${index}` })).id);
    });

    after(async () => {
      await store?.close();
      await target.cleanup();
    });

    test(`record.list (property, ${target.name}): a filtered, sorted page equals the same filter and sort evaluated in memory`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(rowArbitrary, { maxLength: 40 }),
          fc.array(queryArbitrary, { minLength: 1, maxLength: 6 }),
          async (rows, queries) => {
            const model = await models.create(actor, {
              name: 'Item',
              slug: `item${modelNumber++}`,
              fields: FIELDS,
              product: { enabled: true, skuField: 'code' },
            });
            // SKUs are unique: a repeated code is dropped from the row, as a storefront would have to.
            const codes = new Set<unknown>();
            const data = rows.map((row) => {
              const stored: Row = { ...row };
              if (stored.code !== undefined && codes.has(stored.code)) delete stored.code;
              codes.add(stored.code);
              if (stored.cat !== undefined) stored.cat = ids.get(`@tag${stored.cat as number}`);
              if (stored.tags !== undefined) stored.tags = (stored.tags as number[]).map((index) => ids.get(`@tag${index}`));
              return JSON.parse(JSON.stringify(stored)) as Row;
            });
            const imported = await records.import(actor, model.id, data);
            assert.deepEqual(imported.errors, []);
            const all = (await records.list(actor.workspaceId, model.id, { limit: 100 })).items;
            const rowIds = new Map(ids);
            all.forEach((record, index) => rowIds.set(`@row${index}`, record.id));
            for (const query of queries) {
              const filter = withIds(query.filter, rowIds) as Filter | undefined;
              const page = await records.list(actor.workspaceId, model.id, { ...query, filter });
              const matching = expectedOrder(
                all.filter((record) => filter === undefined || matches(record, filter)),
                query.sort,
              );
              const expected = matching.slice(query.offset, query.offset + query.limit).map((record) => record.id);
              const context = JSON.stringify({ filter, sort: query.sort, offset: query.offset, limit: query.limit });
              assert.equal(page.total, matching.length, `total of ${context}`);
              assert.deepEqual(
                page.items.map((record) => record.id),
                expected,
                `page of ${context}`,
              );
              assert.equal(page.hasMore, query.offset + expected.length < matching.length, `hasMore of ${context}`);
            }
          },
        ),
        { numRuns: Number(process.env.FILTER_PROPERTY_RUNS ?? 60) },
      );
    });
  });
}
