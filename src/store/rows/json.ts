// JSON columns: SQLite hands back JSON as text, PostgreSQL parses it.
import { BoundedMap } from '../../shared/bounded-map.js';

export type Json<T> = T | string;

export function fromJson<T>(value: Json<T>): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

const sharedValues = new BoundedMap<string, unknown>(500);

/**
 * JSON text (a model's fields or product settings, read for every record write and list) parsed once and then
 * shared: the same text gives the same frozen value. Also lets per-field-list caches (record-data.ts) hit.
 * Its strings are the string table's copies: field keys index every record's data (`data[field.key]`), and a
 * key that is not in the table is looked up there on every such read.
 */
export function sharedJson<T>(value: Json<T>): T {
  if (typeof value !== 'string') return value;
  let parsed = sharedValues.get(value);
  if (parsed === undefined) {
    parsed = deepFreeze(internaliseStrings(JSON.parse(value)));
    sharedValues.set(value, parsed);
  }
  return parsed as T;
}

function internaliseStrings(value: unknown): unknown {
  if (typeof value === 'string') return Object.keys({ [value]: true })[0];
  if (Array.isArray(value)) return value.map(internaliseStrings);
  if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) (value as Record<string, unknown>)[key] = internaliseStrings(inner);
  }
  return value;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
