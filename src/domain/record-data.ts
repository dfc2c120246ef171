import type { FieldIssue } from './errors.js';
import { isIsoDate, LOCALE_PATTERN } from '../shared/field-types.js';
import { isPlainObject } from '../shared/json.js';
import { FORBIDDEN_KEYS, relationTargetSlug, type FieldDefinition, type RecordData } from './fields.js';
import { textProblem } from './text.js';

/** A relation id found in record data, to be checked against the target model. */
export interface RelationReference {
  path: string;
  fieldKey: string;
  targetSlug: string;
  targetId: string;
}

/** An asset id found in a media field, to be checked against the workspace's assets and the field's kinds. */
export interface AssetReference {
  path: string;
  field: FieldDefinition;
  assetId: string;
}

export interface DataCheck {
  issues: FieldIssue[];
  /** The data to store: `null` values of create/update dropped. */
  data: RecordData;
  references: RelationReference[];
  assets: AssetReference[];
}

/** Validates a whole `data` object against the model's fields, as every record write must. */
export function checkRecordData(fields: readonly FieldDefinition[], data: unknown): DataCheck {
  const check: DataCheck = { issues: [], data: {}, references: [], assets: [] };
  if (!isPlainObject(data)) {
    check.issues.push({ path: 'data', reason: 'must be a JSON object keyed by field key' });
    return check;
  }
  check.data = checkObject(fields, data, '', check);
  return check;
}

/**
 * Checks an object against its fields. The data to store is the given object itself when it needs no change — an
 * ordinary object whose keys are fields, in the fields' order, none null, every value passing as it is: an
 * import's rows usually do, and copying a thousand of them key by key cost more than checking them. Otherwise it is
 * a new object in the fields' order without the nulls, as before.
 */
function checkObject(
  fields: readonly FieldDefinition[],
  value: Record<string, unknown>,
  prefix: string,
  check: DataCheck,
): RecordData {
  const positions = fieldPositions(fields);
  const keys = Object.keys(value);
  // Kept as it is only when it is an ordinary object (JSON.parse makes those), so the data is always one.
  let inFieldOrder = Object.getPrototypeOf(value) === Object.prototype;
  let last = -1;
  for (const key of keys) {
    const position = positions.get(key);
    if (position === undefined) {
      // The contract's words exactly (`<key>: unknown field`), with no suggestion after them.
      const reason = FORBIDDEN_KEYS.has(key) ? 'key not allowed' : 'unknown field';
      check.issues.push({ path: prefix + key, reason });
      inFieldOrder = false;
    } else {
      if (position < last) inFieldOrder = false;
      last = position;
    }
  }
  // null while the checked data is still the given object.
  let result: RecordData | null = inFieldOrder ? null : {};
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index]!;
    const fieldValue = value[field.key];
    if (fieldValue === undefined || fieldValue === null) {
      if (field.required) check.issues.push({ path: prefix + field.key, reason: 'is required' });
      if (fieldValue === null && result === null) result = presentValues(fields, index, value);
      continue;
    }
    const checked = checkValue(field, fieldValue, prefix, check);
    if (result === null) {
      if (checked === fieldValue) continue;
      result = presentValues(fields, index, value);
    }
    // Field keys are checked when the model is defined (never __proto__), so plain assignment is safe here.
    if (checked !== undefined) result[field.key] = checked;
  }
  return result ?? value;
}

/** The values of the first `end` fields that `value` has (not null), in the fields' order. */
function presentValues(fields: readonly FieldDefinition[], end: number, value: Record<string, unknown>): RecordData {
  const result: RecordData = {};
  for (let index = 0; index < end; index++) {
    const key = fields[index]!.key;
    const fieldValue = value[key];
    if (fieldValue !== undefined && fieldValue !== null) result[key] = fieldValue;
  }
  return result;
}

/** Records an issue; undefined, the value of a refused field. */
function refuse(check: DataCheck, path: string, reason: string): undefined {
  check.issues.push({ path, reason });
  return undefined;
}

/** The checked value (the same value when it passes as it is), or undefined when refused. */
function checkValue(field: FieldDefinition, value: unknown, prefix: string, check: DataCheck): unknown {
  switch (field.type) {
    case 'text': {
      if (typeof value !== 'string') return refuse(check, prefix + field.key, 'expected a string');
      const problem = textProblem(value);
      return problem ? refuse(check, prefix + field.key, problem) : value;
    }
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : refuse(check, prefix + field.key, 'expected a number');
    case 'boolean':
      return typeof value === 'boolean' ? value : refuse(check, prefix + field.key, 'expected true or false');
    case 'date':
      return typeof value === 'string' && isIsoDate(value)
        ? value
        : refuse(
            check,
            prefix + field.key,
            'expected an ISO 8601 date or date-time string, such as 2024-05-01 or 2024-05-01T12:00:00Z',
          );
    case 'relation':
      return checkRelation(field, value, prefix + field.key, check);
    case 'translatable':
      return checkTranslatable(value, prefix + field.key, check);
    case 'media':
      return checkMedia(field, value, prefix + field.key, check);
    case 'object': {
      const path = prefix + field.key;
      if (!isPlainObject(value)) return refuse(check, path, 'expected a JSON object');
      if (field.fields) return checkObject(field.fields, value, `${path}.`, check);
      return checkFreeJson(value, path, check);
    }
  }
}

function checkRelation(field: FieldDefinition, value: unknown, path: string, check: DataCheck): unknown {
  const targetSlug = relationTargetSlug(field) ?? '';
  const many = field.relationType === 'hasMany';
  const ids = many ? value : [value];
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string' && id.length > 0 && id.length <= 64)) {
    return refuse(check, path, many ? 'expected an array of record ids' : 'expected a record id (string)');
  }
  for (const targetId of ids as string[]) {
    const problem = textProblem(targetId);
    if (problem) return refuse(check, path, problem);
  }
  for (const targetId of ids as string[]) {
    check.references.push({ path, fieldKey: field.key, targetSlug, targetId });
  }
  return many ? [...(ids as string[])] : value;
}

function checkMedia(field: FieldDefinition, value: unknown, path: string, check: DataCheck): unknown {
  const many = field.multiple === true;
  const ids = many ? value : [value];
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string' && id.length > 0 && id.length <= 64)) {
    return refuse(check, path, many ? 'expected an array of asset ids' : 'expected an asset id (string)');
  }
  for (const assetId of ids as string[]) {
    const problem = textProblem(assetId);
    if (problem) return refuse(check, path, problem);
  }
  if (many && new Set(ids).size !== ids.length) return refuse(check, path, 'holds an asset more than once');
  for (const assetId of ids as string[]) check.assets.push({ path, field, assetId });
  return many ? [...(ids as string[])] : value;
}

function checkTranslatable(value: unknown, path: string, check: DataCheck): unknown {
  if (!isPlainObject(value)) return refuse(check, path, 'expected an object of locale code to string, such as {"en":"Ball"}');
  const result: Record<string, string> = {};
  for (const [locale, text] of Object.entries(value)) {
    if (FORBIDDEN_KEYS.has(locale)) {
      check.issues.push({ path: `${path}.${locale}`, reason: 'key not allowed' });
    } else if (!LOCALE_PATTERN.test(locale)) {
      check.issues.push({ path: `${path}.${locale}`, reason: 'is not a locale code (such as en, pl or pt-BR)' });
    } else if (text === null) {
      continue;
    } else if (typeof text !== 'string') {
      check.issues.push({ path: `${path}.${locale}`, reason: 'expected a string' });
    } else {
      const problem = textProblem(text);
      if (problem) check.issues.push({ path: `${path}.${locale}`, reason: problem });
      else result[locale] = text;
    }
  }
  return result;
}

/** How deep JSON inside an object field may nest: deeper values are refused, not stored. */
export const MAX_JSON_DEPTH = 32;

/**
 * An object field without sub-fields holds any JSON, but no NUL characters, no prototype keys, no deep nesting, and
 * only finite numbers.
 */
function checkFreeJson(value: unknown, path: string, check: DataCheck, depth = 1): unknown {
  if (depth > MAX_JSON_DEPTH) {
    check.issues.push({ path, reason: `is nested too deeply (at most ${MAX_JSON_DEPTH} levels)` });
  } else if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem) check.issues.push({ path, reason: problem });
  } else if (typeof value === 'number') {
    // 1e400 parses to Infinity, which JSON cannot hold: it would be stored as null.
    if (!Number.isFinite(value)) check.issues.push({ path, reason: 'expected a finite number' });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => checkFreeJson(item, `${path}[${index}]`, check, depth + 1));
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (FORBIDDEN_KEYS.has(key) || textProblem(key)) check.issues.push({ path: `${path}.${key}`, reason: 'key not allowed' });
      else checkFreeJson(item, `${path}.${key}`, check, depth + 1);
    }
  }
  return value;
}

const positionMaps = new WeakMap<readonly FieldDefinition[], Map<string, number>>();

/** Each field's place in the list by key, made once per field list: an import checks 1000 rows against the same list. */
function fieldPositions(fields: readonly FieldDefinition[]): Map<string, number> {
  let positions = positionMaps.get(fields);
  if (!positions) {
    positions = new Map(fields.map((field, index) => [field.key, index]));
    positionMaps.set(fields, positions);
  }
  return positions;
}
