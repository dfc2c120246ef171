// The record form's calls to the API: the model (with the workspace's default locale), the record, the models
// its relation fields offer; the create and the patch of a record.
import { gql } from './api.js';
import { listModels, MODEL_SELECTION } from './models-cache.js';
import type { JsonObject, ModelDefinition, ModelRecord } from './types.js';

export interface RecordFormData {
  model: ModelDefinition | null;
  /** Null for a new record, or when the record does not exist. */
  record: ModelRecord | null;
  defaultLocale: string;
  models: ModelDefinition[];
}

export async function loadRecordForm(modelId: string, recordId: string | undefined): Promise<RecordFormData> {
  const [modelData, recordData, models] = await Promise.all([
    gql<{ model: { get: ModelDefinition | null }; workspace: { current: { defaultLocale: string } } }>(
      `query AdminModel($id: ID!) { model { get(id: $id) { ${MODEL_SELECTION} } } workspace { current { defaultLocale } } }`,
      { id: modelId },
    ),
    recordId
      ? gql<{ record: { get: ModelRecord | null } }>(
          'query AdminRecord($id: ID!) { record { get(id: $id) { id data createdAt updatedAt revision status publishedAt publishedRevision } } }',
          { id: recordId },
        )
      : Promise.resolve(null),
    listModels(),
  ]);
  return {
    model: modelData.model.get,
    record: recordData?.record.get ?? null,
    defaultLocale: modelData.workspace.current.defaultLocale,
    models,
  };
}

export async function patchRecordCall(id: string, patch: JsonObject): Promise<void> {
  await gql('mutation PatchRecord($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }', {
    input: { id, data: patch },
  });
}

export async function createRecordCall(modelId: string, data: JsonObject): Promise<ModelRecord> {
  const created = await gql<{ record: { create: ModelRecord } }>(
    'mutation CreateRecord($input: CreateModelRecordInput!) { record { create(input: $input) { id data createdAt updatedAt } } }',
    { input: { modelId, data } },
  );
  return created.record.create;
}
