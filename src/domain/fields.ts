import type { FieldType, RelationType } from '../shared/field-types.js';

export interface FieldDefinition {
  key: string;
  label: string;
  type: FieldType;
  required: boolean;
  /** `model:<slug>` for relation fields. */
  relationTo?: string | null;
  relationType?: RelationType | null;
  /** Sub-fields of an `object` field. */
  fields?: FieldDefinition[] | null;
  /** Filters and sorts on the field are served by a database index (present only when true). */
  indexed?: boolean;
  /** A `media` field: an array of asset ids (true) or one asset id (false, the default). */
  multiple?: boolean;
  /** A `media` field: the asset kinds it accepts (`image`, `video`, `audio`, `document`); empty or absent: all. */
  acceptedTypes?: string[] | null;
}

export interface ProductSettings {
  enabled: boolean;
  skuField: string | null;
  priceField: string | null;
}

export type DeliveryAccess = 'public' | 'none';

/** The parts of a model a user defines; ids, counts and dates are the store's. */
export interface ModelShape {
  name: string;
  slug: string;
  description: string | null;
  /** How the model is shown in lists (an icon name or an emoji, at most 64 characters); null: none. */
  icon: string | null;
  /** A CSS hex colour (`#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`); null: none. */
  color: string | null;
  displayField: string;
  fields: FieldDefinition[];
  product: ProductSettings | null;
  deliveryAccess: DeliveryAccess;
  /** Records have a working copy and at most one published copy, which the delivery route serves (lifecycle.md). */
  drafts?: boolean;
}

export interface ModelDefinition extends ModelShape {
  id: string;
  workspaceId: string;
  drafts: boolean;
  recordCount: number;
  /** How many of its records have a published copy (a model with drafts; 0 otherwise). */
  publishedCount: number;
  /** Counts the inserts and deletes of records: equal versions mean the creation order has not changed. */
  writeVersion: number;
  /** Some record of the model was once stored with data over LARGE_RECORD_CHARS: its pages are read with a size bound. */
  hasLargeRecords: boolean;
  createdAt: string;
  updatedAt: string;
}

export type RecordData = Record<string, unknown>;

/**
 * The version of a model's definition: its `updatedAt` in epoch milliseconds. Only a model update changes it, and
 * always moves it forward (by 1 ms at least), so two reads with one version saw one definition.
 */
export function definitionVersion(model: Pick<ModelDefinition, 'updatedAt'>): number {
  return Date.parse(model.updatedAt);
}

/** The SKU field key of a product model, or null when the model is not a product catalog. */
export function skuFieldOf(model: Pick<ModelDefinition, 'product'>): string | null {
  return model.product?.enabled ? model.product.skuField : null;
}

export function relationTargetSlug(field: FieldDefinition): string | null {
  if (field.type !== 'relation' || !field.relationTo) return null;
  return field.relationTo.slice('model:'.length);
}

export const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
