// The steps an import and a sync share: finding the model, turning an item into data, and the import batcher
// wired to the run's summary.
import { isPlainObject } from '../shared/json.js';
import { ContentServiceError } from './errors.js';
import { ImportBatcher, MAX_IMPORT_ROWS, type PendingRow } from './import.js';
import type { RunningSummary } from './load-summary.js';
import type { ImportOptions, Items, Loader, LoaderClient } from './load-types.js';
import type { JsonObject, ModelDefinition } from './types.js';

export async function resolveModel(
  client: LoaderClient,
  model: string | Pick<ModelDefinition, 'id'>,
  signal?: AbortSignal,
): Promise<ModelDefinition> {
  if (typeof model === 'string') return client.findModel(model, signal);
  if ('fields' in model && Array.isArray((model as ModelDefinition).fields)) return model as ModelDefinition;
  const found = await client.getModel(model.id, signal);
  if (!found) throw new ContentServiceError('modelId: model not found', { code: 'NOT_FOUND', field: 'modelId' });
  return found;
}

function dataOf<T>(item: T, options: ImportOptions<T>): JsonObject {
  const data = options.toData ? options.toData(item) : (item as unknown as JsonObject);
  if (!isPlainObject(data)) throw new ContentServiceError('row: must be a JSON object', { code: 'BAD_USER_INPUT', field: 'row' });
  return data;
}

/** The data of an input row; undefined when it is refused (then failed unsent in the batcher, and reported). */
export function rowData<T>(
  row: number,
  item: T,
  options: ImportOptions<T>,
  batcher: Pick<ImportBatcher<T>, 'fail'>,
  report: { tick(): void },
): JsonObject | undefined {
  try {
    return dataOf(item, options);
  } catch (error) {
    const { code, message } = rejection(error);
    batcher.fail([{ row, item, data: {} }], code, message);
    report.tick();
    return undefined;
  }
}

/** The code and message a failed row is reported with. */
export function rejection(error: unknown): { code: string; message: string } {
  if (error instanceof ContentServiceError) return { code: error.code, message: error.message };
  return { code: 'BAD_USER_INPUT', message: error instanceof Error ? error.message : String(error) };
}

export function abortedError(signal: AbortSignal): ContentServiceError {
  return new ContentServiceError('Aborted: the operation was aborted', { code: 'ABORTED', cause: signal.reason });
}

/**
 * The input's items with their row numbers (from 1), counted into the summary as they are read. When the signal
 * aborts, the batcher is stopped with the abort and no further item is read.
 */
export async function* numberedItems<T>(
  items: Items<T>,
  signal: AbortSignal | undefined,
  summary: RunningSummary<T>,
  batcher: Pick<ImportBatcher<T>, 'stopped'>,
): AsyncGenerator<{ row: number; item: T }> {
  let row = 0;
  for await (const item of items) {
    if (signal?.aborted) {
      batcher.stopped ??= abortedError(signal);
      return;
    }
    row += 1;
    summary.total = summary.progress.read = row;
    yield { row, item };
  }
}

export function importBatcher<T>(
  loader: Loader,
  modelId: string,
  options: ImportOptions<T>,
  summary: RunningSummary<T>,
  report: { tick(): void },
  onOutcomeUnknown?: (rows: PendingRow<T>[]) => Promise<{ resend: PendingRow<T>[]; landed: number }>,
): ImportBatcher<T> {
  return new ImportBatcher<T>(
    {
      send: (rows) => loader.client.importRecords(modelId, rows, options.signal),
      getBudget: () => loader.budget.value,
      setBudget: (budget) => {
        loader.budget.value = budget;
      },
      onRowError: (error) => {
        summary.failed += 1;
        if (options.onRowError) options.onRowError(error);
        else summary.errors.push(error);
      },
      onBatch: (outcome) => {
        summary.progress.created += outcome.imported;
        report.tick();
      },
      ...(onOutcomeUnknown ? { onOutcomeUnknown } : {}),
    },
    Math.min(MAX_IMPORT_ROWS, Math.max(1, options.batchSize ?? MAX_IMPORT_ROWS)),
  );
}
