// The model editor's state, without a DOM (besides model-draft.ts, the draft itself): the relation targets a
// field may point at, and the fields a save removes (whose values it deletes from every record).
import type { Draft } from './model-draft.js';
import type { FieldDefinition, ModelDefinition } from './types.js';

/** The slugs a relation field may target: the workspace's models, and a new model's own slug (self-relations). */
export function relationTargetSlugs(
  models: readonly ModelDefinition[],
  model: ModelDefinition | null,
  draftSlug: string,
): string[] {
  const slugs = models.map((candidate) => candidate.slug);
  if (!model && draftSlug && !slugs.includes(draftSlug)) slugs.push(draftSlug);
  return slugs.sort();
}

/** The fields of the model the draft no longer has (a renamed key counts as removed). */
export function removedFields(model: ModelDefinition, draft: Pick<Draft, 'fields'>): FieldDefinition[] {
  const kept = new Set(draft.fields.map((field) => field.key.trim()));
  return model.fields.filter((field) => !kept.has(field.key));
}

/** Whether a save must be confirmed first: it removes fields of a model that has records. */
export function mustConfirmRemoval(model: ModelDefinition, removed: readonly FieldDefinition[]): boolean {
  return removed.length > 0 && model.recordCount > 0;
}
