// Types of the admin API as CONTRACT.md describes it (the public schema of the hosted service).
// Also compiled into the admin web application (tsconfig.admin-ui.json): types only, nothing Node-only.
import type { RecordStatus } from '../shared/lifecycle.js';
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
  /** A `media` field: an array of asset ids (else one id). */
  multiple?: boolean;
  /** A `media` field: the asset kinds it takes (`image`, `video`, `audio`, `document`); null or empty: all. */
  acceptedTypes?: string[] | null;
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
  /** Media fields only. */
  multiple?: boolean;
  /** Media fields only: `image`, `video`, `audio`, `document`; empty or absent: all. */
  acceptedTypes?: string[];
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
  /** An icon name or an emoji (at most 64 characters). */
  icon: string | null;
  /** A CSS hex colour (`#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`). */
  color: string | null;
  displayField: string;
  fields: FieldDefinition[];
  product: ProductSettings | null;
  deliveryAccess: string;
  /** Records have a working copy and a published copy, which the delivery route serves (docs/lifecycle.md). */
  drafts: boolean;
  recordCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface CreateModelInput {
  name: string;
  slug: string;
  displayField?: string;
  description?: string;
  icon?: string;
  color?: string;
  fields: FieldDefinitionInput[];
  product?: { enabled: boolean; skuField?: string; priceField?: string };
  deliveryAccess?: 'public' | 'none';
  /**
   * Keep working copies apart from published copies (default false). Turning it on publishes every record as it is;
   * turning it off is refused (CONFLICT) while any record is not published.
   */
  drafts?: boolean;
}

export interface UpdateModelInput extends Partial<Omit<CreateModelInput, 'slug'>> {
  id: string;
}

/** `Data` is the type of `data`: a model's interface from `content-service types` on typed reads (`client.model(slug)`). */
export interface ModelRecord<Data = JsonObject> {
  id: string;
  modelId: string;
  workspaceId: string;
  data: Data;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
  updatedBy: string | null;
  /** 1 when created or imported, one more for each change of its data (see recordHistory). */
  revision: number;
  /** `draft`, `published` or `changed`; always `published` for a model without drafts. */
  status: RecordStatus;
  /** The last publish; null when not published (a model without drafts: its last write). */
  publishedAt: string | null;
  /** The revision that is live; null when not published. */
  publishedRevision: number | null;
  /** `status` is `changed`: the working copy differs from the published copy. */
  hasUnpublishedChanges: boolean;
}

/**
 * Where a record of a model with drafts stands: `draft` (never published, or unpublished), `published` (the working
 * copy's data equals the published copy's) or `changed` (published, and the working copy differs).
 */
export type { RecordStatus };

/** What `publishRecords` and `unpublishRecords` answer. */
export interface PublishResult<Data = JsonObject> {
  /** The records after the change (their working copies), in the order of the ids, each once. */
  records: ModelRecord<Data>[];
  /**
   * Ids that the published copies' relation fields point at and that are not published themselves (the delivery
   * route populates them as null): publish them too. Always empty for an unpublish.
   */
  unpublishedTargets: string[];
}

export interface RecordList<Data = JsonObject> {
  total: number;
  hasMore: boolean;
  items: ModelRecord<Data>[];
}

/** The sorts every model has (`createdAt_asc` is the default). */
export type TimestampSort = 'createdAt_asc' | 'createdAt_desc' | 'updatedAt_asc' | 'updatedAt_desc';

/**
 * A sort: a timestamp sort, `<fieldKey>_asc` / `<fieldKey>_desc` for a `text`, `number`, `boolean` or `date` field,
 * or the short forms `price` / `-price` (and `updatedAt` / `-updatedAt`). Ties are broken by id; records missing
 * the field sort last. The server refuses an unknown sort naming the allowed ones.
 */
export type RecordSort = TimestampSort | `${string}_asc` | `${string}_desc` | `-${string}` | (string & {});

/** A value a filter compares with: a number for `number`, an ISO string for `date` and the timestamps, an id string for relations. */
export type FilterValue = string | number | boolean;

/** The operators of one path. `null` with `$eq` / `$ne` means missing / present. */
export interface FilterOperators {
  $eq?: FilterValue | null;
  $ne?: FilterValue | null;
  $gt?: string | number;
  $gte?: string | number;
  $lt?: string | number;
  $lte?: string | number;
  /** At most 1000 values. */
  $in?: readonly FilterValue[];
  $nin?: readonly FilterValue[];
  $exists?: boolean;
  /** Case-insensitive on `text` (and each locale of a `translatable`); on a `hasMany` relation: holds this id. */
  $contains?: string;
  /** Case-insensitive on `text` (and each locale of a `translatable`). */
  $startsWith?: string;
  /** The negation of a condition on the same path: `{ price: { $not: { $gt: 100 } } }`. */
  $not?: FilterCondition;
}

/** A path's condition: a plain value is equality (`{ category: 'shoes' }`), or an object of operators. */
export type FilterCondition = FilterValue | null | FilterOperators;

/** The characters of a string, as a union: `Chars<'ab'>` is `'a' | 'b'`. */
type Chars<S extends string, Found extends string = never> = S extends `${infer First}${infer Rest}`
  ? Chars<Rest, Found | First>
  : Found;
type Letter = Chars<'abcdefghijklmnopqrstuvwxyz'>;
type PathStart = Letter | Uppercase<Letter> | '_';

/**
 * A path: a field key (`price`), `key.sub` into an `object` field, `key.<locale>` into a `translatable` field, or
 * the record's own `id`, `createdAt`, `updatedAt`. Field keys start with a letter or `_`, so a key starting with
 * `$` is an operator: only `$and`, `$or` and `$not` are allowed at this level.
 */
export type FilterPath = `${PathStart}${string}`;

/**
 * A filter in the style of MongoDB queries (delivery.md): `{ category: 'shoes', price: { $gte: 10, $lt: 100 } }`,
 * `{ $or: [{ brand: 'acme' }, { 'name.en': { $startsWith: 'run' } }] }`. Limits: depth 5, 50 conditions, 1000
 * values in one `$in`.
 */
export type RecordFilter = {
  [path: FilterPath]: FilterCondition | undefined;
} & {
  $and?: readonly RecordFilter[];
  $or?: readonly RecordFilter[];
  $not?: RecordFilter;
};

/**
 * Relation fields whose ids are replaced by the target records (`{ id, modelId, data, createdAt, updatedAt }`,
 * `null` for a missing target): `['category', 'brand', 'category.parent']`, depth at most 3.
 */
export type PopulatePaths = readonly string[];

/** What `populate` puts in place of an id in `data`. */
export interface PopulatedRecord {
  id: string;
  modelId: string;
  data: JsonObject;
  createdAt: string;
  updatedAt: string;
}

/** How records are read: every translatable value in one language, relations replaced by their records. */
export interface ReadOptions {
  /**
   * Turns every `translatable` value of `data` (also inside populated records) into one string: the value for
   * this locale (`de-AT`), else its language (`de`), else the workspace's default locale, else `null`.
   */
  locale?: string;
  populate?: PopulatePaths;
}

export interface GetRecordOptions extends ReadOptions {
  signal?: AbortSignal;
}

export interface ListOptions extends ReadOptions {
  /** At most 100 (default 20). */
  limit?: number;
  offset?: number;
  sort?: RecordSort;
  /** Only the records that match; `total` and `hasMore` count them. */
  filter?: RecordFilter;
  /** Only records in these states (`['draft', 'changed']`: everything not published); counted like `filter`. */
  status?: readonly RecordStatus[];
  signal?: AbortSignal;
}

export interface ListAllOptions extends ReadOptions {
  sort?: RecordSort;
  filter?: RecordFilter;
  /** Only records in these states. */
  status?: readonly RecordStatus[];
  /** Records per request, at most 100 (default 100). */
  pageSize?: number;
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

/** An asset's kind, from its detected MIME type (`acceptedTypes` of a media field names all but `other`). */
export type AssetKind = 'image' | 'video' | 'audio' | 'document' | 'other';

/** An uploaded image or file of the media library (docs/media.md). */
export interface Asset {
  id: string;
  /** For people only: never a path. */
  filename: string;
  /** Detected from the content, never taken from the client. */
  mimeType: string;
  type: AssetKind | (string & {});
  size: number;
  /** Images: the size after EXIF rotation; null for other files. */
  width: number | null;
  height: number | null;
  blurhash: string | null;
  sha256: string;
  /** Locale code → text. */
  alt: Record<string, string> | null;
  tags: string[];
  /** 0..1 from the top left: the part of the image a cover crop keeps. */
  focalPoint: { x: number; y: number } | null;
  access: 'public' | 'private' | (string & {});
  /** Where it is served; image transforms by query (`?w=800&format=webp`). */
  url: string;
  /** How many records' media fields hold it. */
  usage: number;
  createdAt: string;
  createdBy: string | null;
}

export interface AssetList {
  total: number;
  hasMore: boolean;
  items: Asset[];
}

/**
 * What `populate` puts in place of an asset id in a media field (`null` for an id without an asset): `alt` is one
 * text (or null) on a read with `locale`; `url` is absent for a private asset on the delivery route.
 */
export interface PopulatedAsset {
  id: string;
  url?: string;
  filename: string;
  mimeType: string;
  width: number | null;
  height: number | null;
  alt: Record<string, string> | string | null;
  blurhash: string | null;
}
