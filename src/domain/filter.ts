// The filter language of record lists (delivery.md, "filter"): a JSON object in the style of MongoDB queries,
// checked against the model and turned into a tree the stores compile to SQL. Everything a store puts in SQL text
// comes from here already checked (field keys and locales of the model); values only ever travel as parameters.
import { isIsoDate } from '../shared/field-types.js';
import { isPlainObject } from '../shared/json.js';
import { ServiceError } from './errors.js';
import { displayPath, PathProblem, resolvePath, type DataValue, type RecordTarget } from './record-paths.js';
import type { ModelDefinition } from './fields.js';
import { textProblem } from './text.js';

export const FILTER_LIMITS = {
  /** Filter objects inside one another: the filter itself is level 1, each $and/$or/$not one more. */
  maxDepth: 5,
  /** Conditions (an operator on a path, or a plain value) in the whole filter; also the longest $and/$or. */
  maxConditions: 50,
  /** Values in one $in or $nin. */
  maxInValues: 1000,
} as const;

export type Scalar = string | number | boolean;

/** A target compared by value: the record's id or a timestamp (epoch milliseconds), or a single value in data. */
export type ComparedTarget = Extract<RecordTarget, { kind: 'id' | 'time' | 'value' | 'status' }>;
/** A target that may be missing from a record. */
export type OptionalTarget = Exclude<RecordTarget, { kind: 'id' | 'time' | 'status' }>;
export type ManyTarget = Extract<RecordTarget, { kind: 'many' }>;
export type LocalesTarget = Extract<RecordTarget, { kind: 'locales' }>;

export type Comparison = 'eq' | 'gt' | 'gte' | 'lt' | 'lte';

/**
 * A checked filter. Its meaning, which both stores and the tests' own evaluation follow: a comparison, `$in`,
 * `$contains` and `$startsWith` are false on a record missing the value; `$ne`, `$nin` and `$not` are the exact
 * negations of what they negate (so a record missing `price` matches `{"price": {"$ne": 5}}`).
 */
export type FilterNode =
  | { kind: 'and' | 'or'; nodes: FilterNode[] }
  | { kind: 'not'; node: FilterNode }
  | { kind: 'compare'; target: ComparedTarget; op: Comparison; value: Scalar }
  | { kind: 'in'; target: ComparedTarget; values: Scalar[] }
  | { kind: 'exists'; target: OptionalTarget }
  /** Case-insensitive text search: in one text value, or in any translation of a translatable value. */
  | { kind: 'text'; target: DataValue | LocalesTarget; op: 'contains' | 'startsWith'; text: string }
  /** A hasMany relation holds this id. */
  | { kind: 'holds'; target: ManyTarget; id: string };

const COMPARISONS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte'] as const;
const FIELD_OPERATORS = [...COMPARISONS, '$in', '$nin', '$exists', '$contains', '$startsWith'] as const;
const LOGICAL_OPERATORS = ['$and', '$or', '$not'] as const;
const ALL_OPERATORS: readonly string[] = [...FIELD_OPERATORS, ...LOGICAL_OPERATORS];
type FieldOperator = (typeof FIELD_OPERATORS)[number];

const ORDERED: readonly FieldOperator[] = [...COMPARISONS, '$in', '$nin', '$exists'];
const EQUALITY: readonly FieldOperator[] = ['$eq', '$ne', '$in', '$nin', '$exists'];

/** The operators each kind of target takes (the record's id and timestamps are never missing: no $exists). */
function operatorsOf(target: RecordTarget): readonly FieldOperator[] {
  switch (target.kind) {
    case 'id':
    case 'status':
      return ['$eq', '$ne', '$in', '$nin'];
    case 'time':
      return [...COMPARISONS, '$in', '$nin'];
    case 'many':
      return ['$contains', '$exists'];
    case 'locales':
      return ['$contains', '$startsWith', '$exists'];
    case 'object':
      return ['$exists'];
    case 'value':
      if (target.type === 'text') return FIELD_OPERATORS;
      return target.type === 'number' || target.type === 'date' ? ORDERED : EQUALITY;
  }
}

function describe(target: RecordTarget): string {
  switch (target.kind) {
    case 'id':
      return 'the record id';
    case 'status':
      return "the record's status";
    case 'time':
      return `the record's ${target.column}`;
    case 'many':
      return 'a hasMany relation';
    case 'locales':
      return 'a translatable field (name a locale, such as title.en, to compare one translation)';
    case 'object':
      return 'an object field';
    case 'value':
      return target.type === 'relation' ? 'a hasOne relation' : `a ${target.type} field`;
  }
}

function refuse(path: string, reason: string): never {
  throw new ServiceError('BAD_USER_INPUT', `${path}: ${reason}`, { field: 'filter' });
}

class FilterReader {
  private conditions = 0;

  constructor(private readonly model: Pick<ModelDefinition, 'fields' | 'product'>) {}

  /** A filter object: paths and $and/$or/$not, all of which must hold. */
  filter(value: unknown, path: string, depth: number): FilterNode {
    if (depth > FILTER_LIMITS.maxDepth) refuse(path, `a filter may nest at most ${FILTER_LIMITS.maxDepth} levels deep`);
    if (!isPlainObject(value)) refuse(path, 'expected a JSON object of conditions, such as {"price": {"$lt": 100}}');
    const keys = Object.keys(value);
    // Only the whole filter may be empty: an empty one inside would let a filter grow without conditions.
    if (keys.length === 0 && depth > 1) refuse(path, 'expected at least one condition');
    const nodes: FilterNode[] = [];
    for (const key of keys) {
      const at = `${path}.${displayPath(key)}`;
      const item = value[key];
      if (key === '$and' || key === '$or') nodes.push({ kind: key === '$and' ? 'and' : 'or', nodes: this.list(item, at, depth) });
      else if (key === '$not') nodes.push({ kind: 'not', node: this.filter(item, at, depth + 1) });
      else if (key.startsWith('$')) {
        if (ALL_OPERATORS.includes(key)) refuse(at, `an operator goes after a field path, as in {"price": {"${key}": …}}`);
        refuse(at, `unknown operator (allowed: ${ALL_OPERATORS.join(', ')})`);
      } else nodes.push(this.condition(this.target(key, at), item, at, depth));
    }
    return nodes.length === 1 ? nodes[0]! : { kind: 'and', nodes };
  }

  private list(value: unknown, path: string, depth: number): FilterNode[] {
    if (!Array.isArray(value) || value.length === 0) refuse(path, 'expected a non-empty array of filters');
    if (value.length > FILTER_LIMITS.maxConditions) {
      refuse(path, `a filter may hold at most ${FILTER_LIMITS.maxConditions} conditions`);
    }
    return value.map((item, index) => this.filter(item, `${path}[${index}]`, depth + 1));
  }

  private target(key: string, path: string): RecordTarget {
    const textIssue = textProblem(key);
    if (textIssue) refuse(path, textIssue);
    const target = resolvePath(this.model, key);
    if (target instanceof PathProblem) refuse(path, target.reason);
    return target;
  }

  /** What follows a path: a plain value (equality) or an object of operators. */
  private condition(target: RecordTarget, value: unknown, path: string, depth: number): FilterNode {
    if (!isPlainObject(value)) return this.operator(target, '$eq', value, path, true);
    const nodes: FilterNode[] = [];
    for (const key of Object.keys(value)) {
      const at = `${path}.${displayPath(key)}`;
      if (key === '$not') {
        if (depth + 1 > FILTER_LIMITS.maxDepth) refuse(at, `a filter may nest at most ${FILTER_LIMITS.maxDepth} levels deep`);
        nodes.push({ kind: 'not', node: this.condition(target, value[key], at, depth + 1) });
      } else if (key === '$and' || key === '$or') {
        refuse(at, `${key} combines whole filters: put it before the paths, as in {"${key}": [{"price": 1}, {"price": 2}]}`);
      } else if ((FIELD_OPERATORS as readonly string[]).includes(key)) {
        nodes.push(this.operator(target, key as FieldOperator, value[key], at));
      } else {
        refuse(at, `unknown operator (allowed: ${[...FIELD_OPERATORS, '$not'].join(', ')})`);
      }
    }
    if (nodes.length === 0) refuse(path, `expected a value or an object of operators, such as {"$eq": …}`);
    return nodes.length === 1 ? nodes[0]! : { kind: 'and', nodes };
  }

  private operator(target: RecordTarget, operator: FieldOperator, value: unknown, path: string, plain = false): FilterNode {
    this.conditions++;
    if (this.conditions > FILTER_LIMITS.maxConditions) {
      refuse('filter', `a filter may hold at most ${FILTER_LIMITS.maxConditions} conditions`);
    }
    const allowed = operatorsOf(target);
    if (!allowed.includes(operator)) {
      const what = plain ? 'a plain value means $eq, which' : operator;
      refuse(path, `${what} does not apply to ${describe(target)} (allowed: ${allowed.join(', ')})`);
    }
    switch (operator) {
      case '$eq':
      case '$ne': {
        const equal: FilterNode =
          value === null && target.kind !== 'id' && target.kind !== 'time' && target.kind !== 'status'
            ? { kind: 'not', node: { kind: 'exists', target } }
            : { kind: 'compare', target: target as ComparedTarget, op: 'eq', value: scalar(target, value, path) };
        return operator === '$eq' ? equal : negate(equal);
      }
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        return {
          kind: 'compare',
          target: target as ComparedTarget,
          op: operator.slice(1) as Comparison,
          value: scalar(target, value, path),
        };
      case '$in':
      case '$nin': {
        if (!Array.isArray(value)) refuse(path, 'expected an array of values');
        if (value.length > FILTER_LIMITS.maxInValues) {
          refuse(path, `at most ${FILTER_LIMITS.maxInValues} values in ${operator}, got ${value.length}`);
        }
        const values = value.map((item, index) => scalar(target, item, `${path}[${index}]`));
        const node: FilterNode = { kind: 'in', target: target as ComparedTarget, values };
        return operator === '$in' ? node : { kind: 'not', node };
      }
      case '$exists': {
        if (typeof value !== 'boolean') refuse(path, 'expected true or false');
        const node: FilterNode = { kind: 'exists', target: target as OptionalTarget };
        return value ? node : { kind: 'not', node };
      }
      case '$contains':
        if (target.kind === 'many') return { kind: 'holds', target, id: recordId(value, path) };
        return { kind: 'text', target: target as DataValue | LocalesTarget, op: 'contains', text: text(value, path) };
      case '$startsWith':
        return { kind: 'text', target: target as DataValue | LocalesTarget, op: 'startsWith', text: text(value, path) };
    }
  }
}

function negate(node: FilterNode): FilterNode {
  return node.kind === 'not' ? node.node : { kind: 'not', node };
}

function text(value: unknown, path: string): string {
  if (typeof value !== 'string') refuse(path, 'expected a string');
  const problem = textProblem(value);
  if (problem) refuse(path, problem);
  return value;
}

function recordId(value: unknown, path: string): string {
  if (typeof value !== 'string' || value === '') refuse(path, 'expected a record id (string)');
  return text(value, path);
}

/** The value of a comparison, in the target's type (the timestamps as epoch milliseconds). */
function scalar(target: RecordTarget, value: unknown, path: string): Scalar {
  if (target.kind === 'id') return recordId(value, path);
  if (target.kind === 'time') {
    if (typeof value !== 'string' || !isIsoDate(value) || (value.length > 10 && !/(Z|[+-]\d{2}:?\d{2})$/.test(value))) {
      refuse(path, 'expected an ISO 8601 date or date-time with a time zone, such as 2024-05-01 or 2024-05-01T12:00:00Z');
    }
    return Date.parse(value);
  }
  const type = target.kind === 'value' ? target.type : 'text';
  switch (type) {
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) refuse(path, 'expected a number');
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') refuse(path, 'expected true or false');
      return value;
    case 'date':
      if (typeof value !== 'string' || !isIsoDate(value)) {
        refuse(path, 'expected an ISO 8601 date or date-time string, such as 2024-05-01 or 2024-05-01T12:00:00Z');
      }
      return value;
    case 'relation':
      return recordId(value, path);
    case 'text':
      return text(value, path);
  }
}

/**
 * Reads the `filter` argument of a record list against the model. Null when there is nothing to filter by (no
 * argument, null, or `{}`); a refusal names the path of the offending part first (`filter.price.$gte: …`).
 */
export function parseFilter(model: Pick<ModelDefinition, 'fields' | 'product'>, value: unknown): FilterNode | null {
  if (value === undefined || value === null) return null;
  const node = new FilterReader(model).filter(value, 'filter', 1);
  return node.kind === 'and' && node.nodes.length === 0 ? null : node;
}
