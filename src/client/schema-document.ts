// The schema file of `content-service schema`: every model of a workspace as one JSON document, without ids or
// timestamps, in a stable form (models by slug, fields in their order, keys in a fixed order) so that it diffs well
// in git. Reading a file checks it the way model.create does and names each mistake by its JSON path.
import { FIELD_TYPES, INDEXABLE_FIELD_TYPES, RELATION_TYPES } from '../shared/field-types.js';
import { isPlainObject } from '../shared/json.js';
import { ACCEPTED_ASSET_TYPES } from '../shared/media.js';
import { MODEL_LIMITS, SLUG_PATTERN } from '../shared/model-limits.js';
import { suggest } from '../shared/suggest.js';
import type { ModelDefinition, ProductSettings } from './types.js';

export const SCHEMA_FILE_VERSION = 1;

export interface SchemaField {
  key: string;
  label: string;
  type: string;
  required: boolean;
  indexed: boolean;
  /** `model:<slug>`, relation fields only. */
  relationTo?: string;
  relationType?: 'hasOne' | 'hasMany';
  /** Media fields only: an array of asset ids (else one id). */
  multiple?: boolean;
  /** Media fields only: the asset kinds it takes, in the order given; empty: all. */
  acceptedTypes?: string[];
  /** Sub-fields, object fields only (absent: an object of any shape). */
  fields?: SchemaField[];
}

export interface SchemaModel {
  slug: string;
  name: string;
  description: string | null;
  icon: string | null;
  color: string | null;
  displayField: string;
  deliveryAccess: 'public' | 'none';
  /** Working copies apart from published copies (docs/lifecycle.md); false when the file leaves it out. */
  drafts: boolean;
  product: ProductSettings | null;
  fields: SchemaField[];
}

export interface SchemaDocument {
  version: number;
  models: SchemaModel[];
}

const KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const COLOR_PATTERN = /^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;

const DOCUMENT_KEYS = ['version', 'models'];
const MODEL_KEYS = [
  'slug',
  'name',
  'description',
  'icon',
  'color',
  'displayField',
  'deliveryAccess',
  'drafts',
  'product',
  'fields',
];
const FIELD_KEYS = [
  'key',
  'label',
  'type',
  'required',
  'indexed',
  'relationTo',
  'relationType',
  'multiple',
  'acceptedTypes',
  'fields',
];
const PRODUCT_KEYS = ['enabled', 'skuField', 'priceField'];

// ---- from the server ----

/** The models of a workspace as a schema document, sorted by slug. */
export function schemaDocumentOf(models: readonly SchemaModel[]): SchemaDocument {
  return { version: SCHEMA_FILE_VERSION, models: [...models].sort(bySlug) };
}

function bySlug(a: SchemaModel, b: SchemaModel): number {
  return a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0;
}

/** A model as the file holds it: ids, counts and dates left out, defaults filled in. */
export function toSchemaModel(model: ModelDefinition): SchemaModel {
  return {
    slug: model.slug,
    name: model.name,
    description: model.description ?? null,
    icon: model.icon || null,
    color: model.color || null,
    displayField: model.displayField,
    deliveryAccess: model.deliveryAccess === 'public' ? 'public' : 'none',
    drafts: model.drafts === true,
    product: model.product
      ? { enabled: model.product.enabled, skuField: model.product.skuField, priceField: model.product.priceField }
      : null,
    fields: model.fields.map(toSchemaField),
  };
}

function toSchemaField(field: ModelDefinition['fields'][number]): SchemaField {
  const result: SchemaField = {
    key: field.key,
    label: field.label || field.key,
    type: field.type,
    required: field.required === true,
    indexed: field.indexed === true,
  };
  if (field.type === 'relation') {
    result.relationTo = field.relationTo ?? '';
    result.relationType = field.relationType ?? 'hasOne';
  }
  if (field.type === 'media') {
    result.multiple = field.multiple === true;
    result.acceptedTypes = [...(field.acceptedTypes ?? [])];
  }
  if (field.type === 'object' && field.fields) result.fields = field.fields.map(toSchemaField);
  return result;
}

/** The document as the file holds it: two-space JSON, keys in a fixed order, a final line break. */
export function renderSchemaDocument(document: SchemaDocument): string {
  return JSON.stringify(document, null, 2) + '\n';
}

// ---- from a file ----

export class SchemaFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.length} error${problems.length === 1 ? '' : 's'}\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/**
 * Checks the text of a schema file and returns its document in the form `toSchemaDocument` gives (defaults filled
 * in, so that equal definitions compare equal). `knownSlugs`: models a relation may also point at besides those of
 * the file (the workspace's, when they stay). Throws a SchemaFileError naming every mistake by its JSON path.
 */
export function parseSchemaDocument(file: string, text: string, knownSlugs: ReadonlySet<string> = new Set()): SchemaDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new SchemaFileError(file, [`$: not valid JSON: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const problems: string[] = [];
  const add = (path: string, reason: string) => problems.push(`${path}: ${reason}`);
  if (!isPlainObject(raw)) throw new SchemaFileError(file, ['$: must be an object { "version": 1, "models": [...] }']);
  unknownKeys(raw, DOCUMENT_KEYS, '$', add);
  if (raw.version !== undefined && raw.version !== SCHEMA_FILE_VERSION) {
    add('$.version', `must be ${SCHEMA_FILE_VERSION} (this version of content-service reads schema files of version 1)`);
  }
  if (!Array.isArray(raw.models)) {
    add('$.models', 'must be an array of models');
    throw new SchemaFileError(file, problems);
  }
  const rawModels: unknown[] = raw.models;
  const slugs = new Set(knownSlugs);
  for (const model of rawModels) if (isPlainObject(model) && typeof model.slug === 'string') slugs.add(model.slug);
  const seen = new Set<string>();
  const models: SchemaModel[] = [];
  rawModels.forEach((rawModel, index) => {
    const model = readModel(rawModel, `$.models[${index}]`, slugs, add);
    if (!model) return;
    if (seen.has(model.slug)) add(`$.models[${index}].slug`, `"${model.slug}" is the slug of another model of the file`);
    seen.add(model.slug);
    models.push(model);
  });
  if (problems.length > 0) throw new SchemaFileError(file, problems);
  return schemaDocumentOf(models);
}

type Add = (path: string, reason: string) => void;

function readModel(raw: unknown, at: string, slugs: ReadonlySet<string>, add: Add): SchemaModel | null {
  if (!isPlainObject(raw)) {
    add(at, 'must be a model object');
    return null;
  }
  unknownKeys(raw, MODEL_KEYS, at, add);
  const slug = typeof raw.slug === 'string' ? raw.slug : '';
  if (!SLUG_PATTERN.test(slug)) {
    add(`${at}.slug`, 'must be 1-64 characters of a-z, 0-9, "-" or "_", starting with a letter or digit');
  }
  const name = typeof raw.name === 'string' ? raw.name.trim() : '';
  if (!name) add(`${at}.name`, 'must be a non-empty string');
  else if (name.length > MODEL_LIMITS.maxNameLength)
    add(`${at}.name`, `must be at most ${MODEL_LIMITS.maxNameLength} characters`);
  const description = optionalString(raw.description, `${at}.description`, MODEL_LIMITS.maxDescriptionLength, add, false);
  const icon = optionalString(raw.icon, `${at}.icon`, MODEL_LIMITS.maxIconLength, add, true);
  const color = optionalString(raw.color, `${at}.color`, Infinity, add, true);
  if (color !== null && !COLOR_PATTERN.test(color)) {
    add(`${at}.color`, 'must be a CSS hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa (such as #1e90ff)');
  }
  const deliveryAccess = raw.deliveryAccess ?? 'none';
  if (deliveryAccess !== 'public' && deliveryAccess !== 'none') add(`${at}.deliveryAccess`, 'must be "public" or "none"');
  const drafts = optionalBoolean(raw.drafts, `${at}.drafts`, add);
  const count = { fields: 0, indexed: 0 };
  const fields = readFields(raw.fields, `${at}.fields`, { slugs, add, count }, 1);
  if (count.fields > MODEL_LIMITS.maxFields) {
    add(`${at}.fields`, `a model may have at most ${MODEL_LIMITS.maxFields} fields, sub-fields included; got ${count.fields}`);
  }
  if (count.indexed > MODEL_LIMITS.maxIndexedFields) {
    add(`${at}.fields`, `a model may have at most ${MODEL_LIMITS.maxIndexedFields} indexed fields; got ${count.indexed}`);
  }
  const keys = new Map(fields.map((field) => [field.key, field]));
  let displayField = fields[0]?.key ?? '';
  if (raw.displayField !== undefined && raw.displayField !== null) {
    if (typeof raw.displayField !== 'string' || !keys.has(raw.displayField)) {
      add(`${at}.displayField`, `must be the key of one of the model's fields${suggest(raw.displayField, keys.keys())}`);
    } else {
      displayField = raw.displayField;
    }
  }
  const product = readProduct(raw.product, `${at}.product`, keys, add);
  return {
    slug,
    name,
    description,
    icon,
    color,
    displayField,
    deliveryAccess: deliveryAccess === 'public' ? 'public' : 'none',
    drafts,
    product,
    fields,
  };
}

/** What the fields of one model are read with: the slugs a relation may name, where problems go, the running counts. */
interface FieldReading {
  slugs: ReadonlySet<string>;
  add: Add;
  count: { fields: number; indexed: number };
}

function readFields(raw: unknown, at: string, reading: FieldReading, depth: number): SchemaField[] {
  const { add } = reading;
  if (!Array.isArray(raw)) {
    add(at, 'must be an array of fields');
    return [];
  }
  if (depth > MODEL_LIMITS.maxFieldDepth) {
    add(at, `object fields may nest at most ${MODEL_LIMITS.maxFieldDepth} levels deep`);
    return [];
  }
  if (raw.length === 0) add(at, 'must define at least one field');
  const seen = new Set<string>();
  const fields: SchemaField[] = [];
  raw.forEach((rawField, index) => {
    const field = readField(rawField, `${at}[${index}]`, reading, depth);
    if (!field) return;
    if (seen.has(field.key)) add(`${at}[${index}].key`, `"${field.key}" is the key of another field`);
    seen.add(field.key);
    fields.push(field);
  });
  return fields;
}

function readField(raw: unknown, at: string, reading: FieldReading, depth: number): SchemaField | null {
  const { slugs, add, count } = reading;
  if (!isPlainObject(raw)) {
    add(at, 'must be a field object');
    return null;
  }
  count.fields += 1;
  unknownKeys(raw, FIELD_KEYS, at, add);
  const key = raw.key;
  if (typeof key !== 'string' || !KEY_PATTERN.test(key) || FORBIDDEN_KEYS.has(key)) {
    add(`${at}.key`, 'must start with a letter or "_" and contain only letters, digits and "_" (at most 64)');
  }
  const type = raw.type;
  if (typeof type !== 'string' || !(FIELD_TYPES as readonly string[]).includes(type)) {
    const shown = typeof type === 'string' ? `"${type}"` : (JSON.stringify(type) ?? 'nothing');
    add(`${at}.type`, `unknown field type ${shown}${suggest(type, FIELD_TYPES)}; one of ${FIELD_TYPES.join(', ')}`);
    return null;
  }
  const label = optionalString(raw.label, `${at}.label`, MODEL_LIMITS.maxLabelLength, add, true);
  const required = optionalBoolean(raw.required, `${at}.required`, add);
  const indexed = optionalBoolean(raw.indexed, `${at}.indexed`, add);
  if (indexed && !(INDEXABLE_FIELD_TYPES as readonly string[]).includes(type)) {
    add(`${at}.indexed`, `only ${INDEXABLE_FIELD_TYPES.join(', ')} fields can be indexed, not ${type} fields`);
  }
  if (indexed) count.indexed += 1;
  const fieldKey = typeof key === 'string' ? key : '';
  const field: SchemaField = { key: fieldKey, label: label ?? fieldKey, type, required, indexed };
  if (type === 'relation') {
    const relationTo = raw.relationTo;
    if (typeof relationTo !== 'string' || !relationTo.startsWith('model:')) {
      add(`${at}.relationTo`, 'must be "model:<slug>" naming the target model');
    } else if (!slugs.has(relationTo.slice('model:'.length))) {
      const target = relationTo.slice('model:'.length);
      add(`${at}.relationTo`, `no model "${target}" in the file or the workspace${suggest(target, slugs)}`);
    }
    const relationType = raw.relationType ?? 'hasOne';
    if (!(RELATION_TYPES as readonly unknown[]).includes(relationType))
      add(`${at}.relationType`, 'must be "hasOne" or "hasMany"');
    field.relationTo = typeof relationTo === 'string' ? relationTo : '';
    field.relationType = relationType === 'hasMany' ? 'hasMany' : 'hasOne';
  } else {
    if (raw.relationTo != null) add(`${at}.relationTo`, 'is only allowed on relation fields');
    if (raw.relationType != null) add(`${at}.relationType`, 'is only allowed on relation fields');
  }
  if (type === 'media') {
    if (depth > 1) add(`${at}.type`, 'media fields cannot be sub-fields of an object field');
    field.multiple = optionalBoolean(raw.multiple, `${at}.multiple`, add);
    field.acceptedTypes = readAcceptedTypes(raw.acceptedTypes, `${at}.acceptedTypes`, add);
  } else {
    if (raw.multiple != null) add(`${at}.multiple`, 'is only allowed on media fields');
    if (raw.acceptedTypes != null) add(`${at}.acceptedTypes`, 'is only allowed on media fields');
  }
  if (type === 'object' && raw.fields != null) {
    field.fields = readFields(raw.fields, `${at}.fields`, reading, depth + 1);
  } else if (raw.fields != null) {
    add(`${at}.fields`, 'sub-fields are only allowed on object fields');
  }
  return field;
}

/** A media field's `acceptedTypes`: absent or null is all kinds (`[]`); each kind once. */
function readAcceptedTypes(raw: unknown, at: string, add: Add): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    add(at, `must be an array of ${ACCEPTED_ASSET_TYPES.join(', ')} (empty: all)`);
    return [];
  }
  const kinds: string[] = [];
  raw.forEach((kind: unknown, index) => {
    if (typeof kind !== 'string' || !(ACCEPTED_ASSET_TYPES as readonly string[]).includes(kind)) {
      const shown = typeof kind === 'string' ? `"${kind}"` : JSON.stringify(kind);
      add(
        `${at}[${index}]`,
        `unknown kind ${shown}${suggest(kind, ACCEPTED_ASSET_TYPES)}; one of ${ACCEPTED_ASSET_TYPES.join(', ')}`,
      );
    } else if (kinds.includes(kind)) {
      add(`${at}[${index}]`, `"${kind}" is given twice`);
    } else {
      kinds.push(kind);
    }
  });
  return kinds;
}

function readProduct(raw: unknown, at: string, fields: ReadonlyMap<string, SchemaField>, add: Add): ProductSettings | null {
  if (raw === undefined || raw === null) return null;
  if (!isPlainObject(raw)) {
    add(at, 'must be an object { "enabled": true, "skuField": "...", "priceField": "..." } or null');
    return null;
  }
  unknownKeys(raw, PRODUCT_KEYS, at, add);
  if (typeof raw.enabled !== 'boolean') add(`${at}.enabled`, 'must be a boolean');
  const skuField = optionalString(raw.skuField, `${at}.skuField`, Infinity, add, false);
  const priceField = optionalString(raw.priceField, `${at}.priceField`, Infinity, add, false);
  if (raw.enabled === true && skuField === null) add(`${at}.skuField`, 'is required when product.enabled is true');
  if (skuField !== null && fields.get(skuField)?.type !== 'text') {
    add(`${at}.skuField`, `must be the key of a text field${suggest(skuField, fields.keys())}`);
  }
  if (priceField !== null && fields.get(priceField)?.type !== 'number') {
    add(`${at}.priceField`, `must be the key of a number field${suggest(priceField, fields.keys())}`);
  }
  return { enabled: raw.enabled === true, skuField, priceField };
}

function optionalString(value: unknown, at: string, maxLength: number, add: Add, emptyIsNull: boolean): string | null {
  if (value === undefined || value === null || (emptyIsNull && value === '')) return null;
  if (typeof value !== 'string') {
    add(at, 'must be a string or null');
    return null;
  }
  if (value.length > maxLength) add(at, `must be at most ${maxLength} characters`);
  return value;
}

function optionalBoolean(value: unknown, at: string, add: Add): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') add(at, 'must be true or false');
  return value === true;
}

function unknownKeys(raw: Record<string, unknown>, known: readonly string[], at: string, add: Add): void {
  for (const key of Object.keys(raw)) {
    if (!known.includes(key)) add(`${at}.${key}`, `unknown property${suggest(key, known)}; known: ${known.join(', ')}`);
  }
}
