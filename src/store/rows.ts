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
import { defineLazyData } from './json-text.js';
import type { ApiTokenInfo, SessionRecord, StoredRecord, TokenRecord, UserWorkspace, Workspace } from './store.js';

type Json<T> = T | string;
type Millis = number | string;

export function fromJson<T>(value: Json<T>): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
const DAY_MS = 86_400_000;
/** 0001-01-01 and 10000-01-01: inside, `toISOString` gives `YYYY-MM-DDTHH:MM:SS.mmmZ`. */
const FIRST_MS = -62_135_596_800_000;
const END_MS = 253_402_300_800_000;
let cachedDay = NaN;
let cachedDayPrefix = '';
let lastMs = NaN;
let lastIso = '';

/**
 * `new Date(ms).toISOString()`, without a Date for every call: a page of records has two times each, and
 * records imported together share them. The date part is made once per day, the time part from integers.
 */
export function isoTime(ms: Millis): string {
  const time = Number(ms);
  if (time === lastMs) return lastIso;
  if (!Number.isInteger(time) || time < FIRST_MS || time >= END_MS) return new Date(time).toISOString();
  const day = Math.floor(time / DAY_MS);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedDayPrefix = new Date(day * DAY_MS).toISOString().slice(0, -13);
  }
  let rest = time - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const iso = `${cachedDayPrefix}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[rest - seconds * 1000]}Z`;
  lastMs = time;
  lastIso = iso;
  return iso;
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

/**
 * A stored record from its row. JSON text (SQLite) is parsed only when `data` is read: an answer that selects
 * `data` writes the text out as it is (see json-text.ts).
 */
export function toRecord(row: RecordRow): StoredRecord {
  if (typeof row.data !== 'string') {
    return {
      id: row.id,
      modelId: row.model_id,
      workspaceId: row.workspace_id,
      data: row.data,
      createdAt: isoTime(row.created_at),
      updatedAt: isoTime(row.updated_at),
      createdBy: row.created_by,
      updatedBy: row.updated_by,
    };
  }
  return recordWithText(row.id, row.model_id, row.workspace_id, row.data, row.created_at, row.updated_at, row.created_by, row.updated_by);
}

/** A record whose `data` is the JSON text, parsed on first read; the keys in the order of StoredRecord. */
export function recordWithText(
  id: string,
  modelId: string,
  workspaceId: string,
  data: string,
  createdAt: Millis,
  updatedAt: Millis,
  createdBy: string | null,
  updatedBy: string | null,
): StoredRecord {
  const record = { id, modelId, workspaceId } as StoredRecord;
  defineLazyData(record, data);
  record.createdAt = isoTime(createdAt);
  record.updatedAt = isoTime(updatedAt);
  record.createdBy = createdBy;
  record.updatedBy = updatedBy;
  return record;
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
  has_large_records: number | boolean;
  created_at: Millis;
  updated_at: Millis;
}

const sharedValues = new Map<string, unknown>();
const SHARED_VALUES = 500;

/**
 * JSON text (a model's fields or product settings, read for every record write and list) parsed once and then
 * shared: the same text gives the same frozen value. Also lets per-field-list caches (record-data.ts) hit.
 * Its strings are the string table's copies: field keys index every record's data (`data[field.key]`), and a
 * key that is not in the table is looked up there on every such read.
 */
function sharedJson<T>(value: Json<T>): T {
  if (typeof value !== 'string') return value;
  let parsed = sharedValues.get(value);
  if (parsed === undefined) {
    parsed = deepFreeze(internaliseStrings(JSON.parse(value)));
    if (sharedValues.size >= SHARED_VALUES) sharedValues.delete(sharedValues.keys().next().value as string);
    sharedValues.set(value, parsed);
  }
  return parsed as T;
}

function internaliseStrings(value: unknown): unknown {
  if (typeof value === 'string') return Object.keys({ [value]: true })[0];
  if (Array.isArray(value)) return value.map(internaliseStrings);
  if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) (value as Record<string, unknown>)[key] = internaliseStrings(inner);
  }
  return value;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
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

export interface TokenInfoRow {
  id: string;
  name: string | null;
  user_id: string;
  email: string;
  role: Role | null;
  created_at: Millis;
  expires_at: Millis | null;
  revoked_at: Millis | null;
}

export const TOKEN_INFO_SELECT = `SELECT t.id, t.name, t.user_id, u.email, m.role, t.created_at, t.expires_at, t.revoked_at
  FROM api_tokens t
  JOIN users u ON u.id = t.user_id
  LEFT JOIN memberships m ON m.workspace_id = t.workspace_id AND m.user_id = t.user_id`;

export function toApiTokenInfo(row: TokenInfoRow): ApiTokenInfo {
  return {
    id: row.id,
    name: row.name,
    userId: row.user_id,
    userEmail: row.email,
    role: row.role,
    createdAt: isoTime(row.created_at),
    expiresAt: isoTimeOrNull(row.expires_at),
    revokedAt: isoTimeOrNull(row.revoked_at),
  };
}

export interface SessionRow {
  id_hash: string;
  user_id: string;
  email: string;
  csrf_token: string;
  created_at: Millis;
  expires_at: Millis;
  last_seen: Millis;
}

export const SESSION_SELECT = `SELECT s.id_hash, s.user_id, u.email, s.csrf_token, s.created_at, s.expires_at, s.last_seen
  FROM sessions s JOIN users u ON u.id = s.user_id`;

export function toSession(row: SessionRow): SessionRecord {
  return {
    idHash: row.id_hash,
    userId: row.user_id,
    email: row.email,
    csrfToken: row.csrf_token,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    lastSeen: Number(row.last_seen),
  };
}

export const USER_WORKSPACES_SELECT = `SELECT w.id, o.slug AS org_slug, w.slug, m.role
  FROM memberships m
  JOIN workspaces w ON w.id = m.workspace_id
  JOIN organisations o ON o.id = w.org_id`;

export function toUserWorkspace(row: { id: string; org_slug: string; slug: string; role: Role }): UserWorkspace {
  return { id: row.id, orgSlug: row.org_slug, slug: row.slug, role: row.role };
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
