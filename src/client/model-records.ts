// Typed reads and writes of one model's records, by slug: `client.model('product')` on a
// `ContentClient<Models>` (Models from `content-service types`). Each call is the untyped client's call with the
// model's id, found once by slug; the types are the generated interface of the model's `data`.
import type { ContentClient } from './client.js';
import type { ImportOptions, Items, LoadSummary, SyncOptions } from './load-types.js';
import type {
  DeletionResult,
  ImportCallResult,
  JsonObject,
  ListAllOptions,
  ListOptions,
  ModelRecord,
  PopulatedAsset,
  ReadOptions,
  RecordList,
} from './types.js';

/** The map a client is typed with when it is given none: every slug, any data. */
export type UntypedModels = Record<string, JsonObject>;

/**
 * `data` as a read with these options answers it: as stored; with `locale`, each translatable value one string
 * (or null); with `populate`, untyped (the generated types do not say which model a relation points at). Options
 * whose `locale` may or may not be there give either form.
 */
export type ReadData<Data, Options> = [Member<Options, 'populate'>] extends [undefined]
  ? [Member<Options, 'locale'>] extends [undefined]
    ? Data
    : [Member<Options, 'locale'>] extends [string]
      ? Localized<Data>
      : Data | Localized<Data>
  : JsonObject;

/**
 * `Data` as a read with `populate` of its media fields `Keys` answers it: each asset id replaced by the asset
 * (`PopulatedAsset`, null for an id without one). Reads with `populate` are typed as untyped data (`ReadData`): cast
 * their `data` to this, `record.data as WithPopulatedMedia<Product, 'photo'>`.
 */
export type WithPopulatedMedia<Data, Keys extends keyof Data> = Omit<Data, Keys> & {
  [Key in keyof Pick<Data, Keys>]: PopulatedMedia<Pick<Data, Keys>[Key]>;
};

type PopulatedMedia<Value> = Value extends readonly unknown[]
  ? (PopulatedAsset | null)[]
  : Value extends string
    ? PopulatedAsset | null
    : Value;

/** The type of `Options[Key]`, undefined when there is no such member. */
type Member<Options, Key extends string> = Key extends keyof Options ? Options[Key] : undefined;

/** `Data` read with `locale`: each translatable field (`Record<string, string>`) becomes its one text, or null. */
export type Localized<Data> = { [Key in keyof Data]: LocalizedValue<Data[Key]> };

type LocalizedValue<Value> = Value extends readonly unknown[]
  ? Value
  : Value extends object
    ? string extends keyof Value
      ? [Value[string & keyof Value]] extends [string]
        ? string | null
        : Value
      : Localized<Value>
    : Value;

/** The keys `Data` may lack. */
type OptionalKeys<Data> = { [Key in keyof Data]-?: Record<never, never> extends Pick<Data, Key> ? Key : never }[keyof Data];

/**
 * A JSON merge patch of `Data` (RFC 7386, what `patch` sends): any of its fields, objects merged key by key, and
 * `null` to remove an optional field (or one locale of a translatable field).
 */
export type RecordPatch<Data> = {
  [Key in keyof Data]?: PatchValue<Data[Key]> | (Key extends OptionalKeys<Data> ? null : never);
};

type PatchValue<Value> = Value extends readonly unknown[] ? Value : Value extends object ? RecordPatch<Value> : Value;

/** The client calls a model's records are read and written with. */
export type ModelRecordsClient = Pick<
  ContentClient,
  | 'listRecords'
  | 'listAll'
  | 'getRecord'
  | 'getMany'
  | 'createRecord'
  | 'updateRecord'
  | 'patchRecord'
  | 'deleteRecord'
  | 'importRecords'
  | 'importRows'
  | 'sync'
>;

type NoOptions = Record<never, never>;

/** The records of one model, typed by its `data`. Get one from `client.model(slug)`. */
export class ModelRecords<Data> {
  constructor(
    private readonly client: ModelRecordsClient,
    /** The model's slug. */
    readonly slug: string,
    private readonly modelId: (signal?: AbortSignal) => Promise<string>,
  ) {}

  /** One page (`limit` at most 100), as `listRecords`. */
  async list<Options extends ListOptions = NoOptions>(options?: Options): Promise<RecordList<ReadData<Data, Options>>> {
    const modelId = await this.modelId(options?.signal);
    return (await this.client.listRecords(modelId, options)) as RecordList<ReadData<Data, Options>>;
  }

  /** Every record (or every one that matches `filter`), page by page, as `listAll`. */
  async *listAll<Options extends ListAllOptions = NoOptions>(
    options?: Options,
  ): AsyncGenerator<ModelRecord<ReadData<Data, Options>>> {
    const modelId = await this.modelId(options?.signal);
    for await (const record of this.client.listAll(modelId, options)) yield record as ModelRecord<ReadData<Data, Options>>;
  }

  /** One record of this model, or null (also when the id is a record of another model). */
  async get<Options extends ReadOptions & { signal?: AbortSignal } = NoOptions>(
    id: string,
    options?: Options,
  ): Promise<ModelRecord<ReadData<Data, Options>> | null> {
    const [modelId, record] = await Promise.all([this.modelId(options?.signal), this.client.getRecord(id, options ?? {})]);
    return record?.modelId === modelId ? (record as ModelRecord<ReadData<Data, Options>>) : null;
  }

  /** Records by id, in the order of `ids`; null where none is found or the record is of another model. */
  async getMany<Options extends ReadOptions & { signal?: AbortSignal } = NoOptions>(
    ids: readonly string[],
    options?: Options,
  ): Promise<(ModelRecord<ReadData<Data, Options>> | null)[]> {
    const [modelId, records] = await Promise.all([this.modelId(options?.signal), this.client.getMany(ids, options ?? {})]);
    return records.map((record) => (record?.modelId === modelId ? (record as ModelRecord<ReadData<Data, Options>>) : null));
  }

  async create(data: Data, signal?: AbortSignal): Promise<ModelRecord<Data>> {
    const modelId = await this.modelId(signal);
    return (await this.client.createRecord(modelId, asJson(data), signal)) as ModelRecord<Data>;
  }

  /**
   * Replaces the whole data of a record. Writes by id go to that record whatever its model: the server checks
   * `data` against the record's own model.
   */
  async update(id: string, data: Data, signal?: AbortSignal): Promise<ModelRecord<Data> | null> {
    return (await this.client.updateRecord(id, asJson(data), signal)) as ModelRecord<Data> | null;
  }

  /** JSON merge patch of a record's data: the fields given change, `null` removes an optional one. */
  async patch(id: string, patch: RecordPatch<Data>, signal?: AbortSignal): Promise<ModelRecord<Data> | null> {
    return (await this.client.patchRecord(id, asJson(patch), signal)) as ModelRecord<Data> | null;
  }

  delete(id: string, options: { force?: boolean; signal?: AbortSignal } = {}): Promise<DeletionResult> {
    return this.client.deleteRecord(id, options);
  }

  /** One `record.import` call (at most 1000 rows), as `importRecords`. */
  async import(rows: readonly Data[], signal?: AbortSignal): Promise<ImportCallResult> {
    const modelId = await this.modelId(signal);
    return this.client.importRecords(modelId, rows.map(asJson), signal);
  }

  /** Any number of rows, in calls the budget allows, as `importRows`. */
  async importRows(items: Items<Data>, options: Omit<ImportOptions<Data>, 'toData'> = {}): Promise<LoadSummary<Data>> {
    const modelId = await this.modelId(options.signal);
    return this.client.importRows({ id: modelId }, items, options);
  }

  /** Loads rows by a key field, idempotently, as `sync`; `key` is one of the model's fields. */
  async sync(
    items: Items<Data>,
    options: Omit<SyncOptions<Data>, 'toData' | 'key'> & { key: keyof Data & string },
  ): Promise<LoadSummary<Data>> {
    const modelId = await this.modelId(options.signal);
    return this.client.sync({ id: modelId }, items, options);
  }
}

/** A model's data as the untyped calls take it: an interface has no index signature, the JSON is the same. */
function asJson(data: unknown): JsonObject {
  return data as JsonObject;
}
