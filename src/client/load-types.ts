// The options and the summary of the loaders (importRows, sync), and what they use of the client. The client
// (client.ts) imports this; the calls the loaders use are spelt out here, not picked from the client, so no import
// goes back (not even a type-only one).
import type { ContentServiceError } from './errors.js';
import type {
  DeletionResult,
  ImportCallResult,
  JsonObject,
  ListAllOptions,
  ModelDefinition,
  ModelRecord,
  RowError,
} from './types.js';

/** What the loaders report as they go. */
export interface LoadProgress {
  phase: 'reading' | 'writing' | 'pruning' | 'done';
  /** Existing records read (sync only). */
  existing: number;
  /** Input rows taken so far. */
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
  failed: number;
}

export interface ImportOptions<T> {
  /** Turns an item into the `data` of a row (default: the item itself). Throwing rejects the row unsent. */
  toData?: (item: T) => JsonObject;
  /** Rows per call, at most 1000 (default 1000); lowered further to the budget learnt from a 413. */
  batchSize?: number;
  signal?: AbortSignal;
  /** Every failed row, as it happens. When given, `errors` of the summary stays empty (constant memory). */
  onRowError?: (error: RowError<T>) => void;
  onProgress?: (progress: LoadProgress) => void;
  /** Convert and check rows, write nothing. */
  dryRun?: boolean;
}

export interface SyncOptions<T> extends ImportOptions<T> {
  /** The field that identifies a row (the SKU, or any field of a non-product model). */
  key: string;
  /** Delete records whose key is not in the input (and records without a key, and extra records sharing a key). */
  prune?: boolean;
  /** Patches and deletes in flight at once (default 4). */
  concurrency?: number;
  /**
   * Where an input item is, for the message of a key given twice (default: its 1-based input row, `input row 3`).
   * The CLI names the file's line instead (`line 4`: a CSV's header is line 1), the word its other messages use.
   */
  position?: { name: string; of: (item: T, row: number) => number };
}

export interface LoadSummary<T> {
  /** Input rows. */
  total: number;
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
  failed: number;
  /** Failed rows (empty when `onRowError` was given). */
  errors: RowError<T>[];
  /** The failure that stopped the run (auth, network, …); rows not sent after it are counted as failed. */
  stopped: ContentServiceError | undefined;
  /** True when every row landed (created, updated or unchanged) and nothing stopped the run. */
  ok: boolean;
  dryRun: boolean;
  /** Sync: stored records found sharing a key with an earlier one (left alone unless `prune`). */
  duplicateKeysInStore: number;
}

export type Items<T> = Iterable<T> | AsyncIterable<T>;

/** The calls of the admin API the loaders are built on: ContentClient implements it, so the two cannot drift apart. */
export interface LoaderClient {
  findModel(slugOrId: string, signal?: AbortSignal): Promise<ModelDefinition>;
  getModel(id: string, signal?: AbortSignal): Promise<ModelDefinition | null>;
  importRecords(modelId: string, rows: JsonObject[], signal?: AbortSignal): Promise<ImportCallResult>;
  listAll(modelId: string, options?: ListAllOptions): AsyncGenerator<ModelRecord>;
  patchRecord(id: string, data: JsonObject, signal?: AbortSignal): Promise<ModelRecord | null>;
  deleteRecord(id: string, options?: { force?: boolean; signal?: AbortSignal }): Promise<DeletionResult>;
}

/** The workspace's write budget as learnt from a 413 answer, kept by the client: later imports split to it at once. */
export interface LearntBudget {
  value: number | undefined;
}

/** What a loader runs on: the client's calls and the budget its imports share. */
export interface Loader {
  client: LoaderClient;
  budget: LearntBudget;
}
