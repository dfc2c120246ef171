import type { FieldIssue } from './errors.js';
import { isIsoDate, LOCALE_PATTERN } from '../shared/field-types.js';
import { isPlainObject } from '../shared/json.js';
import { FORBIDDEN_KEYS, relationTargetSlug, type FieldDefinition, type RecordData } from './fields.js';
import { suggest } from './model-definition.js';
import { textProblem } from './text.js';

/** A relation id found in record data, to be checked against the target model. */
export interface RelationReference {
  path: string;
  fieldKey: string;
  targetSlug: string;
  targetId: string;
}

export interface DataCheck {
  issues: FieldIssue[];
  /** The data to store: `null` values of create/update dropped. */
  data: RecordData;
  references: RelationReference[];
}

/** Validates a whole `data` object against the model's fields, as every record write must. */
export function checkRecordData(fields: readonly FieldDefinition[], data: unknown): DataCheck {
  const check: DataCheck = { issues: [], data: {}, references: [] };
  if (!isPlainObject(data)) {
    check.issues.push({ path: 'data', reason: 'must be a JSON object keyed by field key' });
    return check;
  }
  check.data = checkObject(fields, data, '', check);
  return check;
}

function checkObject(
  fields: readonly FieldDefinition[],
  value: Record<string, unknown>,
  prefix: string,
  check: DataCheck,
): RecordData {
  const byKey = fieldsByKey(fields);
  const result: RecordData = {};
  for (const key of Object.keys(value)) {
    if (!byKey.has(key)) {
      const reason = FORBIDDEN_KEYS.has(key) ? 'key not allowed' : `unknown field${suggest(key, byKey.keys())}`;
      check.issues.push({ path: prefix + key, reason });
    }
  }
  for (const field of fields) {
    const fieldValue = value[field.key];
    const path = prefix + field.key;
    if (fieldValue === undefined || fieldValue === null) {
      if (field.required) check.issues.push({ path, reason: 'is required' });
      continue;
    }
    const checked = checkValue(field, fieldValue, path, check);
    // Field keys are checked when the model is defined (never __proto__), so plain assignment is safe here.
    if (checked !== undefined) result[field.key] = checked;
  }
  return result;
}

function checkValue(field: FieldDefinition, value: unknown, path: string, check: DataCheck): unknown {
  const fail = (reason: string): undefined => {
    check.issues.push({ path, reason });
    return undefined;
  };
  switch (field.type) {
    case 'text':
      if (typeof value !== 'string') return fail('must be a string');
      return checkText(value, fail);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : fail('must be a finite number');
    case 'boolean':
      return typeof value === 'boolean' ? value : fail('must be true or false');
    case 'date':
      return typeof value === 'string' && isIsoDate(value)
        ? value
        : fail('must be an ISO 8601 date or date-time string, such as 2024-05-01 or 2024-05-01T12:00:00Z');
    case 'relation':
      return checkRelation(field, value, path, check, fail);
    case 'translatable':
      return checkTranslatable(value, path, check, fail);
    case 'object':
      if (!isPlainObject(value)) return fail('must be a JSON object');
      if (field.fields) return checkObject(field.fields, value, `${path}.`, check);
      return checkFreeJson(value, path, check);
  }
}

function checkRelation(
  field: FieldDefinition,
  value: unknown,
  path: string,
  check: DataCheck,
  fail: (reason: string) => undefined,
): unknown {
  const targetSlug = relationTargetSlug(field) ?? '';
  const many = field.relationType === 'hasMany';
  const ids = many ? value : [value];
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string' && id.length > 0 && id.length <= 64)) {
    return fail(many ? 'must be an array of record ids' : 'must be a record id (string)');
  }
  for (const targetId of ids as string[]) {
    const problem = textProblem(targetId);
    if (problem) return fail(problem);
  }
  for (const targetId of ids as string[]) {
    check.references.push({ path, fieldKey: field.key, targetSlug, targetId });
  }
  return many ? [...(ids as string[])] : value;
}

function checkTranslatable(value: unknown, path: string, check: DataCheck, fail: (reason: string) => undefined): unknown {
  if (!isPlainObject(value)) return fail('must be an object of locale code to string, such as {"en":"Ball"}');
  const result: Record<string, string> = {};
  for (const [locale, text] of Object.entries(value)) {
    if (FORBIDDEN_KEYS.has(locale)) {
      check.issues.push({ path: `${path}.${locale}`, reason: 'key not allowed' });
    } else if (!LOCALE_PATTERN.test(locale)) {
      check.issues.push({ path: `${path}.${locale}`, reason: 'is not a locale code (such as en, pl or pt-BR)' });
    } else if (text === null) {
      continue;
    } else if (typeof text !== 'string') {
      check.issues.push({ path: `${path}.${locale}`, reason: 'must be a string' });
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

/** An object field without sub-fields holds any JSON, but no NUL characters, no prototype keys, no deep nesting. */
function checkFreeJson(value: unknown, path: string, check: DataCheck, depth = 1): unknown {
  if (depth > MAX_JSON_DEPTH) {
    check.issues.push({ path, reason: `is nested too deeply (at most ${MAX_JSON_DEPTH} levels)` });
  } else if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem) check.issues.push({ path, reason: problem });
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

const keyMaps = new WeakMap<readonly FieldDefinition[], Map<string, FieldDefinition>>();

/** The fields by key, made once per field list: an import checks 1000 rows against the same list. */
function fieldsByKey(fields: readonly FieldDefinition[]): Map<string, FieldDefinition> {
  let byKey = keyMaps.get(fields);
  if (!byKey) {
    byKey = new Map(fields.map((field) => [field.key, field]));
    keyMaps.set(fields, byKey);
  }
  return byKey;
}

function checkText(text: string, fail: (reason: string) => undefined): string | undefined {
  const problem = textProblem(text);
  return problem ? fail(problem) : text;
}
