// The conditions of the records table's filter bar, the `filter` JSON of `record.list` they make (the filter
// language of delivery.md), and back: the page URL keeps the filter JSON itself, so a reload, the back button and a
// shared link show the same conditions. Pure: no DOM, unit-tested in test/admin-ui/record-filter.test.ts.
import { readNumberInput } from './number-input.js';
import { LOCALE_PATTERN } from '../shared/field-types.js';
import { isPlainObject } from '../shared/json.js';
import { relationSlug, type FieldDefinition, type JsonObject, type JsonValue, type ModelDefinition } from './types.js';

/** How a condition's value is typed: the input shown and the JSON sent. */
export type ValueKind = 'text' | 'number' | 'boolean' | 'date' | 'timestamp' | 'id' | 'none';

/** A path a condition can name (delivery.md: `key`, `key.sub`, `key.<locale>`, `id`, `createdAt`, `updatedAt`). */
export interface FilterPath {
  /** Without the locale for a translatable field, which the condition adds (none: any translation). */
  path: string;
  label: string;
  kind: ValueKind;
  /**
   * A translatable field: the condition names `path.<locale>`, or `path` for any translation, to which `$contains`,
   * `$startsWith` and `$exists` apply (the server refuses the others, naming the path).
   */
  localized?: boolean;
  /** hasMany relations hold several ids: `$contains` means "holds this id". */
  many?: boolean;
  /** A relation field: the slug of the model whose records' ids it holds. */
  relationTo?: string;
  /** A path of a filter read from the URL that names no field of the model (the server says why). */
  unknown?: boolean;
}

export const OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'startsWith', 'in', 'nin', 'set', 'unset'] as const;
export type Operator = (typeof OPERATORS)[number];

/** One condition as the bar holds it: the value as typed (ISO text for timestamps, `true`/`false` for booleans). */
export interface Condition {
  /** The whole path, locale included (`title.en`). */
  path: string;
  operator: Operator;
  value: string;
}

const OPERATORS_BY_KIND: Record<ValueKind, readonly Operator[]> = {
  text: ['eq', 'ne', 'contains', 'startsWith', 'in', 'nin', 'set', 'unset'],
  number: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'set', 'unset'],
  boolean: ['eq', 'ne', 'set', 'unset'],
  date: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'set', 'unset'],
  timestamp: ['gte', 'lt', 'gt', 'lte', 'eq'],
  id: ['eq', 'ne', 'in', 'nin', 'set', 'unset'],
  none: ['set', 'unset'],
};

/** The operators offered for a path, the first being the default. */
export function operatorsFor(target: FilterPath): readonly Operator[] {
  if (target.unknown) return OPERATORS;
  if (target.kind === 'id' && target.many) return ['contains', 'set', 'unset'];
  if (target.path === 'id') return ['eq', 'ne', 'in', 'nin'];
  return OPERATORS_BY_KIND[target.kind];
}

/** What an operator reads as for a path: dates are before/after, a hasMany relation "holds". */
export function operatorLabel(operator: Operator, target: FilterPath): string {
  const temporal = target.kind === 'date' || target.kind === 'timestamp';
  switch (operator) {
    case 'eq':
      return 'is';
    case 'ne':
      return 'is not';
    case 'gt':
      return temporal ? 'after' : 'greater than';
    case 'gte':
      return temporal ? 'on or after' : 'at least';
    case 'lt':
      return temporal ? 'before' : 'less than';
    case 'lte':
      return temporal ? 'on or before' : 'at most';
    case 'contains':
      return target.many ? 'holds' : 'contains';
    case 'startsWith':
      return 'starts with';
    case 'in':
      return 'is one of';
    case 'nin':
      return 'is none of';
    case 'set':
      return 'is set';
    case 'unset':
      return 'is not set';
  }
}

/** True when the operator takes no value (`$exists`). */
export function takesNoValue(operator: Operator): boolean {
  return operator === 'set' || operator === 'unset';
}

/** True when the value is a list (`$in`, `$nin`), typed comma-separated. */
export function takesList(operator: Operator): boolean {
  return operator === 'in' || operator === 'nin';
}

function kindOf(field: FieldDefinition): ValueKind {
  switch (field.type) {
    case 'text':
    case 'translatable':
      return 'text';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'date';
    case 'relation':
      return 'id';
    default:
      return 'none';
  }
}

function fieldPaths(fields: readonly FieldDefinition[], prefix: string, labelPrefix: string): FilterPath[] {
  return fields.flatMap((field): FilterPath[] => {
    const path = `${prefix}${field.key}`;
    const label = `${labelPrefix}${field.label}`;
    if (field.type === 'object' && field.fields && field.fields.length > 0) {
      return fieldPaths(field.fields, `${path}.`, `${label} › `);
    }
    return [
      {
        path,
        label,
        kind: kindOf(field),
        ...(field.type === 'translatable' ? { localized: true } : {}),
        ...(field.type === 'relation' ? { relationTo: relationSlug(field) } : {}),
        ...(field.type === 'relation' && field.relationType === 'hasMany' ? { many: true } : {}),
      },
    ];
  });
}

/** Every path of a model a condition can name: its fields (sub-fields of object fields), id and the timestamps. */
export function filterPaths(model: ModelDefinition): FilterPath[] {
  return [
    ...fieldPaths(model.fields, '', ''),
    { path: 'id', label: 'Id', kind: 'id' },
    { path: 'createdAt', label: 'Created', kind: 'timestamp' },
    { path: 'updatedAt', label: 'Updated', kind: 'timestamp' },
  ];
}

/** The path a condition names, and its locale for a translatable field; an unknown path is kept as it is. */
export function resolvePath(paths: readonly FilterPath[], path: string): { target: FilterPath; locale?: string } {
  const exact = paths.find((candidate) => candidate.path === path);
  if (exact) return { target: exact };
  for (const candidate of paths) {
    if (!candidate.localized || !path.startsWith(`${candidate.path}.`)) continue;
    const locale = path.slice(candidate.path.length + 1);
    if (LOCALE_PATTERN.test(locale)) return { target: candidate, locale };
  }
  return { target: { path, label: path, kind: 'text', unknown: true } };
}

/** The JSON of one value of a condition, typed by its path. */
function valueJson(text: string, kind: ValueKind): JsonValue {
  switch (kind) {
    case 'number': {
      // Read as the record form reads numbers (9,99 is 9.99); what is no number goes as typed, and the server's
      // refusal (`filter.price.$gte: expected a number`) names the path.
      const reading = readNumberInput(text);
      return reading.value ?? text;
    }
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    default:
      return text;
  }
}

const JSON_OPERATOR: Record<Exclude<Operator, 'set' | 'unset'>, string> = {
  eq: '$eq',
  ne: '$ne',
  gt: '$gt',
  gte: '$gte',
  lt: '$lt',
  lte: '$lte',
  contains: '$contains',
  startsWith: '$startsWith',
  in: '$in',
  nin: '$nin',
};

/** The items of a list value as typed (`a1, b2,,` → `a1`, `b2`). */
export function listItems(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** `{"$gte": 10}` for one condition. */
function operatorJson(condition: Condition, kind: ValueKind): [string, JsonValue] {
  if (condition.operator === 'set') return ['$exists', true];
  if (condition.operator === 'unset') return ['$exists', false];
  const operator = JSON_OPERATOR[condition.operator];
  if (takesList(condition.operator)) return [operator, listItems(condition.value).map((item) => valueJson(item, kind))];
  return [operator, valueJson(condition.value.trim(), kind)];
}

export interface BuiltFilter {
  /** Undefined when there are no conditions. */
  filter?: JsonObject;
  /** Conditions that cannot be sent yet: `Condition 2: enter a value`. */
  problems: string[];
}

/**
 * The filter of all conditions (AND): `{"price": {"$gte": 10, "$lt": 100}, "title": {"$contains": "ball"}}`, so that
 * the server's refusals name the paths as they are (`filter.price.$gte: …`); `{"$and": [...]}` only when two
 * conditions use the same operator on the same path.
 */
export function buildFilter(conditions: readonly Condition[], paths: readonly FilterPath[]): BuiltFilter {
  const problems: string[] = [];
  const clauses: [string, string, JsonValue][] = [];
  conditions.forEach((condition, index) => {
    const { target } = resolvePath(paths, condition.path);
    const value = condition.value.trim();
    if (!takesNoValue(condition.operator) && value === '') {
      problems.push(`Condition ${index + 1} (${target.label}): enter a value`);
      return;
    }
    const [operator, json] = operatorJson(condition, target.kind);
    clauses.push([condition.path, operator, json]);
  });
  if (problems.length > 0 || clauses.length === 0) return { problems };
  const merged: JsonObject = {};
  for (const [path, operator, json] of clauses) {
    const existing = merged[path];
    if (isPlainObject(existing) && operator in existing) {
      return { filter: { $and: clauses.map(([p, o, j]) => ({ [p]: { [o]: j } })) }, problems };
    }
    merged[path] = { ...(isPlainObject(existing) ? existing : {}), [operator]: json };
  }
  return { filter: merged, problems };
}

function valueText(value: JsonValue): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

const OPERATOR_OF_JSON = new Map(Object.entries(JSON_OPERATOR).map(([ui, json]) => [json, ui as Operator]));

function conditionOf(path: string, operator: string, value: JsonValue): Condition | undefined {
  if (operator === '$exists' && typeof value === 'boolean') return { path, operator: value ? 'set' : 'unset', value: '' };
  if (operator === '$eq' && value === null) return { path, operator: 'unset', value: '' };
  if (operator === '$ne' && value === null) return { path, operator: 'set', value: '' };
  const ui = OPERATOR_OF_JSON.get(operator);
  if (!ui) return undefined;
  if (takesList(ui)) {
    if (!Array.isArray(value)) return undefined;
    const items = value.map(valueText);
    if (items.some((item) => item === undefined || item.includes(','))) return undefined;
    return { path, operator: ui, value: items.join(', ') };
  }
  const text = valueText(value);
  return text === undefined ? undefined : { path, operator: ui, value: text };
}

/**
 * The conditions of a filter in the forms `buildFilter` makes (`{path: value}` too, as equality); `undefined` for
 * one the bar cannot show as AND-ed conditions (`$or`, `$not`, an object value), which the page applies as it is.
 */
export function conditionsOf(filter: JsonValue): Condition[] | undefined {
  if (!isPlainObject(filter)) return undefined;
  const conditions: Condition[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and') {
      if (!Array.isArray(value)) return undefined;
      for (const part of value) {
        const inner = conditionsOf(part);
        if (!inner) return undefined;
        conditions.push(...inner);
      }
    } else if (key.startsWith('$')) {
      return undefined;
    } else if (isPlainObject(value)) {
      const operators = Object.entries(value);
      if (operators.length === 0) return undefined;
      for (const [operator, operand] of operators) {
        const condition = conditionOf(key, operator, operand);
        if (!condition) return undefined;
        conditions.push(condition);
      }
    } else {
      const condition = conditionOf(key, '$eq', value);
      if (!condition) return undefined;
      conditions.push(condition);
    }
  }
  return conditions;
}

/** The filter JSON of a URL's `filter` parameter; undefined when absent or not JSON. */
export function filterFromParam(param: string | null): JsonObject | undefined {
  if (param === null || param === '') return undefined;
  try {
    const value = JSON.parse(param) as JsonValue;
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
