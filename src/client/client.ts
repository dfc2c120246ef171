// The SDK: typed methods for every operation of the admin API, and the loaders built on them
// (listAll here; importRows and sync in import-rows.ts and sync.ts). It speaks only the documented API, over HTTP.
import { ContentServiceError } from './errors.js';
import { Transport, type TransportOptions } from './http.js';
import { readByIds } from './by-ids.js';
import { importRows } from './import-rows.js';
import { readArguments } from './read-arguments.js';
import type { ImportOptions, Items, LearntBudget, LoaderClient, LoadSummary, SyncOptions } from './load-types.js';
import { sync } from './sync.js';
import { AssetCalls } from './assets.js';
import { ModelRecords, type UntypedModels } from './model-records.js';
import type {
  CreateModelInput,
  DeletionResult,
  GetRecordOptions,
  ImportCallResult,
  JsonObject,
  ListAllOptions,
  ListOptions,
  ModelDefinition,
  ModelRecord,
  PublishResult,
  RecordList,
  UpdateModelInput,
} from './types.js';
import type { HistoryOptions, JsonPatchOperation, RevisionList } from './history-types.js';

export type ContentClientOptions = TransportOptions;

/** The most ids one `record.getMany` call takes; `getMany` sends more in several calls. */
export const MAX_IDS_PER_CALL = 100;

/** The most ids one `publishRecords` or `unpublishRecords` call takes (the server's limit of one call). */
export const MAX_PUBLISH_IDS = 1000;

const RECORD_FIELDS =
  'id modelId workspaceId data createdAt updatedAt createdBy updatedBy revision ' +
  'status publishedAt publishedRevision hasUnpublishedChanges';
const FIELD_FIELDS = 'key label type required relationTo relationType indexed multiple acceptedTypes';
const MODEL_FIELDS =
  'id workspaceId name slug description icon color displayField deliveryAccess drafts recordCount createdAt updatedAt ' +
  'product { enabled skuField priceField } ' +
  `fields { ${FIELD_FIELDS} fields { ${FIELD_FIELDS} fields { ${FIELD_FIELDS} } } }`;

/**
 * `Models` maps model slugs to the types of their records' `data` (`content-service types` writes it): with
 * `new ContentClient<Models>(…)`, `client.model(slug)` reads and writes typed records. Without it, any slug and
 * any data, and every other call is the same either way. Schedules and the media library: the methods of
 * ScheduleCalls (schedules.ts) and AssetCalls (assets.ts).
 */
export class ContentClient<Models = UntypedModels> extends AssetCalls implements LoaderClient {
  private readonly learntBudget: LearntBudget = { value: undefined };
  /** Model ids by slug, found once for `model(slug)`; a failed lookup is forgotten, so the next call asks again. */
  private readonly modelIds = new Map<string, Promise<string>>();

  constructor(options: ContentClientOptions) {
    super(new Transport(options));
  }

  /** The admin endpoint used (`…/graphql`). */
  get url(): string {
    return this.transport.url;
  }

  /** The write budget learnt from a 413 answer, if any. */
  get budget(): number | undefined {
    return this.learntBudget.value;
  }

  /** Any GraphQL request; `write: true` for mutations of records (never retried except after a 429). */
  request<T = unknown>(
    query: string,
    variables: Record<string, unknown> = {},
    options: { write?: boolean; signal?: AbortSignal; operation?: string } = {},
  ): Promise<T> {
    return this.transport.request<T>(query, variables, {
      operation: options.operation ?? 'request',
      idempotent: !options.write,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  // ---- models ----

  /** Every model of the workspace (also the connectivity check: a list, even empty, means the credentials work). */
  async listModels(signal?: AbortSignal): Promise<ModelDefinition[]> {
    return (
      await this.read<{ model: { list: ModelDefinition[] } }>(
        'listModels',
        `query { model { list { ${MODEL_FIELDS} } } }`,
        {},
        signal,
      )
    ).model.list;
  }

  async getModel(id: string, signal?: AbortSignal): Promise<ModelDefinition | null> {
    const data = await this.read<{ model: { get: ModelDefinition | null } }>(
      'getModel',
      `query($id: ID!) { model { get(id: $id) { ${MODEL_FIELDS} } } }`,
      { id },
      signal,
    );
    return data.model.get;
  }

  /** The model with that slug (or id), or NOT_FOUND. */
  async findModel(slugOrId: string, signal?: AbortSignal): Promise<ModelDefinition> {
    const models = await this.listModels(signal);
    const found = models.find((model) => model.slug === slugOrId) ?? models.find((model) => model.id === slugOrId);
    if (!found) {
      const known = models.map((model) => model.slug).join(', ') || 'none';
      throw new ContentServiceError(`model: no model with slug "${slugOrId}" in this workspace (models: ${known})`, {
        code: 'NOT_FOUND',
        field: 'model',
      });
    }
    return found;
  }

  async createModel(input: CreateModelInput, signal?: AbortSignal): Promise<ModelDefinition> {
    const query = `mutation($input: CreateModelDefinitionInput!) { model { create(input: $input) { ${MODEL_FIELDS} } } }`;
    return (await this.write<{ model: { create: ModelDefinition } }>('createModel', query, { input }, signal)).model.create;
  }

  async updateModel(input: UpdateModelInput, signal?: AbortSignal): Promise<ModelDefinition | null> {
    const query = `mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { ${MODEL_FIELDS} } } }`;
    return (await this.write<{ model: { update: ModelDefinition | null } }>('updateModel', query, { input }, signal)).model
      .update;
  }

  async deleteModel(id: string, signal?: AbortSignal): Promise<DeletionResult> {
    const query = `mutation($id: ID!) { model { delete(id: $id) { id deleted } } }`;
    return (await this.write<{ model: { delete: DeletionResult } }>('deleteModel', query, { id }, signal)).model.delete;
  }

  /**
   * The records of the model with this slug, typed by `Models` (`client.model('product').list()`). The model's id
   * is looked up on first use and kept for the life of the client.
   */
  model<Slug extends keyof Models & string>(slug: Slug): ModelRecords<Models[Slug]> {
    return new ModelRecords<Models[Slug]>(this, slug, (signal) => this.modelIdOf(slug, signal));
  }

  private modelIdOf(slug: string, signal?: AbortSignal): Promise<string> {
    let id = this.modelIds.get(slug);
    if (!id) {
      id = this.findModel(slug, signal).then((model) => model.id);
      this.modelIds.set(slug, id);
      id.catch(() => this.modelIds.delete(slug));
    }
    return id;
  }

  // ---- records ----

  async createRecord(modelId: string, data: JsonObject, signal?: AbortSignal): Promise<ModelRecord> {
    const query = `mutation($input: CreateModelRecordInput!) { record { create(input: $input) { ${RECORD_FIELDS} } } }`;
    return (await this.write<{ record: { create: ModelRecord } }>('createRecord', query, { input: { modelId, data } }, signal))
      .record.create;
  }

  /**
   * One record, or null. `locale` and `populate` shape its `data` (see `ReadOptions`); the older form
   * `getRecord(id, signal)` still works.
   */
  async getRecord(id: string, options: GetRecordOptions | AbortSignal = {}): Promise<ModelRecord | null> {
    const { signal, ...reading } = isAbortSignal(options) ? { signal: options } : options;
    const args = readArguments(reading);
    const query = `query($id: ID!${args.declarations}) { record { get(id: $id${args.passing}) { ${RECORD_FIELDS} } } }`;
    const variables = { id, ...args.variables };
    return (await this.read<{ record: { get: ModelRecord | null } }>('getRecord', query, variables, signal)).record.get;
  }

  /**
   * Records by id, in the order of `ids`, `null` where none is found (or it is in another workspace). Any number
   * of ids: they are sent in calls of at most MAX_IDS_PER_CALL, and a call whose records would make too large an
   * answer is sent again in halves.
   */
  async getMany(ids: readonly string[], options: GetRecordOptions = {}): Promise<(ModelRecord | null)[]> {
    const { signal, ...reading } = options;
    const args = readArguments(reading);
    const query = `query($ids: [ID!]!${args.declarations}) { record { getMany(ids: $ids${args.passing}) { ${RECORD_FIELDS} } } }`;
    return readByIds(ids, MAX_IDS_PER_CALL, async (chunk) => {
      const variables = { ids: chunk, ...args.variables };
      return (await this.read<{ record: { getMany: (ModelRecord | null)[] } }>('getMany', query, variables, signal)).record
        .getMany;
    });
  }

  /**
   * One page of records (`limit` at most 100), optionally filtered, sorted by a field, in one locale and with
   * relations populated (see `ListOptions`).
   */
  async listRecords(modelId: string, options: ListOptions = {}): Promise<RecordList> {
    const { signal, limit, offset, sort, ...reading } = options;
    const args = readArguments(reading);
    const query = `query($modelId: ID!, $limit: Int, $offset: Int, $sort: String${args.declarations}) {
      record { list(modelId: $modelId, limit: $limit, offset: $offset, sort: $sort${args.passing}) { total hasMore items { ${RECORD_FIELDS} } } } }`;
    const variables = { modelId, limit: limit ?? null, offset: offset ?? null, sort: sort ?? null, ...args.variables };
    return (await this.read<{ record: { list: RecordList } }>('listRecords', query, variables, signal)).record.list;
  }

  /** JSON merge patch of one record's data. */
  async patchRecord(id: string, data: JsonObject, signal?: AbortSignal): Promise<ModelRecord | null> {
    const query = `mutation($input: PatchModelRecordInput!) { record { patch(input: $input) { ${RECORD_FIELDS} } } }`;
    return (await this.write<{ record: { patch: ModelRecord | null } }>('patchRecord', query, { input: { id, data } }, signal))
      .record.patch;
  }

  /** Replaces the whole data of one record. */
  async updateRecord(id: string, data: JsonObject, signal?: AbortSignal): Promise<ModelRecord | null> {
    const query = `mutation($input: UpdateModelRecordInput!) { record { update(input: $input) { ${RECORD_FIELDS} } } }`;
    return (await this.write<{ record: { update: ModelRecord | null } }>('updateRecord', query, { input: { id, data } }, signal))
      .record.update;
  }

  async deleteRecord(id: string, options: { force?: boolean; signal?: AbortSignal } = {}): Promise<DeletionResult> {
    const query =
      options.force === undefined
        ? `mutation($id: ID!) { record { delete(id: $id) { id deleted } } }`
        : `mutation($id: ID!, $force: Boolean) { record { delete(id: $id, force: $force) { id deleted } } }`;
    const variables = options.force === undefined ? { id } : { id, force: options.force };
    return (await this.write<{ record: { delete: DeletionResult } }>('deleteRecord', query, variables, options.signal)).record
      .delete;
  }

  // ---- history ----

  /** The record's revisions, newest first (a deleted record's too, for 30 days). */
  async recordHistory(id: string, options: HistoryOptions = {}): Promise<RevisionList> {
    const query = `query($id: ID!, $limit: Int, $offset: Int) { record { history(id: $id, limit: $limit, offset: $offset) {
      total hasMore items { revision operation data createdAt createdBy } } } }`;
    const variables = { id, limit: options.limit ?? null, offset: options.offset ?? null };
    return (await this.read<{ record: { history: RevisionList } }>('recordHistory', query, variables, options.signal)).record
      .history;
  }

  /** The RFC 6902 JSON Patch from revision `from` to revision `to` (default: the newest). */
  async diffRecord(id: string, from: number, to?: number, signal?: AbortSignal): Promise<JsonPatchOperation[]> {
    const query = `query($id: ID!, $from: Int!, $to: Int) { record { diff(id: $id, from: $from, to: $to) { op path value oldValue } } }`;
    const answer = await this.read<{ record: { diff: JsonPatchOperation[] } }>(
      'diffRecord',
      query,
      { id, from, to: to ?? null },
      signal,
    );
    return answer.record.diff.map(({ op, path, value, oldValue }) => ({
      op,
      path,
      ...(op === 'remove' ? {} : { value }),
      ...(op === 'add' ? {} : { oldValue }),
    }));
  }

  /** Writes a revision's data as the record's next revision; brings a deleted record back with its id. */
  async restoreRecord(id: string, revision: number, signal?: AbortSignal): Promise<ModelRecord> {
    const query = `mutation($id: ID!, $revision: Int!) { record { restore(id: $id, revision: $revision) { ${RECORD_FIELDS} } } }`;
    return (await this.write<{ record: { restore: ModelRecord } }>('restoreRecord', query, { id, revision }, signal)).record
      .restore;
  }

  /** The record as it was at `asOf` (the revision current then), or null when it did not exist then. */
  async getRecordAsOf(id: string, asOf: Date | string, signal?: AbortSignal): Promise<ModelRecord | null> {
    const query = `query($id: ID!, $asOf: DateTime) { record { get(id: $id, asOf: $asOf) { ${RECORD_FIELDS} } } }`;
    const at = typeof asOf === 'string' ? asOf : asOf.toISOString();
    return (await this.read<{ record: { get: ModelRecord | null } }>('getRecordAsOf', query, { id, asOf: at }, signal)).record
      .get;
  }

  // ---- drafts and publishing ----

  /**
   * Publishes the records' working copies as they are, in one call that is all or nothing: an unknown id is
   * NOT_FOUND naming `ids.<position>` and nothing is published. Each id costs 1 of the write budget (a call costing
   * more than the whole budget is refused, COST_EXCEEDS_BUDGET). A record of a model without drafts is answered as
   * published. `unpublishedTargets` lists the ids the published copies' relations point at that are not published.
   *
   * At most MAX_PUBLISH_IDS (1000) ids; more are refused here (BAD_USER_INPUT, field `ids`) before anything is
   * sent. They are not split into several calls, because several calls are not all or nothing: a refusal of the
   * second would leave the first published. To publish more, make one call per 1000 ids and decide what a failure
   * part way means (`content-service publish --model … --all-changed` does that, reporting what it published).
   */
  async publishRecords(ids: readonly string[], signal?: AbortSignal): Promise<PublishResult> {
    return this.publication('publish', ids, signal);
  }

  /**
   * Removes the records' published copies (they become `draft`; the delivery route no longer serves them), in one
   * call that is all or nothing, as `publishRecords`: at most MAX_PUBLISH_IDS ids (more are refused here, not
   * split), an unknown id is NOT_FOUND naming `ids.<position>`, each id costs 1 of the write budget.
   */
  async unpublishRecords(ids: readonly string[], signal?: AbortSignal): Promise<PublishResult> {
    return this.publication('unpublish', ids, signal);
  }

  /** The working copy becomes the published copy again, as a new revision; CONFLICT when it was never published. */
  async discardChanges(id: string, signal?: AbortSignal): Promise<ModelRecord> {
    const query = `mutation($id: ID!) { record { discardChanges(id: $id) { ${RECORD_FIELDS} } } }`;
    return (await this.write<{ record: { discardChanges: ModelRecord } }>('discardChanges', query, { id }, signal)).record
      .discardChanges;
  }

  /** The record's published copy (what the delivery route serves), or null when it has none. */
  async getPublishedRecord(id: string, signal?: AbortSignal): Promise<ModelRecord | null> {
    const query = `query($id: ID!) { record { get(id: $id, published: true) { ${RECORD_FIELDS} } } }`;
    return (await this.read<{ record: { get: ModelRecord | null } }>('getPublishedRecord', query, { id }, signal)).record.get;
  }

  private async publication(
    action: 'publish' | 'unpublish',
    ids: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<PublishResult> {
    const operation = `${action}Records`;
    if (ids.length > MAX_PUBLISH_IDS) {
      throw new ContentServiceError(
        `ids: at most ${MAX_PUBLISH_IDS} ids per ${operation} call, got ${ids.length}; nothing was sent (one call is ` +
          `all or nothing, so the SDK does not split it: send calls of ${MAX_PUBLISH_IDS} yourself)`,
        { code: 'BAD_USER_INPUT', field: 'ids' },
      );
    }
    const query = `mutation($ids: [ID!]!) { record { ${action}(ids: $ids) { records { ${RECORD_FIELDS} } unpublishedTargets } } }`;
    const answer = await this.write<{ record: Record<string, PublishResult> }>(operation, query, { ids: [...ids] }, signal);
    return answer.record[action]!;
  }

  /** One `record.import` call, as is (at most 1000 rows; see `importRows` for any number). */
  async importRecords(modelId: string, rows: JsonObject[], signal?: AbortSignal): Promise<ImportCallResult> {
    const query = `mutation($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount errors { row message } } } }`;
    return (
      await this.write<{ record: { import: ImportCallResult } }>('importRecords', query, { input: { modelId, rows } }, signal)
    ).record.import;
  }

  // ---- loaders ----

  /**
   * Every record of a model (or every one that matches `filter`), page by page: offset paging until `hasMore` is
   * false or a page comes back empty. `sort`, `locale` and `populate` apply to every page.
   */
  async *listAll(modelId: string, options: ListAllOptions = {}): AsyncGenerator<ModelRecord> {
    const { pageSize, sort, ...rest } = options;
    const limit = Math.min(100, Math.max(1, pageSize ?? 100));
    for (let offset = 0; ;) {
      const page = await this.listRecords(modelId, { ...rest, limit, offset, sort: sort ?? 'createdAt_asc' });
      for (const item of page.items) yield item;
      offset += page.items.length;
      if (!page.hasMore || page.items.length === 0) return;
    }
  }

  /**
   * Imports any number of rows (an array or a stream) into a model: calls of at most 1000 rows and at most the
   * budget; 429 waited out; 413 split; each row error reported with the caller's row number (1-based position).
   * Import only inserts: run it twice and every row is stored twice (see `sync` to load by key).
   */
  importRows<T = JsonObject>(
    model: string | Pick<ModelDefinition, 'id'>,
    items: Items<T>,
    options: ImportOptions<T> = {},
  ): Promise<LoadSummary<T>> {
    return importRows({ client: this, budget: this.learntBudget }, model, items, options);
  }

  /**
   * Loads rows by a key field, idempotently: reads what exists (by key), creates the new rows through import,
   * patches only the changed fields of existing records, leaves unchanged ones alone, and with `prune` deletes
   * records whose key is not in the input. Run twice, the second run changes nothing; after a crash, a rerun
   * reads again and converges without duplicates.
   */
  sync<T = JsonObject>(
    model: string | Pick<ModelDefinition, 'id'>,
    items: Items<T>,
    options: SyncOptions<T>,
  ): Promise<LoadSummary<T>> {
    return sync({ client: this, budget: this.learntBudget }, model, items, options);
  }
}

/** Tells the older call form `getRecord(id, signal)` from `getRecord(id, options)`, also for a foreign AbortSignal. */
function isAbortSignal(value: GetRecordOptions | AbortSignal): value is AbortSignal {
  return typeof (value as AbortSignal).aborted === 'boolean' && typeof (value as AbortSignal).addEventListener === 'function';
}
