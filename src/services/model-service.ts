import { isDeepStrictEqual } from 'node:util';
import { ServiceError } from '../domain/errors.js';
import { slugConflict } from '../store/conflicts.js';
import { skuFieldOf, type FieldDefinition, type ModelDefinition } from '../domain/fields.js';
import { normaliseModelShape, type ModelDefinitionInput, type ModelShape } from '../domain/model-definition.js';
import { modelsReferencing } from '../domain/relations.js';
import { draftsStillInUse } from '../domain/drafts.js';
import { newId } from '../ids.js';
import type { ModelChange, Store, StoredValueCheck } from '../store/store.js';
import { storedValueConflict } from '../store/stored-value-checks.js';
import type { Actor } from './actor.js';
import { checkedAgain } from './checked-again.js';

export interface UpdateModelInput extends ModelDefinitionInput {
  id: string;
}

export interface WriteOptions {
  /** Check only: store nothing. */
  dryRun?: boolean;
}

export class ModelService {
  constructor(private readonly store: Store) {}

  list(workspaceId: string): Promise<ModelDefinition[]> {
    return this.store.models.list(workspaceId);
  }

  get(workspaceId: string, id: string): Promise<ModelDefinition | null> {
    return this.store.models.get(workspaceId, id);
  }

  getBySlug(workspaceId: string, slug: string): Promise<ModelDefinition | null> {
    return this.store.models.getBySlug(workspaceId, slug);
  }

  /** With `dryRun`, checks as a create would and returns the model it would make, storing nothing. */
  async create(actor: Actor, input: ModelDefinitionInput, options: WriteOptions = {}): Promise<ModelDefinition> {
    const slugs = await this.slugs(actor.workspaceId);
    const shape = normaliseModelShape(input, slugs);
    if (options.dryRun) {
      if (slugs.has(shape.slug)) throw slugConflict();
      return unstoredModel(actor.workspaceId, shape);
    }
    return this.store.models.create(actor.workspaceId, newId(), shape);
  }

  /**
   * With `dryRun`, makes every check of an update (the stored records' included) and returns the model as it would
   * be, storing nothing. One check is the store's alone and not made then: stored records that would repeat a value
   * of a new product SKU field. The stored records are checked by the store in the update's transaction (a dry run
   * checks them without it); a definition changed since it was read here is read and planned again.
   */
  async update(actor: Actor, input: UpdateModelInput, options: WriteOptions = {}): Promise<ModelDefinition> {
    return checkedAgain(async () => {
      const model = await this.requireModel(actor.workspaceId, input.id);
      const given = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
      delete given.id;
      if ('slug' in given) {
        throw new ServiceError('BAD_USER_INPUT', 'slug: cannot be changed', { field: 'slug' });
      }
      const shape = normaliseModelShape(
        { ...currentShape(model), ...given, slug: model.slug },
        await this.slugs(actor.workspaceId),
      );
      const change = planChange(model, shape);
      if (!options.dryRun) return this.store.models.update(model, change);
      await this.refuseStoredValues(model, change.storedValueChecks ?? []);
      if (change.drafts === 'off') await this.refuseUnpublished(model);
      return { ...model, ...shape };
    });
  }

  /** The store refuses (ChecksOutdated) a model that holds records or is referred to when it deletes it: checked again. */
  delete(actor: Actor, id: string): Promise<{ id: string; deleted: boolean }> {
    return checkedAgain(() => this.deleteChecked(actor, id));
  }

  private async deleteChecked(actor: Actor, id: string): Promise<{ id: string; deleted: boolean }> {
    const model = await this.requireModel(actor.workspaceId, id);
    if (model.recordCount > 0) {
      throw new ServiceError('CONFLICT', `id: model "${model.slug}" still has ${model.recordCount} records; delete them first`, {
        field: 'id',
      });
    }
    const referencing = modelsReferencing(await this.store.models.list(actor.workspaceId), model.slug);
    if (referencing.length > 0) {
      throw new ServiceError(
        'CONFLICT',
        `id: model "${model.slug}" is the relation target of model ${referencing.map((slug) => `"${slug}"`).join(', ')}`,
        { field: 'id' },
      );
    }
    if (!(await this.store.models.delete(actor.workspaceId, id)))
      throw new ServiceError('NOT_FOUND', 'id: model not found', { field: 'id' });
    return { id, deleted: true };
  }

  /** A dry run's check that drafts may be turned off, as the store makes it in an update's transaction. */
  private async refuseUnpublished(model: ModelDefinition): Promise<void> {
    const unpublished = await this.store.records.count(model.id, {
      kind: 'in',
      target: { kind: 'status' },
      values: ['draft', 'changed'],
    });
    if (unpublished > 0) throw draftsStillInUse(unpublished);
  }

  /** A dry run's check of the stored records, as the store makes it in an update's transaction. */
  private async refuseStoredValues(model: ModelDefinition, checks: StoredValueCheck[]): Promise<void> {
    if (model.recordCount === 0) return;
    for (const check of checks) {
      const withValue = await this.store.models.countRecordsWithValue(model.id, check.fieldKey);
      const conflict = storedValueConflict(check, model.recordCount, withValue);
      if (conflict) throw conflict;
    }
  }

  private async requireModel(workspaceId: string, id: string): Promise<ModelDefinition> {
    const model = await this.store.models.get(workspaceId, id);
    if (!model) throw new ServiceError('NOT_FOUND', 'id: model not found', { field: 'id' });
    return model;
  }

  private async slugs(workspaceId: string): Promise<Set<string>> {
    return new Set((await this.store.models.list(workspaceId)).map((model) => model.slug));
  }
}

/** What the store must rewrite for the change, and what the stored records must allow for it. */
function planChange(model: ModelDefinition, shape: ModelShape): ModelChange {
  const before = new Map(model.fields.map((field) => [field.key, field]));
  const after = new Map(shape.fields.map((field) => [field.key, field]));
  const oldSku = skuFieldOf(model);
  const newSku = shape.product?.enabled ? shape.product.skuField : null;
  return {
    shape,
    removedFieldKeys: [...before.keys()].filter((key) => !after.has(key)),
    skuFieldChanged: oldSku === newSku ? null : { skuField: newSku },
    drafts: model.drafts === (shape.drafts === true) ? null : shape.drafts ? 'on' : 'off',
    storedValueChecks: shape.fields.flatMap((field) => storedValueChecks(before.get(field.key), field)),
  };
}

/** A field whose type or settings change must have no stored values; one that becomes required, a value in every record. */
function storedValueChecks(old: FieldDefinition | undefined, field: FieldDefinition): StoredValueCheck[] {
  const checks: StoredValueCheck[] = [];
  const changedKind =
    old !== undefined &&
    (old.type !== field.type ||
      (old.relationTo ?? null) !== (field.relationTo ?? null) ||
      (old.relationType ?? null) !== (field.relationType ?? null) ||
      !isDeepStrictEqual(storedShape(old.fields), storedShape(field.fields)));
  if (changedKind) checks.push({ fieldKey: field.key, expect: 'no-values' });
  if (field.required && !old?.required) checks.push({ fieldKey: field.key, expect: 'all-values' });
  return checks;
}

/** Sub-fields as they shape stored values: whether a field is indexed changes nothing stored. */
function storedShape(fields: FieldDefinition[] | null | undefined): unknown {
  return (
    (fields ?? null)?.map(({ indexed: _indexed, fields: inner, ...rest }) => ({ ...rest, fields: storedShape(inner) })) ?? null
  );
}

/** The model a create would make, as a dry run answers it: a fresh id that is not kept, no records. */
function unstoredModel(workspaceId: string, shape: ModelShape): ModelDefinition {
  const now = new Date().toISOString();
  return {
    ...shape,
    drafts: shape.drafts === true,
    id: newId(),
    workspaceId,
    recordCount: 0,
    publishedCount: 0,
    writeVersion: 0,
    hasLargeRecords: false,
    createdAt: now,
    updatedAt: now,
  };
}

function currentShape(model: ModelDefinition): ModelShape {
  const { name, slug, description, icon, color, displayField, fields, product, deliveryAccess, drafts } = model;
  return { name, slug, description, icon, color, displayField, fields, product, deliveryAccess, drafts };
}
