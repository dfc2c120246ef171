import { fieldError, type FieldIssue } from './errors.js';
import { textProblem } from './text.js';
import { normaliseMediaSettings, refuseMediaSettings } from './media-field.js';
import { FIELD_TYPES, INDEXABLE_FIELD_TYPES, RELATION_TYPES, type FieldType, type RelationType } from '../shared/field-types.js';
import { isPlainObject } from '../shared/json.js';
import { suggest } from '../shared/suggest.js';
import { MODEL_LIMITS, SLUG_PATTERN } from '../shared/model-limits.js';
import { FORBIDDEN_KEYS, type DeliveryAccess, type FieldDefinition, type ModelShape, type ProductSettings } from './fields.js';

export interface ModelDefinitionInput {
  name?: unknown;
  slug?: unknown;
  description?: unknown;
  icon?: unknown;
  color?: unknown;
  displayField?: unknown;
  fields?: unknown;
  product?: unknown;
  deliveryAccess?: unknown;
  drafts?: unknown;
}

export type { ModelShape };

export { MODEL_LIMITS };

/** A CSS hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa. */
const COLOR_PATTERN = /^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;

const KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

class IssueList {
  readonly issues: FieldIssue[] = [];
  add(path: string, reason: string): void {
    this.issues.push({ path, reason });
  }
  throwFirst(): void {
    const first = this.issues[0];
    if (first) throw fieldError(first);
  }
}

/**
 * Checks a model definition and returns it normalised (labels and flags filled in).
 * `relationTargets` are the slugs a relation may point at (the workspace's models and the model itself).
 */
export function normaliseModelShape(input: ModelDefinitionInput, relationTargets: ReadonlySet<string>): ModelShape {
  const issues = new IssueList();
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name) issues.add('name', 'must be a non-empty string');
  else checkText(issues, 'name', name, MODEL_LIMITS.maxNameLength);
  const slug = typeof input.slug === 'string' ? input.slug : '';
  if (!SLUG_PATTERN.test(slug)) {
    issues.add('slug', 'must be 1-64 characters of a-z, 0-9, "-" or "_", starting with a letter or digit');
  }
  const targets = new Set(relationTargets).add(slug);
  const fields = normaliseFields(input.fields, 'fields', targets, issues);
  const fieldCount = countFields(fields);
  if (fieldCount > MODEL_LIMITS.maxFields) {
    issues.add('fields', `a model may have at most ${MODEL_LIMITS.maxFields} fields, sub-fields included; got ${fieldCount}`);
  }
  const indexedCount = countFields(fields, (field) => field.indexed === true);
  if (indexedCount > MODEL_LIMITS.maxIndexedFields) {
    issues.add(
      'fields',
      `a model may have at most ${MODEL_LIMITS.maxIndexedFields} indexed fields, sub-fields included; got ${indexedCount}`,
    );
  }
  const keys = new Set(fields.map((field) => field.key));

  let displayField = fields[0]?.key ?? '';
  if (input.displayField !== undefined && input.displayField !== null) {
    if (typeof input.displayField !== 'string' || !keys.has(input.displayField)) {
      issues.add('displayField', `must be the key of one of the model's fields${suggest(input.displayField, keys)}`);
    } else {
      displayField = input.displayField;
    }
  }

  const product = normaliseProduct(input.product, fields, issues);
  const deliveryAccess = input.deliveryAccess ?? 'none';
  if (deliveryAccess !== 'public' && deliveryAccess !== 'none') {
    issues.add('deliveryAccess', 'must be "public" or "none"');
  }
  const drafts = input.drafts ?? false;
  if (typeof drafts !== 'boolean') issues.add('drafts', 'must be true or false');
  const description = input.description;
  if (description !== undefined && description !== null && typeof description !== 'string') {
    issues.add('description', 'must be a string');
  } else if (typeof description === 'string') {
    checkText(issues, 'description', description, MODEL_LIMITS.maxDescriptionLength);
  }
  const icon = normaliseIcon(input.icon, issues);
  const color = normaliseColor(input.color, issues);
  issues.throwFirst();
  return {
    name,
    slug,
    description: typeof description === 'string' ? description : null,
    icon,
    color,
    displayField,
    fields,
    product,
    deliveryAccess: deliveryAccess as DeliveryAccess,
    drafts: drafts === true,
  };
}

/** An optional setting given as a string; "" clears it like null (what a cleared form field sends). */
function optionalText(value: unknown, path: string, issues: IssueList): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') {
    issues.add(path, 'must be a string');
    return null;
  }
  return value;
}

function normaliseIcon(value: unknown, issues: IssueList): string | null {
  const icon = optionalText(value, 'icon', issues);
  if (icon !== null) checkText(issues, 'icon', icon, MODEL_LIMITS.maxIconLength);
  return icon;
}

function normaliseColor(value: unknown, issues: IssueList): string | null {
  const color = optionalText(value, 'color', issues);
  if (color !== null && !COLOR_PATTERN.test(color)) {
    issues.add('color', 'must be a CSS hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa (such as #1e90ff)');
  }
  return color;
}

function normaliseFields(
  value: unknown,
  path: string,
  relationTargets: ReadonlySet<string>,
  issues: IssueList,
  depth = 1,
): FieldDefinition[] {
  if (!Array.isArray(value)) {
    issues.add(path, 'must be an array of field definitions');
    return [];
  }
  if (depth > MODEL_LIMITS.maxFieldDepth) {
    issues.add(path, `object fields may nest at most ${MODEL_LIMITS.maxFieldDepth} levels deep`);
    return [];
  }
  // Checked before each definition is: a list of 100,000 fields is refused without the work.
  if (value.length > MODEL_LIMITS.maxFields) {
    issues.add(path, `a model may have at most ${MODEL_LIMITS.maxFields} fields, sub-fields included; got ${value.length}`);
    return [];
  }
  if (value.length === 0) issues.add(path, 'must define at least one field');
  const seen = new Set<string>();
  const fields: FieldDefinition[] = [];
  value.forEach((raw, index) => {
    const at = `${path}[${index}]`;
    if (!isPlainObject(raw)) {
      issues.add(at, 'must be a field definition object');
      return;
    }
    const field = normaliseField(raw, at, relationTargets, issues, depth);
    if (!field) return;
    if (seen.has(field.key)) issues.add(`${at}.key`, `"${field.key}" is used by another field`);
    seen.add(field.key);
    fields.push(field);
  });
  return fields;
}

function normaliseField(
  raw: Record<string, unknown>,
  at: string,
  relationTargets: ReadonlySet<string>,
  issues: IssueList,
  depth: number,
): FieldDefinition | null {
  const key = raw.key;
  if (typeof key !== 'string' || !KEY_PATTERN.test(key) || FORBIDDEN_KEYS.has(key)) {
    issues.add(`${at}.key`, 'must start with a letter or "_" and contain only letters, digits and "_" (at most 64)');
    return null;
  }
  const type = raw.type;
  if (typeof type !== 'string' || !(FIELD_TYPES as readonly string[]).includes(type)) {
    issues.add(`${at}.type`, `must be one of ${FIELD_TYPES.join(', ')}`);
    return null;
  }
  if (raw.label !== undefined && raw.label !== null && typeof raw.label !== 'string') {
    issues.add(`${at}.label`, 'must be a string');
  } else if (typeof raw.label === 'string') {
    checkText(issues, `${at}.label`, raw.label, MODEL_LIMITS.maxLabelLength);
  }
  if (raw.required !== undefined && raw.required !== null && typeof raw.required !== 'boolean') {
    issues.add(`${at}.required`, 'must be a boolean');
  }
  if (raw.indexed !== undefined && raw.indexed !== null && typeof raw.indexed !== 'boolean') {
    issues.add(`${at}.indexed`, 'must be a boolean');
  } else if (raw.indexed === true && !INDEXABLE_FIELD_TYPES.includes(type as FieldType)) {
    issues.add(`${at}.indexed`, `only ${INDEXABLE_FIELD_TYPES.join(', ')} fields can be indexed, not ${type} fields`);
  }
  const field: FieldDefinition = {
    key,
    label: typeof raw.label === 'string' && raw.label ? raw.label : key,
    type: type as FieldType,
    required: raw.required === true,
  };
  if (raw.indexed === true) field.indexed = true;
  if (type === 'relation') {
    Object.assign(field, normaliseRelation(raw, at, relationTargets, issues));
  } else if (raw.relationTo != null || raw.relationType != null) {
    issues.add(`${at}.relationTo`, 'is only allowed on relation fields');
  }
  if (type === 'media') {
    if (depth > 1) issues.add(`${at}.type`, 'media fields cannot be sub-fields of an object field');
    Object.assign(
      field,
      normaliseMediaSettings(raw, at, (path, reason) => issues.add(path, reason)),
    );
  } else {
    refuseMediaSettings(raw, at, (path, reason) => issues.add(path, reason));
  }
  if (type === 'object' && raw.fields != null) {
    field.fields = normaliseFields(raw.fields, `${at}.fields`, relationTargets, issues, depth + 1);
  } else if (raw.fields != null) {
    issues.add(`${at}.fields`, 'sub-fields are only allowed on object fields');
  }
  return field;
}

function normaliseRelation(
  raw: Record<string, unknown>,
  at: string,
  relationTargets: ReadonlySet<string>,
  issues: IssueList,
): Pick<FieldDefinition, 'relationTo' | 'relationType'> {
  const relationTo = raw.relationTo;
  if (typeof relationTo !== 'string' || !relationTo.startsWith('model:')) {
    issues.add(`${at}.relationTo`, 'must be "model:<slug>" naming the target model');
  } else if (!relationTargets.has(relationTo.slice('model:'.length))) {
    issues.add(`${at}.relationTo`, `no model with slug "${relationTo.slice('model:'.length)}" in this workspace`);
  }
  const relationType = raw.relationType ?? 'hasOne';
  if (!(RELATION_TYPES as readonly unknown[]).includes(relationType)) {
    issues.add(`${at}.relationType`, 'must be "hasOne" or "hasMany"');
  }
  return { relationTo: relationTo as string, relationType: relationType as RelationType };
}

function normaliseProduct(value: unknown, fields: FieldDefinition[], issues: IssueList): ProductSettings | null {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) {
    issues.add('product', 'must be an object');
    return null;
  }
  const enabled = value.enabled === true;
  const product: ProductSettings = {
    enabled,
    skuField: typeof value.skuField === 'string' ? value.skuField : null,
    priceField: typeof value.priceField === 'string' ? value.priceField : null,
  };
  const byKey = new Map(fields.map((field) => [field.key, field]));
  if (enabled && product.skuField === null) issues.add('product.skuField', 'is required when product.enabled is true');
  if (product.skuField !== null && byKey.get(product.skuField)?.type !== 'text') {
    issues.add('product.skuField', `must be the key of a text field${suggest(product.skuField, byKey.keys())}`);
  }
  if (product.priceField !== null && byKey.get(product.priceField)?.type !== 'number') {
    issues.add('product.priceField', `must be the key of a number field${suggest(product.priceField, byKey.keys())}`);
  }
  return product;
}

function checkText(issues: IssueList, path: string, text: string, maxLength: number): void {
  const problem = textProblem(text);
  if (problem) issues.add(path, problem);
  else if (text.length > maxLength) issues.add(path, `must be at most ${maxLength} characters`);
}

function countFields(fields: readonly FieldDefinition[], counted: (field: FieldDefinition) => boolean = () => true): number {
  return fields.reduce(
    (count, field) => count + (counted(field) ? 1 : 0) + (field.fields ? countFields(field.fields, counted) : 0),
    0,
  );
}
