import { LOCALE_PATTERN } from '../shared/field-types.js';
import { FORBIDDEN_KEYS, skuFieldOf, type FieldDefinition, type ModelDefinition } from './fields.js';
import { suggest } from '../shared/suggest.js';

/** The types of a single value in record data that filters compare and sorts order by. */
export type ScalarType = 'text' | 'number' | 'boolean' | 'date' | 'relation';

/** A single value in the record's data, at `keys` (top-level field key first; a locale last for a translation). */
export interface DataValue {
  kind: 'value';
  keys: readonly string[];
  type: ScalarType;
  /** The model's SKU field: the store keeps it in a column of its own, with its own index. */
  sku: boolean;
}

/** What a filter path or a sort names: the record's own columns, or a place in its data. */
export type RecordTarget =
  | { kind: 'id' }
  | { kind: 'time'; column: 'createdAt' | 'updatedAt' }
  /** A drafts model's record state (draft | published | changed): the admin list's `status`, never a path. */
  | { kind: 'status' }
  | DataValue
  /** A hasMany relation: an array of record ids (`linkKey` is the key its links are stored under). */
  | { kind: 'many'; keys: readonly string[]; linkKey: string }
  /** A translatable value without a locale: an object of locale to text. */
  | { kind: 'locales'; keys: readonly string[] }
  /** An object field without sub-fields: free-form JSON. */
  | { kind: 'object'; keys: readonly string[] };

/** The record's own properties a path may name; they win over fields of the same key. */
export const RECORD_PROPERTIES = ['id', 'createdAt', 'updatedAt'] as const;

/** A path that names no target, and why (the reason follows `<path>: ` in a message). */
export class PathProblem {
  constructor(readonly reason: string) {}
}

/**
 * What a dotted path names in the model's records: `id`, `createdAt`, `updatedAt`, a field key, `key.sub` into an
 * object field's sub-fields, `key.<locale>` into a translatable field. Nothing else: a relation's target records
 * are out of reach, and so is the inside of free-form JSON.
 */
export function resolvePath(model: Pick<ModelDefinition, 'fields' | 'product'>, path: string): RecordTarget | PathProblem {
  const segments = path.split('.');
  const [first, ...rest] = segments as [string, ...string[]];
  if (first === 'id' || first === 'createdAt' || first === 'updatedAt') {
    if (rest.length > 0) return new PathProblem(`${first} is a property of the record: it has no sub-paths`);
    return first === 'id' ? { kind: 'id' } : { kind: 'time', column: first };
  }
  let fields: readonly FieldDefinition[] = model.fields;
  const keys: string[] = [];
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    if (FORBIDDEN_KEYS.has(segment)) return new PathProblem('key not allowed');
    const field = fields.find((candidate) => candidate.key === segment);
    if (!field) {
      // A name of one or two letters is close to too many others for a suggestion to help. A field of the model is
      // refused in delivery.md's words exactly (`filter.colour: unknown field`), with no suggestion.
      const hint =
        index > 0 && segment.length >= 3
          ? suggest(
              segment,
              fields.map((candidate) => candidate.key),
            )
          : '';
      return new PathProblem(`${index === 0 ? 'unknown field' : `unknown sub-field of ${keys.join('.')}`}${hint}`);
    }
    keys.push(segment);
    const last = index === segments.length - 1;
    const name = keys.join('.');
    switch (field.type) {
      case 'object':
        if (!field.fields)
          return last ? { kind: 'object', keys } : new PathProblem(`${name} holds free-form JSON: only $exists applies to it`);
        if (last) return { kind: 'object', keys };
        fields = field.fields;
        continue;
      case 'translatable':
        if (last) return { kind: 'locales', keys };
        return localeValue(keys, segments.slice(index + 1));
      case 'relation':
        if (!last) {
          return new PathProblem(`${name} is a relation: a path cannot reach into the records it points at`);
        }
        return field.relationType === 'hasMany'
          ? { kind: 'many', keys, linkKey: field.key }
          : { kind: 'value', keys, type: 'relation', sku: false };
      case 'media':
        if (!last) return new PathProblem(`${name} is a media field: a path cannot reach into its assets`);
        return field.multiple === true
          ? { kind: 'many', keys, linkKey: field.key }
          : { kind: 'value', keys, type: 'relation', sku: false };
      default:
        if (!last) return new PathProblem(`${name} is a ${field.type} field: it has no sub-paths`);
        return { kind: 'value', keys, type: field.type, sku: index === 0 && field.key === skuFieldOf(model) };
    }
  }
  return new PathProblem('unknown field');
}

function localeValue(keys: string[], rest: string[]): DataValue | PathProblem {
  const [locale, ...beyond] = rest as [string, ...string[]];
  if (!LOCALE_PATTERN.test(locale)) return new PathProblem(`"${locale}" is not a locale code (such as en, pl or pt-BR)`);
  if (beyond.length > 0) return new PathProblem(`${keys.join('.')}.${locale} is one translation: it has no sub-paths`);
  return { kind: 'value', keys: [...keys, locale], type: 'text', sku: false };
}

/** A path as written, for a message: a very long one is cut (it is the caller's own text). */
export function displayPath(path: string): string {
  const points = [...path];
  return points.length <= 100 ? path : `${points.slice(0, 100).join('')}…`;
}

/**
 * The values a model's indexes serve: each field marked `indexed` (sub-fields too) whose filters and sorts read
 * its value. The SKU field has its own column and index, and a hasMany relation is served by the index of the
 * relation links, so neither needs one more.
 */
export function indexedValues(model: Pick<ModelDefinition, 'fields' | 'product'>): DataValue[] {
  const values: DataValue[] = [];
  const walk = (fields: readonly FieldDefinition[], prefix: readonly string[]) => {
    for (const field of fields) {
      const keys = [...prefix, field.key];
      if (field.fields) walk(field.fields, keys);
      if (field.indexed !== true) continue;
      const target = resolvePath(model, keys.join('.'));
      if (!(target instanceof PathProblem) && target.kind === 'value' && !target.sku) values.push(target);
    }
  };
  walk(model.fields, []);
  return values;
}
