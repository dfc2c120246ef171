// What `content-service schema diff` shows and `schema apply` does: the changes from the models of a workspace to
// those of a schema file, one line each, and the steps that make them (creates in relation order, updates, deletes).
import { isDeepStrictEqual } from 'node:util';
import type { SchemaDocument, SchemaField, SchemaModel } from './schema-document.js';

export interface CurrentModel {
  id: string;
  recordCount: number;
  model: SchemaModel;
}

export interface SchemaPlan {
  /** New models, a model before those whose relations point at it (cycles broken, see `laterTargets`). */
  creates: SchemaModel[];
  updates: { id: string; before: SchemaModel; after: SchemaModel }[];
  /** Models of the workspace that are not in the file (deleted only with --prune). */
  deletes: CurrentModel[];
  /** One line per change, in the order of the file's models, then the deleted ones. */
  lines: string[];
}

export function planSchema(current: readonly CurrentModel[], document: SchemaDocument, prune: boolean): SchemaPlan {
  const bySlug = new Map(current.map((entry) => [entry.model.slug, entry]));
  const wanted = new Set(document.models.map((model) => model.slug));
  const creates: SchemaModel[] = [];
  const updates: SchemaPlan['updates'] = [];
  const lines: string[] = [];
  for (const model of document.models) {
    const existing = bySlug.get(model.slug);
    if (!existing) {
      creates.push(model);
      lines.push(`+ model ${model.slug}: ${JSON.stringify(model.name)}, ${describeFields(model.fields)}`);
      continue;
    }
    if (isDeepStrictEqual(existing.model, model)) continue;
    updates.push({ id: existing.id, before: existing.model, after: model });
    lines.push(...modelChanges(existing.model, model));
  }
  const deletes = prune ? current.filter((entry) => !wanted.has(entry.model.slug)) : [];
  for (const entry of deletes) {
    const records = entry.recordCount > 0 ? ` (${entry.recordCount} records)` : '';
    lines.push(`- model ${entry.model.slug}${records}`);
  }
  return { creates: relationOrder(creates), updates, deletes, lines };
}

/** Models of the workspace that the file does not name (what --prune would delete). */
export function modelsOnlyInWorkspace(current: readonly CurrentModel[], document: SchemaDocument): string[] {
  const wanted = new Set(document.models.map((model) => model.slug));
  return current.filter((entry) => !wanted.has(entry.model.slug)).map((entry) => entry.model.slug);
}

function describeFields(fields: readonly SchemaField[]): string {
  return `${fields.length} field${fields.length === 1 ? '' : 's'} (${fields.map((field) => `${field.key}:${fieldKind(field)}`).join(', ')})`;
}

function fieldKind(field: SchemaField): string {
  if (field.type === 'relation') return `${field.relationType === 'hasMany' ? 'hasMany' : 'hasOne'} ${field.relationTo}`;
  if (field.type === 'media') {
    const settings = [...(field.acceptedTypes ?? []), ...(field.multiple ? ['multiple'] : [])];
    return settings.length > 0 ? `media (${settings.join(', ')})` : 'media';
  }
  return field.type;
}

const MODEL_PROPERTIES = ['name', 'description', 'icon', 'color', 'displayField', 'deliveryAccess', 'drafts', 'product'] as const;
const FIELD_PROPERTIES = [
  'label',
  'type',
  'required',
  'indexed',
  'relationTo',
  'relationType',
  'multiple',
  'acceptedTypes',
] as const;

function modelChanges(before: SchemaModel, after: SchemaModel): string[] {
  const lines: string[] = [];
  const changed = MODEL_PROPERTIES.filter((property) => !isDeepStrictEqual(before[property], after[property])).map(
    (property) =>
      `${property} ${show(before[property])} → ${show(after[property])}${property === 'drafts' ? draftsNote(after.drafts) : ''}`,
  );
  if (changed.length > 0) lines.push(`~ model ${after.slug}: ${changed.join(', ')}`);
  lines.push(...fieldChanges(after.slug, before.fields, after.fields));
  return lines;
}

/** What turning drafts on or off does to the records, said where the diff shows it. */
function draftsNote(on: boolean): string {
  return on ? ' (publishes every record as it is)' : ' (every write live again; refused while a record is not published)';
}

function fieldChanges(path: string, before: readonly SchemaField[], after: readonly SchemaField[]): string[] {
  const lines: string[] = [];
  const old = new Map(before.map((field) => [field.key, field]));
  const now = new Map(after.map((field) => [field.key, field]));
  for (const field of after) {
    const previous = old.get(field.key);
    if (!previous) {
      lines.push(`+ field ${path}.${field.key}: ${fieldKind(field)}${field.required ? ', required' : ''}`);
      continue;
    }
    const changed = FIELD_PROPERTIES.filter((property) => !isDeepStrictEqual(previous[property], field[property])).map(
      (property) => `${property} ${show(previous[property])} → ${show(field[property])}`,
    );
    if (previous.type === 'object' && field.type === 'object') {
      if ((previous.fields === undefined) !== (field.fields === undefined)) {
        changed.push(field.fields ? 'sub-fields defined' : 'sub-fields no longer defined (any object)');
      }
    } else if (!isDeepStrictEqual(previous.fields, field.fields)) {
      changed.push('sub-fields changed');
    }
    if (changed.length > 0) lines.push(`~ field ${path}.${field.key}: ${changed.join(', ')}`);
    if (previous.type === 'object' && field.type === 'object' && previous.fields && field.fields) {
      lines.push(...fieldChanges(`${path}.${field.key}`, previous.fields, field.fields));
    }
  }
  for (const field of before) {
    if (!now.has(field.key)) lines.push(`- field ${path}.${field.key}: ${fieldKind(field)}`);
  }
  const kept = after.filter((field) => old.has(field.key)).map((field) => field.key);
  const keptBefore = before.filter((field) => now.has(field.key)).map((field) => field.key);
  if (!isDeepStrictEqual(kept, keptBefore))
    lines.push(`~ fields of ${path}: order ${keptBefore.join(', ')} → ${kept.join(', ')}`);
  return lines;
}

function show(value: unknown): string {
  return value === undefined ? 'none' : JSON.stringify(value);
}

/** The slugs of the models that a model's relation fields (sub-fields included) point at. */
export function relationTargets(fields: readonly SchemaField[], into = new Set<string>()): Set<string> {
  for (const field of fields) {
    if (field.type === 'relation' && field.relationTo) into.add(field.relationTo.slice('model:'.length));
    if (field.fields) relationTargets(field.fields, into);
  }
  return into;
}

/**
 * The new models, each after the new models it points at, where it can be: depth first, by slug. In a cycle one
 * model comes before a model it points at; apply creates it with that relation pointing at itself, then updates it.
 */
function relationOrder(models: readonly SchemaModel[]): SchemaModel[] {
  const bySlug = new Map(models.map((model) => [model.slug, model]));
  const order: SchemaModel[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (model: SchemaModel) => {
    if (state.has(model.slug)) return;
    state.set(model.slug, 'visiting');
    for (const target of [...relationTargets(model.fields)].sort()) {
      const next = bySlug.get(target);
      if (next) visit(next);
    }
    state.set(model.slug, 'done');
    order.push(model);
  };
  for (const model of models) visit(model);
  return order;
}

/**
 * The fields with every relation to a model outside `existing` pointing at `self` instead (a target that always
 * exists), and whether there was one: how a model of a cycle is created before the model it points at.
 */
export function pointingAtSelf(
  fields: readonly SchemaField[],
  existing: ReadonlySet<string>,
  self: string,
): { fields: SchemaField[]; changed: boolean } {
  let changed = false;
  const result = fields.map((field) => {
    let copy = field;
    if (field.type === 'relation' && field.relationTo && !existing.has(field.relationTo.slice('model:'.length))) {
      copy = { ...field, relationTo: `model:${self}` };
      changed = true;
    }
    if (field.fields) {
      const inner = pointingAtSelf(field.fields, existing, self);
      if (inner.changed) {
        copy = { ...copy, fields: inner.fields };
        changed = true;
      }
    }
    return copy;
  });
  return { fields: result, changed };
}

/**
 * For the dry run of an update of a model that exists: a relation field whose target is still to be created is
 * checked as a field of another type than the stored one. The server's checks then answer as they will for the real
 * update: the field is new (only `required` is checked) or its kind changes (its stored values are counted), since
 * a stored relation cannot already point at a model that does not exist.
 */
export function withoutMissingTargets(
  fields: readonly SchemaField[],
  stored: readonly SchemaField[] | undefined,
  existing: ReadonlySet<string>,
): SchemaField[] {
  const storedByKey = new Map((stored ?? []).map((field) => [field.key, field]));
  return fields.map((field) => {
    const old = storedByKey.get(field.key);
    if (field.type === 'relation' && field.relationTo && !existing.has(field.relationTo.slice('model:'.length))) {
      return {
        key: field.key,
        label: field.label,
        type: old?.type === 'text' ? 'number' : 'text',
        required: field.required,
        indexed: field.indexed,
      };
    }
    if (field.fields) return { ...field, fields: withoutMissingTargets(field.fields, old?.fields, existing) };
    return field;
  });
}
