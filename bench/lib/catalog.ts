import { performance } from 'node:perf_hooks';
import type { GqlClient } from './client.js';

/** The product model every benchmark uses: SKU unique (indexed), ~200-byte rows. */
export function productModelInput(slug: string, deliveryAccess: 'none' | 'public' = 'none') {
  return {
    name: `Product ${slug}`,
    slug,
    displayField: 'title',
    deliveryAccess,
    product: { enabled: true, skuField: 'sku', priceField: 'price' },
    fields: [
      { key: 'title', label: 'Title', type: 'text', required: true },
      { key: 'sku', label: 'SKU', type: 'text', required: true },
      { key: 'price', label: 'Price', type: 'number' },
      { key: 'stock', label: 'Stock', type: 'number' },
      { key: 'colour', label: 'Colour', type: 'text' },
      { key: 'description', label: 'Description', type: 'text' },
    ],
  };
}

export async function createProductModel(
  client: GqlClient,
  slug = 'product',
  deliveryAccess: 'none' | 'public' = 'none',
): Promise<string> {
  const result = await client.request<{ model: { create: { id: string } } }>(
    'mutation ($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }',
    { input: productModelInput(slug, deliveryAccess) },
  );
  return result.data.model.create.id;
}

export interface ProductRow {
  title: string;
  sku: string;
  price: number;
  stock: number;
  colour: string;
  description: string;
}

const COLOURS = ['black', 'white', 'red', 'navy', 'olive', 'grey', 'orange', 'teal'];
const KINDS = ['trail running shoe', 'rain jacket', 'hiking backpack', 'merino base layer', 'insulated bottle'];

/**
 * A SKU prefix that sorts after every prefix made earlier (base-36 milliseconds): SKUs `prefix-00000042` arrive
 * in index order, so the unique index takes them in order, as a time-ordered catalogue import does.
 */
export function skuPrefix(): string {
  return `SKU-${Date.now().toString(36).padStart(9, '0')}`;
}

/** Row `index` of a catalogue: about 200 bytes as JSON, a unique SKU. */
export function productRow(prefix: string, index: number): ProductRow {
  const kind = KINDS[index % KINDS.length]!;
  return {
    title: `${kind[0]!.toUpperCase()}${kind.slice(1)} #${index}`,
    sku: `${prefix}-${String(index).padStart(8, '0')}`,
    price: Math.round(((index * 7919) % 100_000) + 99) / 100,
    stock: (index * 31) % 500,
    colour: COLOURS[index % COLOURS.length]!,
    description: `Made for long days outdoors: light, durable, repairable and fully recyclable. Batch ${index % 97}.`,
  };
}

export function productRows(prefix: string, start: number, count: number): ProductRow[] {
  return Array.from({ length: count }, (_, offset) => productRow(prefix, start + offset));
}

export const IMPORT_QUERY =
  'mutation ($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount errors { row message } } } }';

export function importBody(modelId: string, rows: ProductRow[]): string {
  return JSON.stringify({ query: IMPORT_QUERY, variables: { input: { modelId, rows } } });
}

export interface ImportPlan {
  modelId: string;
  prefix: string;
  rows: number;
  batchSize?: number;
  /** Requests in flight at once (the client needs at least as many connections). */
  concurrency?: number;
  /** Ready request bodies, batch by batch (built before the clock starts); else built as the batches go. */
  bodies?: string[];
}

/** The request bodies of an import, made before timing so the client's JSON work is not in the figure. */
export function importBodies(modelId: string, prefix: string, rows: number, batchSize = 1000): string[] {
  const bodies: string[] = [];
  for (let start = 0; start < rows; start += batchSize) {
    bodies.push(importBody(modelId, productRows(prefix, start, Math.min(batchSize, rows - start))));
  }
  return bodies;
}

/**
 * Imports `rows` rows through `record.import` in batches, `concurrency` calls in flight; every row must be
 * imported (an import error fails the benchmark). Returns the elapsed wall time.
 */
export async function importRows(client: GqlClient, plan: ImportPlan): Promise<{ ms: number; rows: number }> {
  const batchSize = plan.batchSize ?? 1000;
  const batches = Math.ceil(plan.rows / batchSize);
  let next = 0;
  let imported = 0;
  const started = performance.now();
  const worker = async () => {
    for (let batch = next++; batch < batches; batch = next++) {
      const start = batch * batchSize;
      const count = Math.min(batchSize, plan.rows - start);
      const body = plan.bodies?.[batch] ?? importBody(plan.modelId, productRows(plan.prefix, start, count));
      const result = await client.send<{
        record: { import: { importedCount: number; errors: { row: number; message: string }[] } };
      }>(body);
      const { importedCount, errors } = result.data.record.import;
      if (errors.length > 0 || importedCount !== count) {
        throw new Error(
          `import batch ${batch}: ${importedCount}/${count} imported; ${errors
            .slice(0, 3)
            .map((e) => `row ${e.row}: ${e.message}`)
            .join('; ')}`,
        );
      }
      imported += importedCount;
    }
  };
  await Promise.all(Array.from({ length: plan.concurrency ?? 1 }, worker));
  return { ms: performance.now() - started, rows: imported };
}

/** A product model holding `rows` records (imported over HTTP, 2 calls in flight); `public` on the delivery route if asked. */
export async function seedCatalog(
  client: GqlClient,
  rows: number,
  slug = 'product',
  deliveryAccess: 'none' | 'public' = 'none',
): Promise<{ modelId: string; ms: number }> {
  const modelId = await createProductModel(client, slug, deliveryAccess);
  const { ms } = await importRows(client, { modelId, prefix: skuPrefix(), rows, concurrency: 2 });
  return { modelId, ms };
}
