// The content half of the store contract: models and their records.
import type { ModelShape } from '../../domain/model-definition.js';
import type { ModelDefinition, RecordData } from '../../domain/fields.js';
import type { FilterNode } from '../../domain/filter.js';
import type { ListWindow, RecordQuery } from '../../domain/listing.js';
import type { StoredRecord } from '../../domain/stored-record.js';
import type { ModifyOperation } from '../../domain/revisions.js';

export interface ModelChange {
  shape: ModelShape;
  removedFieldKeys: string[];
  /** The SKU field after the change, when it differs from before (null: no longer a product). */
  skuFieldChanged: { skuField: string | null } | null;
  /** Drafts turned on (every record published as it is) or off (refused unless every record is published); null: unchanged. */
  drafts?: 'on' | 'off' | null;
  /** What the stored records must allow, in order (absent: nothing); the first that fails refuses the change. */
  storedValueChecks?: StoredValueCheck[];
}

/** A condition on a model's stored records that a change of its definition needs. */
export interface StoredValueCheck {
  fieldKey: string;
  /** 'no-values': no record holds a value under the key (its type or settings change); 'all-values': every record does (it becomes required). */
  expect: 'no-values' | 'all-values';
}

export interface ModelStore {
  list(workspaceId: string): Promise<ModelDefinition[]>;
  get(workspaceId: string, id: string): Promise<ModelDefinition | null>;
  getBySlug(workspaceId: string, slug: string): Promise<ModelDefinition | null>;
  /** Throws CONFLICT on a slug used in the workspace. */
  create(workspaceId: string, id: string, shape: ModelShape): Promise<ModelDefinition>;
  /**
   * Applies a change planned against `model`, in one transaction that first waits for the record writes of the model
   * under way and makes later ones wait, then checks the stored records (`storedValueChecks`). Throws
   * ChecksOutdated when the model's definition is no longer the version `model` has (or the model is gone), the
   * refusal of the first check that fails, or CONFLICT when the new SKU field has duplicates.
   */
  update(model: ModelDefinition, change: ModelChange): Promise<ModelDefinition>;
  delete(workspaceId: string, id: string): Promise<boolean>;
  /** How many records of the model have a non-null value under `key`. */
  countRecordsWithValue(modelId: string, key: string): Promise<number>;
}

/** Where a page ended: the sort key (epoch milliseconds) and id of its last record. */
export interface PageCursor {
  time: number;
  id: string;
}

export interface RecordLink {
  fieldKey: string;
  targetId: string;
}

export interface NewRecord extends ReplacementData {
  id: string;
  /** A deleted record brought back (restore): the revision it comes back as. Absent: a new record, revision 1. */
  revision?: number;
}

export interface WriteContext {
  model: ModelDefinition;
  userId: string | null;
}

export interface ReplacementData {
  data: RecordData;
  /** `data` as the JSON text to store (made once, when its size was checked). */
  dataText: string;
  sku: string | null;
  links: RecordLink[];
}

export interface Reference {
  sourceId: string;
  modelSlug: string;
  fieldKey: string;
}

export interface RecordStore {
  /**
   * Throws CONFLICT naming the SKU field when the SKU is taken. The record is stored only while the model's definition
   * is the version of `context.model` and every link's target exists, checked in the write itself, which a model
   * update or record delete under way is waited for by (or waits for): otherwise nothing is written and it throws
   * ChecksOutdated (the caller checks the data again).
   */
  insert(context: WriteContext, record: NewRecord): Promise<StoredRecord>;
  /**
   * Inserts in one transaction; rows whose SKU is taken (stored or earlier in the batch) are skipped and their indexes
   * returned. Stored only under the same conditions as `insert` (ChecksOutdated otherwise: nothing written).
   */
  insertMany(context: WriteContext, records: NewRecord[]): Promise<{ skippedForSku: number[] }>;
  get(workspaceId: string, id: string): Promise<StoredRecord | null>;
  /**
   * The records of the workspace among `ids` (of `reading.modelId` only, when given), in one query, in no
   * particular order; missing ids are left out. With `reading.maxDataBytes`, the database measures their data
   * first: over the bound, no data is read and the answer is 'too-large'.
   */
  getMany(workspaceId: string, ids: readonly string[], reading?: ManyReading): Promise<StoredRecord[] | 'too-large'>;
  /**
   * Reads the record and writes `change(current, version)` atomically: no other write of the same record can come
   * between the read and the write, and no change of its model's definition, whose version (definitionVersion) is
   * `version`. The links written must have their targets (ChecksOutdated otherwise: nothing written). Returns null
   * when the record does not exist.
   */
  modify(
    workspaceId: string,
    id: string,
    userId: string | null,
    change: (current: StoredRecord, definitionVersion: number) => ReplacementData,
    /** What the revision the change makes is called in the record's history (default `update`). */
    operation?: ModifyOperation,
  ): Promise<StoredRecord | null>;
  /** Records (other than `id` itself) whose relation fields point at `id`. */
  referencesTo(id: string): Promise<Reference[]>;
  /**
   * Deletes the record and, with `force`, removes the references to it in one transaction, which also checks for
   * references (a write linking to the record waits for it, or it for that write).
   */
  delete(workspaceId: string, id: string, force: boolean, userId?: string | null): Promise<'deleted' | 'not-found' | Reference[]>;
  /** Which of `ids` are records of the model. */
  existingIds(modelId: string, ids: string[]): Promise<Set<string>>;
  /**
   * A page in the window's order. With `after`, the page starts right after that record instead of skipping
   * `window.offset` rows: the same page when nothing was inserted or deleted in between, without the scan.
   */
  list(modelId: string, window: ListWindow, after?: PageCursor, reading?: PageReading): Promise<StoredRecord[]>;
  /**
   * A page of the model's records that match the query's filter, in its order (a field sort puts the records
   * missing the field last). For plain pages (no filter, a timestamp order) `list` is the faster path.
   */
  find(modelId: string, query: RecordQuery, reading?: PageReading): Promise<StoredRecord[]>;
  /** How many of the model's records match the filter. */
  count(modelId: string, filter: FilterNode): Promise<number>;
  /**
   * The model that `key` names in the workspace, and the page of its records at the window (skipping
   * `window.offset` rows), read together: on PostgreSQL in one statement, so one round trip to the database
   * instead of two, and the page and the model's record count from one snapshot. Null when the workspace has no
   * such model. `reading.maxDataBytes` bounds the page only when the model holds large records, as `list` does
   * when given the bound for such a model.
   */
  listWithModel(workspaceId: string, key: ModelKey, window: ListWindow, reading: PageReading): Promise<ModelPage | null>;
}

/**
 * The reads of published copies (docs/lifecycle.md): for a model with drafts, what the delivery route serves. The
 * same reads as RecordStore's, over the published copies only (a model without drafts has none).
 */
export type PublishedReads = Pick<RecordStore, 'get' | 'getMany' | 'list' | 'find' | 'count' | 'existingIds'>;

/** A model named by its id or by its slug, within a workspace. */
export type ModelKey = { id: string } | { slug: string };

export interface ModelPage {
  model: ModelDefinition;
  items: StoredRecord[];
}

/** How getMany reads (default: records of any model, no size bound). */
export interface ManyReading {
  modelId?: string | null;
  maxDataBytes?: number | null;
  /**
   * The caller never changes the records it gets (nor settles their lazy `data`), so a store may give records it
   * keeps between reads, when it can tell they have not changed since (SQLite: by their model's content version).
   */
  shared?: boolean;
}

/** How a page's records are read (default: with their data, no size bound). */
export interface PageReading {
  /** Read `data`; false for an answer that does not select it (records then come with an empty `data`). */
  data: boolean;
  /**
   * When set, the database measures the page's data first and a page over this many bytes is refused with
   * pageTooLargeError before more than that is read; null when the model's records are all small.
   */
  maxDataBytes: number | null;
  /**
   * listWithModel: the page of what the delivery route serves, which for a model with drafts is its published copies
   * (default: the working copies).
   */
  served?: boolean;
}

export const FULL_PAGE: PageReading = { data: true, maxDataBytes: null };
