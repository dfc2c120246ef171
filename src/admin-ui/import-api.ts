// The CSV import page's calls to the API: the model, and one batch of rows for `record.import`.
import { gql } from './api.js';
import type { ImportBatchResult } from './import-run.js';
import { MODEL_SELECTION } from './models-cache.js';
import type { JsonObject, ModelDefinition } from './types.js';

/** The model rows are imported into; null when it does not exist. */
export async function loadImportModel(modelId: string): Promise<ModelDefinition | null> {
  const data = await gql<{ model: { get: ModelDefinition | null } }>(
    `query AdminModel($id: ID!) { model { get(id: $id) { ${MODEL_SELECTION} } } }`,
    { id: modelId },
  );
  return data.model.get;
}

/** Sends one batch of converted rows. */
export async function sendImportBatch(modelId: string, batch: JsonObject[]): Promise<ImportBatchResult> {
  const result = await gql<{ record: { import: ImportBatchResult } }>(
    'mutation ImportRecords($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount errors { row message } } } }',
    { input: { modelId, rows: batch } },
  );
  return result.record.import;
}
