// A small catalogue for the reading tests of the SDK and the delivery client: groups ← categories ← products (hasOne
// and hasMany relations, a translatable name, an object field, values missing on purpose), plus a model that is not
// public. The rows are kept with their ids, so each test computes its expected answer from them, not from the service.
import { ContentClient, type JsonObject, type ModelDefinition } from '../../src/client/index.js';
import { uniqueSlug } from '../support/client.js';

export interface Row {
  id: string;
  modelId: string;
  data: JsonObject;
  createdAt: string;
  updatedAt: string;
}

export interface Catalog {
  group: ModelDefinition;
  category: ModelDefinition;
  product: ModelDefinition;
  supplier: ModelDefinition;
  groups: Row[];
  categories: Row[];
  products: Row[];
  suppliers: Row[];
}

export const PRODUCT_COUNT = 130;
const COLORS = ['red', 'green', 'blue'];

/** The translatable name of product i: every fourth has de-AT, de and en; then de and en; then en; then only pl. */
function productName(i: number): JsonObject {
  const en = `${COLORS[i % 3] === 'red' ? 'Red' : 'Plain'} shoe ${i}`;
  switch (i % 4) {
    case 0:
      return { en, de: `Schuh ${i}`, 'de-AT': `Schuach ${i}` };
    case 1:
      return { en, de: `Schuh ${i}` };
    case 2:
      return { en };
    default:
      return { pl: `But ${i}` };
  }
}

function day(n: number): string {
  return new Date(Date.UTC(2024, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
}

/** Product i's data: unique prices (missing on every seventh), unique titles and dates in an order of their own. */
export function productData(i: number, categoryIds: string[], supplierId: string): JsonObject {
  const data: JsonObject = {
    sku: `SKU-${String(i).padStart(3, '0')}`,
    slug: `shoe-${i}`,
    title: `Item ${String((i * 37) % PRODUCT_COUNT).padStart(3, '0')}`,
    active: i % 3 !== 0,
    released: day((i * 53) % PRODUCT_COUNT),
    name: productName(i),
    category: categoryIds[i % categoryIds.length],
    tags: categoryIds.filter((_, k) => (i + k) % 3 === 0),
    meta: { color: COLORS[i % 3] },
    supplier: supplierId,
  };
  if (i % 7 !== 3) data.price = ((i * 61) % PRODUCT_COUNT) + 0.5;
  return data;
}

async function rowsOf(client: ContentClient, modelId: string): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const record of client.listAll(modelId)) {
    rows.push({
      id: record.id,
      modelId: record.modelId,
      data: record.data,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    });
  }
  return rows;
}

export async function createCatalog(client: ContentClient): Promise<Catalog> {
  const supplier = await client.createModel({
    name: 'Supplier',
    slug: uniqueSlug('supplier'),
    deliveryAccess: 'none',
    fields: [{ key: 'title', type: 'text', required: true }],
  });
  const group = await client.createModel({
    name: 'Group',
    slug: uniqueSlug('group'),
    deliveryAccess: 'public',
    fields: [
      { key: 'title', type: 'text', required: true },
      { key: 'name', type: 'translatable' },
    ],
  });
  const category = await client.createModel({
    name: 'Category',
    slug: uniqueSlug('category'),
    deliveryAccess: 'public',
    fields: [
      { key: 'title', type: 'text', required: true },
      { key: 'name', type: 'translatable' },
      { key: 'group', type: 'relation', relationTo: `model:${group.slug}`, relationType: 'hasOne' },
    ],
  });
  const product = await client.createModel({
    name: 'Product',
    slug: uniqueSlug('product'),
    deliveryAccess: 'public',
    displayField: 'title',
    fields: [
      { key: 'sku', type: 'text', required: true },
      { key: 'slug', type: 'text' },
      { key: 'title', type: 'text', required: true },
      { key: 'price', type: 'number' },
      { key: 'active', type: 'boolean' },
      { key: 'released', type: 'date' },
      { key: 'name', type: 'translatable' },
      { key: 'category', type: 'relation', relationTo: `model:${category.slug}`, relationType: 'hasOne' },
      { key: 'tags', type: 'relation', relationTo: `model:${category.slug}`, relationType: 'hasMany' },
      { key: 'meta', type: 'object', fields: [{ key: 'color', type: 'text' }] },
      { key: 'supplier', type: 'relation', relationTo: `model:${supplier.slug}`, relationType: 'hasOne' },
    ],
    product: { enabled: true, skuField: 'sku', priceField: 'price' },
  });

  await checkedImport(client, supplier.id, [{ title: 'Hidden supplier' }]);
  const suppliers = await rowsOf(client, supplier.id);
  await checkedImport(client, group.id, [
    { title: 'Footwear', name: { en: 'Footwear', de: 'Schuhwerk' } },
    { title: 'Outdoor', name: { en: 'Outdoor' } },
  ]);
  const groups = await rowsOf(client, group.id);
  await checkedImport(
    client,
    category.id,
    ['Boots', 'Sneakers', 'Sandals', 'Slippers'].map((title, k) => ({
      title,
      name: k % 2 === 0 ? { en: title, de: `${title} (de)` } : { en: title },
      group: groups[k % 2]!.id,
    })),
  );
  const categories = await rowsOf(client, category.id);
  const categoryIds = categories.map((row) => row.id);
  await checkedImport(
    client,
    product.id,
    Array.from({ length: PRODUCT_COUNT }, (_, i) => productData(i, categoryIds, suppliers[0]!.id)),
  );
  const products = await rowsOf(client, product.id);
  return { group, category, product, supplier, groups, categories, products, suppliers };
}

async function checkedImport(client: ContentClient, modelId: string, rows: JsonObject[]): Promise<void> {
  const result = await client.importRecords(modelId, rows);
  if (result.errors.length > 0 || result.importedCount !== rows.length) {
    throw new Error(`fixture import failed: ${JSON.stringify(result.errors)}`);
  }
}

// ---- independent evaluation of the contract's rules, for expected answers ----

/** delivery.md's locale rule: the locale, else its language, else the default locale, else null. */
export function pickLocale(value: unknown, locale: string, defaultLocale = 'en'): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const texts = value as Record<string, string>;
  const language = locale.split('-')[0]!;
  return texts[locale] ?? texts[language] ?? texts[defaultLocale] ?? null;
}

/** The value at a dotted path of a row (`id`, `createdAt`, `updatedAt` are the row's own). */
export function valueAt(row: Row, path: string): unknown {
  if (path === 'id' || path === 'createdAt' || path === 'updatedAt') return row[path];
  let value: unknown = row.data;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Rows sorted by a field, ascending or descending, missing values last; rows with equal values keep their order. */
export function sortedBy(rows: Row[], path: string, direction: 'asc' | 'desc'): { present: Row[]; missing: Row[] } {
  const present = rows.filter((row) => valueAt(row, path) !== undefined);
  const missing = rows.filter((row) => valueAt(row, path) === undefined);
  const sign = direction === 'asc' ? 1 : -1;
  present.sort((a, b) => {
    const x = valueAt(a, path) as string | number;
    const y = valueAt(b, path) as string | number;
    return x < y ? -sign : x > y ? sign : 0;
  });
  return { present, missing };
}

export function ids(rows: ({ id: string } | null)[]): (string | null)[] {
  return rows.map((row) => row?.id ?? null);
}
