import { fieldError, ServiceError, type FieldIssue } from '../domain/errors.js';
import { skuFieldOf, type ModelDefinition, type RecordData } from '../domain/fields.js';
import { checkRecordData, type AssetReference, type DataCheck, type RelationReference } from '../domain/record-data.js';
import { acceptsAssetType, expectedKinds } from '../domain/media-field.js';
import { sizeIssues, type RecordSizeLimits } from '../domain/size-limits.js';
import type { NewRecord, RecordLink, ReplacementData, Store } from '../store/store.js';
import { newId } from '../ids.js';

/** Checked data ready to store, or the issues that refuse it. */
export interface PreparedData {
  issues: FieldIssue[];
  replacement: ReplacementData;
  references: RelationReference[];
  /** The asset ids of its media fields, checked against the workspace's assets with its references. */
  assets: AssetReference[];
}

/**
 * Checks data against the model and, when it passes and `limits` are given, serialises it once and measures it.
 * `limits` null: a preview that is not stored (its size is measured when the data is prepared to be written).
 */
export function prepareData(model: ModelDefinition, data: unknown, limits: RecordSizeLimits | null): PreparedData {
  const check: DataCheck = checkRecordData(model.fields, data);
  const skuField = skuFieldOf(model);
  const sku = skuField !== null && typeof check.data[skuField] === 'string' ? check.data[skuField] : null;
  // Data refused already is not stored, so not measured (it may nest too deeply to serialise).
  const measured = check.issues.length === 0 && limits !== null;
  const dataText = measured ? JSON.stringify(check.data) : '';
  return {
    issues: measured ? sizeIssues(check.data, dataText, limits) : check.issues,
    references: check.references,
    assets: check.assets,
    replacement: {
      data: check.data,
      dataText,
      sku,
      links: linksOf(check),
    },
  };
}

/** The links of a record without relations, shared (never changed: the stores only read a record's links). */
const NO_LINKS: RecordLink[] = [];

/** A record's links: to the records its relation fields hold and the assets its media fields hold. */
function linksOf(check: DataCheck): RecordLink[] {
  if (check.references.length === 0 && check.assets.length === 0) return NO_LINKS;
  return [
    ...check.references.map((reference) => ({ fieldKey: reference.fieldKey, targetId: reference.targetId })),
    ...check.assets.map((asset) => ({ fieldKey: asset.field.key, targetId: asset.assetId })),
  ];
}

/** Adds an issue for every relation id that is not a record of its target model. One query per target model. */
export async function checkReferences(store: Store, workspaceId: string, prepared: PreparedData[]): Promise<void> {
  await checkAssets(store, workspaceId, prepared);
  const idsBySlug = new Map<string, Set<string>>();
  for (const item of prepared) {
    for (const reference of item.references) {
      const ids = idsBySlug.get(reference.targetSlug) ?? new Set<string>();
      ids.add(reference.targetId);
      idsBySlug.set(reference.targetSlug, ids);
    }
  }
  const existing = new Map<string, Set<string>>();
  for (const [slug, ids] of idsBySlug) {
    const target = await store.models.getBySlug(workspaceId, slug);
    existing.set(slug, target ? await store.records.existingIds(target.id, [...ids]) : new Set());
  }
  for (const item of prepared) {
    for (const reference of item.references) {
      if (!existing.get(reference.targetSlug)?.has(reference.targetId)) {
        item.issues.push({
          path: reference.path,
          reason: `no record with id "${reference.targetId}" in model "${reference.targetSlug}"`,
        });
      }
    }
  }
}

/** Adds an issue for every media field value that is not an asset of the workspace of a kind the field takes. */
async function checkAssets(store: Store, workspaceId: string, prepared: PreparedData[]): Promise<void> {
  const ids = new Set<string>();
  for (const item of prepared) for (const asset of item.assets) ids.add(asset.assetId);
  if (ids.size === 0) return;
  const found = await store.assets.getMany(workspaceId, [...ids]);
  for (const item of prepared) {
    for (const { path, field, assetId } of item.assets) {
      const asset = found.get(assetId);
      if (!asset) item.issues.push({ path, reason: 'asset not found' });
      else if (!acceptsAssetType(field, asset.type)) item.issues.push({ path, reason: expectedKinds(field) });
    }
  }
}

export function throwFirstIssue(prepared: PreparedData): void {
  const first = prepared.issues[0];
  if (first) throw fieldError(first);
}

export function toNewRecord(prepared: PreparedData): NewRecord {
  const { data, dataText, sku, links } = prepared.replacement;
  return { id: newId(), data, dataText, sku, links };
}

export function requireDataObject(data: unknown): asserts data is RecordData {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ServiceError('BAD_USER_INPUT', 'data: must be a JSON object keyed by field key', { field: 'data' });
  }
}
