// Saving the model editor's input: an update of the model edited, or the create of a new one.
import { gql } from './api.js';
import type { ModelInput } from './model-draft.js';
import type { ModelDefinition } from './types.js';

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
