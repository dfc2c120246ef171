// The field types of a model, and the checks of a value's form that the service (record validation), the SDK
// (CSV cells) and the admin web application (forms, CSV import) make the same way. Compiled for the browser too:
// nothing here may use Node or do I/O.

export const FIELD_TYPES = ['text', 'number', 'boolean', 'date', 'relation', 'translatable', 'object', 'media'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** The field types a database index can serve (`indexed: true` on a field definition). */
export const INDEXABLE_FIELD_TYPES: readonly FieldType[] = ['text', 'number', 'boolean', 'date', 'relation'];

export const RELATION_TYPES = ['hasOne', 'hasMany'] as const;
export type RelationType = (typeof RELATION_TYPES)[number];

/** A locale code as a translatable field's key and a `title.en` CSV column name it: en, pl, pt-BR. */
export const LOCALE_PATTERN = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A `date` field's value: ISO 8601 and a real calendar day (Date.parse would roll 2026-02-30 over to March). */
export function isIsoDate(text: string): boolean {
  if (!DATE_PATTERN.test(text) || Number.isNaN(Date.parse(text))) return false;
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
