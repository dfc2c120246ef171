// Model definitions of the current workspace, read once and kept until something changes them.
import { gql } from './api.js';
import { FIELD_LEVELS, fieldSelection, type ModelDefinition } from './types.js';

export const MODEL_SELECTION = `id name slug description displayField deliveryAccess drafts recordCount updatedAt
  product { enabled skuField priceField } ${fieldSelection(FIELD_LEVELS)}`;

let cached: Promise<ModelDefinition[]> | null = null;

export function listModels(): Promise<ModelDefinition[]> {
  if (!cached) {
    cached = gql<{ model: { list: ModelDefinition[] } }>(`query AdminModels { model { list { ${MODEL_SELECTION} } } }`).then(
      (data) => data.model.list,
    );
    cached.catch(() => {
      cached = null;
    });
  }
  return cached;
}

/** Forget the models (after a model change, a workspace switch, a sign-out). */
export function invalidateModels(): void {
  cached = null;
}

export async function modelBySlug(slug: string): Promise<ModelDefinition | undefined> {
  return (await listModels()).find((model) => model.slug === slug);
}
