// The SDK: typed methods for every operation of the admin API, and the loaders built on them
// (listAll, importRows, sync). It speaks only the documented API, over HTTP.
import { mergeDiff, stripNulls, isPlainObject } from './diff.js';
import { ContentServiceError, fieldOfMessage } from './errors.js';
import { Transport, type TransportOptions } from './http.js';
import { ImportBatcher, MAX_IMPORT_ROWS, type PendingRow } from './import.js';
import type {
  CreateModelInput,
  DeletionResult,
  ImportCallResult,
  JsonObject,
  ListOptions,
  ModelDefinition,
  ModelRecord,
  RecordList,
  RecordSort,
  RowError,
  UpdateModelInput,
} from './types.js';

export type ContentClientOptions = TransportOptions;

const RECORD_FIELDS = 'id modelId workspaceId data createdAt updatedAt createdBy updatedBy';
const FIELD_FIELDS = 'key label type required relationTo relationType';
const MODEL_FIELDS =
  'id workspaceId name slug description displayField deliveryAccess recordCount createdAt updatedAt ' +
  'product { enabled skuField priceField } ' +
  `fields { ${FIELD_FIELDS} fields { ${FIELD_FIELDS} fields { ${FIELD_FIELDS} } } }`;

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

type Items<T> = Iterable<T> | AsyncIterable<T>;

function keyOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : `s:${value}`;
  if (typeof value === 'number' && Number.isFinite(value)) return `n:${value}`;
  if (typeof value === 'boolean') return `b:${value}`;
  return undefined;
}

function rejection(error: unknown): { code: string; message: string } {
  if (error instanceof ContentServiceError) return { code: error.code, message: error.message };
  return { code: 'BAD_USER_INPUT', message: error instanceof Error ? error.message : String(error) };
}

export class ContentClient {
  private readonly transport: Transport;
  /** The workspace's write budget as learnt from a 413 answer: later imports split to it at once. */
  private knownBudget: number | undefined;

  constructor(options: ContentClientOptions) {
    this.transport = new Transport(options);
  }

  /** The admin endpoint used (`…/graphql`). */
  get url(): string {
    return this.transport.url;
  }

  /** The write budget learnt from a 413 answer, if any. */
  get budget(): number | undefined {
    return this.knownBudget;
  }

  /** Any GraphQL request; `write: true` for mutations of records (never retried except after a 429). */
  request<T = unknown>(query: string, variables: Record<string, unknown> = {}, options: { write?: boolean; signal?: AbortSignal; operation?: string } = {}): Promise<T> {
    return this.transport.request<T>(query, variables, {
      operation: options.operation ?? 'request',
      idempotent: !options.write,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  private read<T>(operation: string, query: string, variables: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    return this.transport.request<T>(query, variables, { operation, idempotent: true, ...(signal ? { signal } : {}) });
  }

  private write<T>(operation: string, query: string, variables: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    return this.transport.request<T>(query, variables, { operation, idempotent: false, ...(signal ? { signal } : {}) });
  }

  // ---- models ----

  /** Every model of the workspace (also the connectivity check: a list, even empty, means the credentials work). */
  async listModels(signal?: AbortSignal): Promise<ModelDefinition[]> {
    return (await this.read<{ model: { list: ModelDefinition[] } }>('listModels', `query { model { list { ${MODEL_FIELDS} } } }`, {}, signal)).model.list;
  }

  async getModel(id: string, signal?: AbortSignal): Promise<ModelDefinition | null> {
    const data = await this.read<{ model: { get: ModelDefinition | null } }>('getModel', `query($id: ID!) { model { get(id: $id) { ${MODEL_FIELDS} } } }`, { id }, signal);
    return data.model.get;
  }

  /** The model with that slug (or id), or NOT_FOUND. */
  async findModel(slugOrId: string, signal?: AbortSignal): Promise<ModelDefinition> {
    const models = await this.listModels(signal);
    const found = models.find((model) => model.slug === slugOrId) ?? models.find((model) => model.id === slugOrId);
    if (!found) {
      const known = models.map((model) => model.slug).join(', ') || 'none';
      throw new ContentServiceError(`model: no model with slug "${slugOrId}" in this workspace (models: ${known})`, { code: 'NOT_FOUND', field: 'model' });
    }
    return found;
  }

  async createModel(input: CreateModelInput, signal?: AbortSignal): Promise<ModelDefinition> {
    const query = `mutation($input: CreateModelDefinitionInput!) { model { create(input: $input) { ${MODEL_FIELDS} } } }`;
    return (await this.write<{ model: { create: ModelDefinition } }>('createModel', query, { input }, signal)).model.create;
  }

  async updateModel(input: UpdateModelInput, signal?: AbortSignal): Promise<ModelDefinition | null> {
    const query = `mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { ${MODEL_FIELDS} } } }`;
    return (await this.write<{ model: { update: ModelDefinition | null } }>('updateModel', query, { input }, signal)).model.update;
  }

  async deleteModel(id: string, signal?: AbortSignal): Promise<DeletionResult> {
    const query = `mutation($id: ID!) { model { delete(id: $id) { id deleted } } }`;
    return (await this.write<{ model: { delete: DeletionResult } }>('deleteModel', query, { id }, signal)).model.delete;
  }

  // ---- records ----

  async createRecord(modelId: string, data: JsonObject, signal?: AbortSignal): Promise<ModelRecord> {
    const query = `mutation($input: CreateModelRecordInput!) { record { create(input: $input) { ${RECORD_FIELDS} } } }`;
    return (await this.write<{ record: { create: ModelRecord } }>('createRecord', query, { input: { modelId, data } }, signal)).record.create;
  }

  async getRecord(id: string, signal?: AbortSignal): Promise<ModelRecord | null> {
    const query = `query($id: ID!) { record { get(id: $id) { ${RECORD_FIELDS} } } }`;
    return (await this.read<{ record: { get: ModelRecord | null } }>('getRecord', query, { id }, signal)).record.get;
  }

  /** One page of records (`limit` at most 100). */
  async listRecords(modelId: string, options: ListOptions = {}): Promise<RecordList> {
    const query = `query($modelId: ID!, $limit: Int, $offset: Int, $sort: String) {
      record { list(modelId: $modelId, limit: $limit, offset: $offset, sort: $sort) { total hasMore items { ${RECORD_FIELDS} } } } }`;
    const variables = { modelId, limit: options.limit ?? null, offset: options.offset ?? null, sort: options.sort ?? null };
    return (await this.read<{ record: { list: RecordList } }>('listRecords', query, variables, options.signal)).record.list;
  }

  /** JSON merge patch of one record's data. */
  async patchRecord(id: string, data: JsonObject, signal?: AbortSignal): Promise<ModelRecord | null> {
    const query = `mutation($input: PatchModelRecordInput!) { record { patch(input: $input) { ${RECORD_FIELDS} } } }`;
    return (await this.write<{ record: { patch: ModelRecord | null } }>('patchRecord', query, { input: { id, data } }, signal)).record.patch;
  }

  /** Replaces the whole data of one record. */
  async updateRecord(id: string, data: JsonObject, signal?: AbortSignal): Promise<ModelRecord | null> {
    const query = `mutation($input: UpdateModelRecordInput!) { record { update(input: $input) { ${RECORD_FIELDS} } } }`;
    return (await this.write<{ record: { update: ModelRecord | null } }>('updateRecord', query, { input: { id, data } }, signal)).record.update;
  }

  async deleteRecord(id: string, options: { force?: boolean; signal?: AbortSignal } = {}): Promise<DeletionResult> {
    const query =
      options.force === undefined
        ? `mutation($id: ID!) { record { delete(id: $id) { id deleted } } }`
        : `mutation($id: ID!, $force: Boolean) { record { delete(id: $id, force: $force) { id deleted } } }`;
    const variables = options.force === undefined ? { id } : { id, force: options.force };
    return (await this.write<{ record: { delete: DeletionResult } }>('deleteRecord', query, variables, options.signal)).record.delete;
  }

  /** One `record.import` call, as is (at most 1000 rows; see `importRows` for any number). */
  async importRecords(modelId: string, rows: JsonObject[], signal?: AbortSignal): Promise<ImportCallResult> {
    const query = `mutation($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount errors { row message } } } }`;
    return (await this.write<{ record: { import: ImportCallResult } }>('importRecords', query, { input: { modelId, rows } }, signal)).record.import;
  }

  // ---- loaders ----

  /** Every record of a model, page by page (offset paging until `hasMore` is false). */
  async *listAll(modelId: string, options: { sort?: RecordSort; pageSize?: number; signal?: AbortSignal } = {}): AsyncGenerator<ModelRecord> {
    const limit = Math.min(100, Math.max(1, options.pageSize ?? 100));
    for (let offset = 0; ; ) {
      const page = await this.listRecords(modelId, { limit, offset, sort: options.sort ?? 'createdAt_asc', ...(options.signal ? { signal: options.signal } : {}) });
      for (const item of page.items) yield item;
      offset += page.items.length;
      if (!page.hasMore || page.items.length === 0) return;
    }
  }

  private async resolveModel(model: string | Pick<ModelDefinition, 'id'>, signal?: AbortSignal): Promise<ModelDefinition> {
    if (typeof model === 'string') return this.findModel(model, signal);
    if ('fields' in model && Array.isArray((model as ModelDefinition).fields)) return model as ModelDefinition;
    const found = await this.getModel(model.id, signal);
    if (!found) throw new ContentServiceError('modelId: model not found', { code: 'NOT_FOUND', field: 'modelId' });
    return found;
  }

  private newSummary<T>(dryRun: boolean): LoadSummary<T> & { progress: LoadProgress } {
    return {
      total: 0,
      created: 0,
      updated: 0,
      unchanged: 0,
      deleted: 0,
      failed: 0,
      errors: [],
      stopped: undefined,
      ok: false,
      dryRun,
      duplicateKeysInStore: 0,
      progress: { phase: 'writing', existing: 0, read: 0, created: 0, updated: 0, unchanged: 0, deleted: 0, failed: 0 },
    };
  }

  /**
   * Imports any number of rows (an array or a stream) into a model: calls of at most 1000 rows and at most the
   * budget; 429 waited out; 413 split; each row error reported with the caller's row number (1-based position).
   * Import only inserts: run it twice and every row is stored twice (see `sync` to load by key).
   */
  async importRows<T = JsonObject>(model: string | Pick<ModelDefinition, 'id'>, items: Items<T>, options: ImportOptions<T> = {}): Promise<LoadSummary<T>> {
    const modelId = typeof model === 'string' ? (await this.resolveModel(model, options.signal)).id : model.id;
    const summary = this.newSummary<T>(options.dryRun ?? false);
    const report = this.reporter(summary, options);
    const batcher = this.batcher<T>(modelId, options, summary, report);
    let row = 0;
    for await (const item of items) {
      if (options.signal?.aborted) {
        batcher.stopped ??= new ContentServiceError('Aborted: the operation was aborted', { code: 'ABORTED', cause: options.signal.reason });
        break;
      }
      row += 1;
      summary.total = summary.progress.read = row;
      let data: JsonObject;
      try {
        data = this.dataOf(item, options);
      } catch (error) {
        const { code, message } = rejection(error);
        batcher.fail([{ row, item, data: {} }], code, message);
        report.tick();
        continue;
      }
      if (options.dryRun) {
        summary.created += 1;
        report.tick();
        continue;
      }
      await batcher.push({ row, item, data: stripNulls(data) });
      report.tick();
    }
    await batcher.flush();
    summary.created = options.dryRun ? summary.created : batcher.imported;
    return report.finish(batcher.stopped);
  }

  /**
   * Loads rows by a key field, idempotently: reads what exists (by key), creates the new rows through import,
   * patches only the changed fields of existing records, leaves unchanged ones alone, and with `prune` deletes
   * records whose key is not in the input. Run twice, the second run changes nothing; after a crash, a rerun
   * reads again and converges without duplicates.
   */
  async sync<T = JsonObject>(model: string | Pick<ModelDefinition, 'id'>, items: Items<T>, options: SyncOptions<T>): Promise<LoadSummary<T>> {
    const definition = await this.resolveModel(model, options.signal);
    const key = options.key;
    if (!definition.fields.some((field) => field.key === key)) {
      throw new ContentServiceError(`key: the model "${definition.slug}" has no field "${key}"`, { code: 'BAD_USER_INPUT', field: 'key' });
    }
    const summary = this.newSummary<T>(options.dryRun ?? false);
    const report = this.reporter(summary, options);

    // 1. What exists, by key. The first record (in creation order) of a key is the one kept up to date.
    summary.progress.phase = 'reading';
    const index = await this.readIndex(definition.id, key, options.signal, () => {
      summary.progress.existing += 1;
      report.tick();
    });
    summary.duplicateKeysInStore = index.duplicates.length;
    summary.progress.phase = 'writing';

    // 2. Each input row: create (through import), patch or leave alone.
    const created = new Map<string, number>();
    const pool = new Pool(options.concurrency ?? 4);
    const batcher = this.batcher<T>(definition.id, options, summary, report, async (rows) => {
      // No answer to an import call: read again which of its keys are stored now, send the others again.
      const present = new Set<string>();
      for await (const record of this.listAll(definition.id, options.signal ? { signal: options.signal } : {})) {
        const k = keyOf(record.data[key]);
        if (k !== undefined) present.add(k);
      }
      const resend = rows.filter((row) => !present.has(keyOf(row.data[key])!));
      return { resend, landed: rows.length - resend.length };
    });
    let row = 0;
    for await (const item of items) {
      if (options.signal?.aborted) {
        batcher.stopped ??= new ContentServiceError('Aborted: the operation was aborted', { code: 'ABORTED', cause: options.signal.reason });
        break;
      }
      row += 1;
      summary.total = summary.progress.read = row;
      const current = row;
      const fail = (code: string, message: string) => {
        batcher.fail([{ row: current, item, data: {} }], code, message);
        report.tick();
      };
      let data: JsonObject;
      try {
        data = this.dataOf(item, options);
      } catch (error) {
        const { code, message } = rejection(error);
        fail(code, message);
        continue;
      }
      if (batcher.stopped) {
        fail(batcher.stopped.code, `not sent: the run stopped after an earlier error (${batcher.stopped.message})`);
        continue;
      }
      const k = keyOf(data[key]);
      if (k === undefined) {
        fail('BAD_USER_INPUT', `${key}: missing or not a string, number or boolean (it is the key of this load)`);
        continue;
      }
      const existing = index.byKey.get(k);
      const firstRow = existing?.seenAt ?? created.get(k);
      if (firstRow !== undefined) {
        fail('BAD_USER_INPUT', `${key}: the key ${JSON.stringify(data[key])} is also on input row ${firstRow}; each key may appear once`);
        continue;
      }
      if (!existing) {
        created.set(k, current);
        if (options.dryRun) summary.created += 1;
        else await batcher.push({ row: current, item, data: stripNulls(data) });
        report.tick();
        continue;
      }
      existing.seenAt = current;
      const patch = mergeDiff(existing.data, data);
      if (patch === undefined) {
        summary.unchanged += 1;
        report.tick();
        continue;
      }
      if (options.dryRun) {
        summary.updated += 1;
        report.tick();
        continue;
      }
      await pool.run(async () => {
        try {
          await this.patchWithRetry(existing.id, patch, options.signal);
          summary.updated += 1;
        } catch (error) {
          const { code, message } = rejection(error);
          batcher.fail([{ row: current, item, data }], code, message);
          if (error instanceof ContentServiceError && ['UNAUTHENTICATED', 'FORBIDDEN', 'ABORTED', 'RATE_LIMIT_WAIT_EXCEEDED'].includes(error.code)) {
            batcher.stopped ??= error;
          }
        }
        report.tick();
      });
    }
    await batcher.flush();
    await pool.drain();
    if (!options.dryRun) summary.created = batcher.imported;

    // 3. Prune: records whose key is not in the input, records without a key, extra records sharing a key.
    if (options.prune && !batcher.stopped) {
      summary.progress.phase = 'pruning';
      const doomed = [...index.byKey.values()].filter((entry) => entry.seenAt === undefined).map((entry) => entry.id);
      doomed.push(...index.duplicates, ...index.keyless);
      for (const id of doomed) {
        if (options.dryRun) {
          summary.deleted += 1;
          report.tick();
          continue;
        }
        await pool.run(async () => {
          try {
            await this.deleteWithRetry(id, options.signal);
            summary.deleted += 1;
          } catch (error) {
            const { code, message } = rejection(error);
            summary.failed += 1;
            const failure = { row: 0, item: { id } as unknown as T, message: `delete ${id}: ${message}`, code, field: fieldOfMessage(message) };
            if (options.onRowError) options.onRowError(failure);
            else summary.errors.push(failure);
          }
          report.tick();
        });
      }
      await pool.drain();
    }
    return report.finish(batcher.stopped);
  }

  private dataOf<T>(item: T, options: ImportOptions<T>): JsonObject {
    const data = options.toData ? options.toData(item) : (item as unknown as JsonObject);
    if (!isPlainObject(data)) throw new ContentServiceError('row: must be a JSON object', { code: 'BAD_USER_INPUT', field: 'row' });
    return data;
  }

  private batcher<T>(
    modelId: string,
    options: ImportOptions<T>,
    summary: LoadSummary<T> & { progress: LoadProgress },
    report: { tick(): void },
    onOutcomeUnknown?: (rows: PendingRow<T>[]) => Promise<{ resend: PendingRow<T>[]; landed: number }>,
  ): ImportBatcher<T> {
    return new ImportBatcher<T>(
      {
        send: (rows) => this.importRecords(modelId, rows, options.signal),
        getBudget: () => this.knownBudget,
        setBudget: (budget) => {
          this.knownBudget = budget;
        },
        onRowError: (error) => {
          summary.failed += 1;
          if (options.onRowError) options.onRowError(error);
          else summary.errors.push(error);
        },
        onBatch: (outcome) => {
          summary.progress.created += outcome.imported;
          report.tick();
        },
        ...(onOutcomeUnknown ? { onOutcomeUnknown } : {}),
      },
      Math.min(MAX_IMPORT_ROWS, Math.max(1, options.batchSize ?? MAX_IMPORT_ROWS)),
    );
  }

  private reporter<T>(summary: LoadSummary<T> & { progress: LoadProgress }, options: ImportOptions<T>) {
    const sync = () => {
      const p = summary.progress;
      p.updated = summary.updated;
      p.unchanged = summary.unchanged;
      p.deleted = summary.deleted;
      p.failed = summary.failed;
      if (summary.dryRun) p.created = summary.created;
    };
    return {
      tick: () => {
        if (!options.onProgress) return;
        sync();
        options.onProgress({ ...summary.progress });
      },
      finish: (stopped: ContentServiceError | undefined): LoadSummary<T> => {
        summary.stopped = stopped;
        summary.ok = !stopped && summary.failed === 0;
        sync();
        summary.progress.phase = 'done';
        if (!summary.dryRun) summary.progress.created = summary.created;
        options.onProgress?.({ ...summary.progress });
        const { progress: _progress, ...result } = summary;
        return result;
      },
    };
  }

  private async readIndex(modelId: string, key: string, signal: AbortSignal | undefined, onRecord: () => void) {
    const byKey = new Map<string, { id: string; data: JsonObject; seenAt?: number }>();
    const duplicates: string[] = [];
    const keyless: string[] = [];
    for await (const record of this.listAll(modelId, signal ? { signal } : {})) {
      onRecord();
      const k = keyOf(record.data[key]);
      if (k === undefined) keyless.push(record.id);
      else if (byKey.has(k)) duplicates.push(record.id);
      else byKey.set(k, { id: record.id, data: record.data });
    }
    return { byKey, duplicates, keyless };
  }

  /** A merge patch applied twice gives the same result, so a patch without an answer may be sent again. */
  private async patchWithRetry(id: string, patch: JsonObject, signal?: AbortSignal): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.patchRecord(id, patch, signal);
        return;
      } catch (error) {
        if (!(error instanceof ContentServiceError) || !error.outcomeUnknown || attempt >= 2) throw error;
      }
    }
  }

  /** A delete without an answer is sent again; NOT_FOUND then means the first one landed. */
  private async deleteWithRetry(id: string, signal?: AbortSignal): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.deleteRecord(id, signal ? { signal } : {});
        return;
      } catch (error) {
        if (attempt > 0 && error instanceof ContentServiceError && error.code === 'NOT_FOUND') return;
        if (!(error instanceof ContentServiceError) || !error.outcomeUnknown || attempt >= 2) throw error;
      }
    }
  }
}

/** Runs at most `size` tasks at once. */
class Pool {
  private readonly running = new Set<Promise<void>>();
  constructor(private readonly size: number) {}

  async run(task: () => Promise<void>): Promise<void> {
    while (this.running.size >= Math.max(1, this.size)) await Promise.race(this.running);
    const promise: Promise<void> = task().finally(() => this.running.delete(promise));
    this.running.add(promise);
  }

  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.race(this.running);
  }
}
