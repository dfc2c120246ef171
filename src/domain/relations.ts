import type { FieldDefinition, RecordData } from './fields.js';

/** The record data without any reference to `targetId` in the relation field `fieldKey`. */
export function withoutReference(
  fields: readonly FieldDefinition[],
  data: RecordData,
  fieldKey: string,
  targetId: string,
): RecordData {
  const field = fields.find((candidate) => candidate.key === fieldKey);
  const value = data[fieldKey];
  const result: RecordData = { ...data };
  if (field?.relationType === 'hasMany' && Array.isArray(value)) {
    result[fieldKey] = value.filter((id) => id !== targetId);
  } else if (value === targetId) {
    delete result[fieldKey];
  }
  return result;
}
