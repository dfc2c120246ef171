// A plain import only inserts (the spec's known gap): run twice on the same file it stores every row again, or, in a
// product model, has every row refused for its SKU. Before writing, the CLI looks up the first rows' values of one
// field (the SKU, or the field given with --check-existing) and stops when they are stored already, pointing to --key.
import type { ContentClient } from '../client/client.js';
import type { FilterValue, JsonObject } from '../client/types.js';

/** Rows looked up: enough to tell a file imported before from a few rows that happen to repeat. */
export const ROWS_LOOKED_UP = 100;

export interface AlreadyStored {
  field: string;
  rowsLookedUp: number;
  stored: number;
  samples: string[];
}

/** The first rows whose `field` value a record of the model already has; undefined when none does. */
export async function storedAlready(
  client: ContentClient,
  modelId: string,
  field: string,
  firstRows: readonly JsonObject[],
): Promise<AlreadyStored | undefined> {
  const values = [...new Set(firstRows.map((data) => data[field]).filter(isFilterValue))];
  if (values.length === 0) return undefined;
  const page = await client.listRecords(modelId, { filter: { [field]: { $in: values } }, limit: ROWS_LOOKED_UP });
  if (page.total === 0) return undefined;
  const samples = page.items.slice(0, 3).map((record) => JSON.stringify(record.data[field]));
  return { field, rowsLookedUp: firstRows.length, stored: page.total, samples };
}

function isFilterValue(value: unknown): value is FilterValue {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

export function alreadyStoredMessage(found: AlreadyStored, file: string, isSkuField: boolean): string {
  const what = isSkuField ? 'a product model refuses a SKU it already has, row by row' : 'it would store them twice';
  return (
    `${found.stored} of the first ${found.rowsLookedUp} rows of ${file} are already stored ` +
    `(${found.field} ${found.samples.join(', ')}${found.stored > found.samples.length ? ', …' : ''}): ` +
    `the file looks imported already, and a plain import only inserts (${what}). ` +
    `To update the stored records from the file, run it again with --key ${found.field}; ` +
    `to insert the rows anyway, add --allow-existing. Nothing was written.`
  );
}

/** The first `count` items, and an iterable that yields them again and then the rest. */
export async function peek<T>(items: AsyncIterable<T>, count: number): Promise<{ head: T[]; all: AsyncIterable<T> }> {
  const iterator = items[Symbol.asyncIterator]();
  const head: T[] = [];
  let done = false;
  while (head.length < count) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value);
  }
  async function* all(): AsyncGenerator<T> {
    yield* head;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { head, all: all() };
}
