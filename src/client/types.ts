// Types of the admin API as CONTRACT.md describes it (the public schema of the hosted service).
// Also compiled into the admin web application (tsconfig.admin-ui.json): types only, nothing Node-only.
import type { FieldType as KnownFieldType } from '../shared/field-types.js';

export type JsonObject = Record<string, unknown>;

/** The field types this version knows. */
export type { KnownFieldType };

/** A newer server may have more: the SDK passes an unknown type through. */
export type FieldType = KnownFieldType | (string & {});

/** `Type` narrows the field types: the admin application takes `KnownFieldType`, it offers only those. */
export interface FieldDefinition<Type extends string = FieldType> {
  key: string;
  label: string;
  type: Type;
  required: boolean;
  relationTo?: string | null;
  relationType?: 'hasOne' | 'hasMany' | null;
  fields?: FieldDefinition<Type>[] | null;
  /** Filters and sorts on the field are served by a database index. */
  indexed?: boolean;
}

export interface FieldDefinitionInput {
  key: string;
  label?: string;
  type: FieldType;
  required?: boolean;
  relationTo?: string;
  relationType?: 'hasOne' | 'hasMany';
  fields?: FieldDefinitionInput[];
  indexed?: boolean;
}

export interface ProductSettings {
  enabled: boolean;
  skuField: string | null;
  priceField: string | null;
}

export interface ModelDefinition {
  id: string;
  workspaceId: string;
  name: string;
  slug: string;
  description: string | null;
  displayField: string;
  fields: FieldDefinition[];
  product: ProductSettings | null;
  deliveryAccess: string;
  recordCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface CreateModelInput {
  name: string;
  slug: string;
  displayField?: string;
  description?: string;
  fields: FieldDefinitionInput[];
  product?: { enabled: boolean; skuField?: string; priceField?: string };
  deliveryAccess?: 'public' | 'none';
}

export interface UpdateModelInput extends Partial<Omit<CreateModelInput, 'slug'>> {
  id: string;
}

export interface ModelRecord {
  id: string;
  modelId: string;
  workspaceId: string;
  data: JsonObject;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
  updatedBy: string | null;
}

export interface RecordList {
  total: number;
  hasMore: boolean;
  items: ModelRecord[];
}

export type RecordSort = 'createdAt_asc' | 'createdAt_desc' | 'updatedAt_asc' | 'updatedAt_desc';

export interface ListOptions {
  limit?: number;
  offset?: number;
  sort?: RecordSort;
  signal?: AbortSignal;
}

export interface ImportCallResult {
  importedCount: number;
  /** `row` is 1-based within the rows of this one call. */
  errors: { row: number; message: string }[];
}

export interface DeletionResult {
  id: string;
  deleted: boolean;
}

/** What `onWait` is told each time the client waits for the write budget (HTTP 429). */
export interface WaitInfo {
  /** `Retry-After` of the answer, in seconds. */
  retryAfterSeconds: number;
  /** How long the client waits (Retry-After plus jitter), in milliseconds. */
  waitMs: number;
  /** When the wait ends (epoch ms). */
  until: number;
  /** Name of the GraphQL operation that waits (`importRecords`, `patchRecord`, …). */
  operation: string;
  /** The how-many-th 429 of this request. */
  attempt: number;
}

/** A row the server (or the client, before sending) refused. */
export interface RowError<T = JsonObject> {
  /** 1-based position of the row in the caller's input. */
  row: number;
  message: string;
  /** The field named by the message, when there is one. */
  field: string | undefined;
  /** `extensions.code`-like reason: `BAD_USER_INPUT` for a server row error, or the code of the failure. */
  code: string;
  /** The caller's item. */
  item: T;
}
