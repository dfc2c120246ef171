// The import loader: any number of rows, in calls the batcher sizes; each row's outcome in the summary.
import { stripNulls } from './diff.js';
import { importBatcher, numberedItems, resolveModel, rowData } from './load-steps.js';
import { newSummary, progressReporter } from './load-summary.js';
import type { ImportOptions, Items, Loader, LoadSummary } from './load-types.js';
import type { ModelDefinition } from './types.js';

export async function importRows<T>(
  loader: Loader,
  model: string | Pick<ModelDefinition, 'id'>,
  items: Items<T>,
  options: ImportOptions<T>,
): Promise<LoadSummary<T>> {
  const modelId = typeof model === 'string' ? (await resolveModel(loader.client, model, options.signal)).id : model.id;
  const summary = newSummary<T>(options.dryRun ?? false);
  const report = progressReporter(summary, options);
  const batcher = importBatcher<T>(loader, modelId, options, summary, report);
  for await (const { row, item } of numberedItems(items, options.signal, summary, batcher)) {
    const data = rowData(row, item, options, batcher, report);
    if (data === undefined) continue;
    if (options.dryRun) {
      summary.created += 1;
      report.tick();
      continue;
    }
    await batcher.push({ row, item, data: stripNulls(data) });
    report.tick();
  }
  await batcher.flush();
  summary.created = options.dryRun ? summary.created : batcher.imported;
  return report.finish(batcher.stopped);
}
