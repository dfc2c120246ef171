// Model rows and the model definitions made from them.
import type { DeliveryAccess, FieldDefinition, ModelDefinition, ProductSettings } from '../../domain/fields.js';
import { sharedJson, type Json } from './json.js';
import { isoTime, type Millis } from './time.js';

export interface ModelRow {
  id: string;
  workspace_id: string;
  slug: string;
  name: string;
  description: string | null;
  display_field: string;
  fields: Json<FieldDefinition[]>;
  product: Json<ProductSettings> | null;
  delivery_access: string;
  record_count: number | string;
  write_version: number | string;
  has_large_records: number | boolean;
  created_at: Millis;
  updated_at: Millis;
}

export function toModel(row: ModelRow): ModelDefinition {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    displayField: row.display_field,
    fields: sharedJson(row.fields),
    product: row.product === null ? null : sharedJson(row.product),
    deliveryAccess: row.delivery_access as DeliveryAccess,
    recordCount: Number(row.record_count),
    writeVersion: Number(row.write_version),
    hasLargeRecords: Boolean(row.has_large_records),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}
