// How a record is named in tables, pickers and dialogs: by the model's display field.
import type { FieldDefinition, ModelDefinition, ModelRecord } from './types.js';
import { cellText } from './values.js';

/** The reader's languages, with and without region (`pl-PL`, `pl`), for translatable values. */
export function preferredLocales(): string[] {
  return [...new Set((navigator.languages ?? [navigator.language]).flatMap((tag) => [tag, tag.split('-')[0]!]))];
}

/** The field whose value names a record (the model's display field, or the first field). */
export function displayFieldOf(model: ModelDefinition): FieldDefinition | undefined {
  return model.fields.find((field) => field.key === model.displayField) ?? model.fields[0];
}

export function recordName(model: ModelDefinition, record: ModelRecord): string {
  const field = displayFieldOf(model);
  const text = field ? cellText(record.data[field.key], field, preferredLocales()) : '';
  return text || `Record ${record.id.slice(0, 8)}…`;
}
