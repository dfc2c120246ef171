// The model editor's calls to the API: the model edited, and the save of its input (an update of the model
// edited, or the create of a new one).
import { gql } from './api.js';
import type { ModelInput } from './model-draft.js';
import { MODEL_SELECTION } from './models-cache.js';
import type { ModelDefinition } from './types.js';

/** The model to edit; null when it does not exist. */
export async function loadModel(modelId: string): Promise<ModelDefinition | null> {
  const data = await gql<{ model: { get: ModelDefinition | null } }>(
    `query AdminModel($id: ID!) { model { get(id: $id) { ${MODEL_SELECTION} } } }`,
    { id: modelId },
  );
  return data.model.get;
}

export async function saveModel(model: ModelDefinition | null, input: ModelInput): Promise<{ id: string; name: string }> {
  if (model) {
    const data = await gql<{ model: { update: { id: string; name: string } } }>(
      'mutation UpdateModel($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id name } } }',
      { input: { id: model.id, ...input.common, product: input.product } },
    );
    return data.model.update;
  }
  const data = await gql<{ model: { create: { id: string; name: string } } }>(
    'mutation CreateModel($input: CreateModelDefinitionInput!) { model { create(input: $input) { id name } } }',
    { input: { slug: input.slug, ...input.common, ...(input.product ? { product: input.product } : {}) } },
  );
  return data.model.create;
}
