import type { FieldDefinition, ModelDefinition, RecordData } from './fields.js';

/** The record data without any reference to `targetId` in the relation or media field `fieldKey`. */
export function withoutReference(
  fields: readonly FieldDefinition[],
  data: RecordData,
  fieldKey: string,
  targetId: string,
): RecordData {
  const field = fields.find((candidate) => candidate.key === fieldKey);
  const value = data[fieldKey];
  const result: RecordData = { ...data };
  const holdsMany = field?.relationType === 'hasMany' || (field?.type === 'media' && field.multiple === true);
  if (holdsMany && Array.isArray(value)) {
    result[fieldKey] = value.filter((id) => id !== targetId);
  } else if (value === targetId) {
    delete result[fieldKey];
  }
  return result;
}

/** Slugs of the models (other than the one with `slug` itself) with a relation field that targets `slug`. */
export function modelsReferencing(models: readonly ModelDefinition[], slug: string): string[] {
  const target = `model:${slug}`;
  return models
    .filter((model) => model.slug !== slug && model.fields.some((field) => field.relationTo === target))
    .map((model) => model.slug);
}
