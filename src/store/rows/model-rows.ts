// Model rows and the model definitions made from them, and the columns a model's shape is stored in.
import type { DeliveryAccess, FieldDefinition, ModelDefinition, ProductSettings } from '../../domain/fields.js';
import type { ModelShape } from '../../domain/model-definition.js';
import { sharedJson, type Json } from './json.js';
import { isoTime, type Millis } from './time.js';

export interface ModelRow {
  id: string;
  workspace_id: string;
  slug: string;
  name: string;
  description: string | null;
  icon: string | null;
  color: string | null;
  display_field: string;
  fields: Json<FieldDefinition[]>;
  product: Json<ProductSettings> | null;
  delivery_access: string;
  drafts: number | boolean;
  published_count: number | string;
  record_count: number | string;
  write_version: number | string;
  has_large_records: number | boolean;
  created_at: Millis;
  updated_at: Millis;
}

/** Every column of ModelRow, for queries that name them (adding a column to ModelRow without listing it here fails the typecheck). */
export const MODEL_COLUMNS = [
  'id',
  'workspace_id',
  'slug',
  'name',
  'description',
  'icon',
  'color',
  'display_field',
  'fields',
  'product',
  'delivery_access',
  'drafts',
  'published_count',
  'record_count',
  'write_version',
  'has_large_records',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ModelRow)[];
const everyModelColumn: Exclude<keyof ModelRow, (typeof MODEL_COLUMNS)[number]> extends never ? true : never = true;
void everyModelColumn;

export function toModel(row: ModelRow): ModelDefinition {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    icon: row.icon,
    color: row.color,
    displayField: row.display_field,
    fields: sharedJson(row.fields),
    product: row.product === null ? null : sharedJson(row.product),
    deliveryAccess: row.delivery_access as DeliveryAccess,
    drafts: Boolean(row.drafts),
    recordCount: Number(row.record_count),
    publishedCount: Number(row.published_count),
    writeVersion: Number(row.write_version),
    hasLargeRecords: Boolean(row.has_large_records),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

/**
 * The `models` columns a shape is stored in: name, description, display_field, fields, product, delivery_access,
 * icon, color, drafts.
 */
export function shapeColumns(
  shape: ModelShape,
): [string, string | null, string, string, string | null, string, string | null, string | null, number] {
  return [
    shape.name,
    shape.description,
    shape.displayField,
    JSON.stringify(shape.fields),
    shape.product === null ? null : JSON.stringify(shape.product),
    shape.deliveryAccess,
    shape.icon,
    shape.color,
    shape.drafts ? 1 : 0,
  ];
}
