// Rows as both databases return them, and their mapping to domain objects: one place for both dialects.
// SQLite hands back JSON as text and times as numbers; PostgreSQL parses JSON and returns bigint as strings.
import { ServiceError, SKU_EXISTS } from '../domain/errors.js';
import {
  skuFieldOf,
  type DeliveryAccess,
  type FieldDefinition,
  type ModelDefinition,
  type ProductSettings,
  type RecordData,
} from '../domain/fields.js';
import type { RecordSort } from '../domain/listing.js';
import type { Role } from '../domain/roles.js';
import type { StoredRecord, TokenRecord, Workspace } from './store.js';

type Json<T> = T | string;
type Millis = number | string;

export function fromJson<T>(value: Json<T>): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

export function isoTime(ms: Millis): string {
  return new Date(Number(ms)).toISOString();
}

export function isoTimeOrNull(ms: Millis | null): string | null {
  return ms === null ? null : isoTime(ms);
}

export interface RecordRow {
  id: string;
  model_id: string;
  workspace_id: string;
  data: Json<RecordData>;
  created_at: Millis;
  updated_at: Millis;
  created_by: string | null;
  updated_by: string | null;
}

export function toRecord(row: RecordRow): StoredRecord {
  return {
    id: row.id,
    modelId: row.model_id,
    workspaceId: row.workspace_id,
    data: fromJson(row.data),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    createdBy: row.created_by,
    updatedBy: row.updated_by,
  };
}

/** Every sort ends on the id, so pages never overlap or skip records with equal times. */
export const ORDER_BY: Record<RecordSort, string> = {
  createdAt_asc: 'created_at ASC, id ASC',
  createdAt_desc: 'created_at DESC, id DESC',
  updatedAt_asc: 'updated_at ASC, id ASC',
  updatedAt_desc: 'updated_at DESC, id DESC',
};

/** `(created_at, id) > (a, b)`: the rows after a cursor in the sort's order, as an index range scan. */
export function afterCursor(sort: RecordSort, timeParameter: string, idParameter: string): string {
  const column = sort.startsWith('createdAt') ? 'created_at' : 'updated_at';
  const comparison = sort.endsWith('_asc') ? '>' : '<';
  return `(${column}, id) ${comparison} (${timeParameter}, ${idParameter})`;
}

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
    fields: fromJson(row.fields),
    product: row.product === null ? null : fromJson(row.product),
    deliveryAccess: row.delivery_access as DeliveryAccess,
    recordCount: Number(row.record_count),
    writeVersion: Number(row.write_version),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

export interface TokenRow {
  id: string;
  workspace_id: string;
  user_id: string;
  role: Role | null;
  expires_at: Millis | null;
  revoked_at: Millis | null;
  write_budget: number | string | null;
}

export const TOKEN_SELECT = `SELECT t.id, t.workspace_id, t.user_id, m.role, t.expires_at, t.revoked_at, w.write_budget
  FROM api_tokens t
  JOIN workspaces w ON w.id = t.workspace_id
  LEFT JOIN memberships m ON m.workspace_id = t.workspace_id AND m.user_id = t.user_id`;

export function toTokenRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    userId: row.user_id,
    role: row.role,
    expiresAt: isoTimeOrNull(row.expires_at),
    revokedAt: isoTimeOrNull(row.revoked_at),
    writeBudget: row.write_budget === null ? null : Number(row.write_budget),
  };
}

export interface WorkspaceRow {
  id: string;
  slug: string;
  org_id: string;
  org_slug: string;
  write_budget: number | null;
}

export const WORKSPACE_SELECT = `SELECT w.id, w.slug, w.org_id, o.slug AS org_slug, w.write_budget
  FROM workspaces w JOIN organisations o ON o.id = w.org_id`;

export function toWorkspace(row: WorkspaceRow): Workspace {
  return { id: row.id, slug: row.slug, orgId: row.org_id, orgSlug: row.org_slug, writeBudget: row.write_budget };
}

/** The refusal of a SKU that another record of the model holds, naming the model's SKU field. */
export function skuConflict(model: { product: ProductSettings | null }): ServiceError {
  const field = skuFieldOf(model) ?? 'sku';
  return new ServiceError('CONFLICT', `${field}: ${SKU_EXISTS}`, { field });
}
