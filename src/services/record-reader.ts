// Reading records the way a reader asks for them, for both routes: pages, reads by id, `locale` and `populate`.
// Without `locale` and `populate` the records pass through as the store read them (their data still unparsed).
import { fieldError, ServiceError } from '../domain/errors.js';
import type { ModelDefinition, RecordData } from '../domain/fields.js';
import { MAX_LIMIT, type ListArguments } from '../domain/listing.js';
import { DEFAULT_LOCALE, localeChain, requireLocale } from '../domain/locale.js';
import {
  addPopulateKey,
  checkPopulateKeys,
  emptyLevel,
  isEmptyLevel,
  planPopulate,
  POPULATE_LIMITS,
  mediaIds,
  relationIds,
  type PopulateLevel,
  type PopulateNode,
  type PopulateScope,
} from '../domain/populate.js';
import { readData, RecordShaper, scanRelations, type PopulatedAsset } from '../domain/record-shape.js';
import { AssetUrls } from './asset-urls.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../domain/size-limits.js';
import type { StoredRecord } from '../domain/stored-record.js';
import type { ModelKey, Store } from '../store/store.js';
import type { RecordPage, RecordService } from './record-service.js';

/** The reading arguments both routes take besides paging. */
export interface ReadArguments {
  locale?: string | null;
  populate?: readonly string[] | null;
}

/** Who reads, and what the answer selects. */
export interface Reader {
  workspaceId: string;
  /** The workspace's default locale when the caller has the workspace at hand; otherwise read when needed. */
  defaultLocale?: string;
  /** The delivery route: only public models, and populate refuses a relation into a model that is not. */
  publicOnly: boolean;
  /** Whether the answer selects the records' data: without it, nothing is fetched or shaped. */
  withData: boolean;
  /** Whether the answer selects the list's `total` or `hasMore` (absent: it does); without them nothing is counted. */
  counted?: boolean;
  /** The delivery route without preview: records of a model with drafts are their published copies. */
  served?: boolean;
  /** The origin the request came to: populated assets' URLs start with it (unless a public URL is configured). */
  origin?: string;
}

/**
 * A list's model as a route names it: its key, whether the route shows it, and the route's own lookup (with its
 * NOT_FOUND) for when the model is read apart from the page.
 */
export interface ModelLookup {
  key: ModelKey;
  visible: (model: ModelDefinition) => boolean;
  require: () => Promise<ModelDefinition>;
}

/** The most ids one read by ids takes (as many as one page). */
export const MAX_READ_IDS = MAX_LIMIT;

/** A read's checked arguments. */
interface ReadRequest {
  locales: string[] | null;
  keys: string[];
}

/** The populate tree of each model of the records read (null: nothing to populate in its records). */
type Plans = Map<string, PopulateLevel | null>;

export class RecordReader {
  constructor(
    private readonly store: Store,
    private readonly records: RecordService,
    private readonly maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
    private readonly assetUrls = new AssetUrls(),
  ) {}

  /**
   * A page of the model's records (RecordService.listModel) in the shape the arguments ask for. Given a lookup,
   * a plain list's model and page are read together (RecordService.listTogether) when they can be.
   */
  async list(reader: Reader, model: ModelDefinition | ModelLookup, args: ListArguments & ReadArguments): Promise<RecordPage> {
    if ('require' in model) {
      const together = await this.listTogether(reader, model, args);
      if (together) return together;
      model = await model.require();
    }
    const request = await this.request(reader, args);
    const plans = request && (await this.plansOf(reader, request, [model], 'strict'));
    const page = await this.records.listModel(model, args, {
      withData: reader.withData,
      counted: reader.counted,
      served: reader.served,
    });
    if (!request || !plans || !reader.withData) return page;
    return { ...page, items: await this.shape(reader, request, plans, page.items, [model]) };
  }

  /**
   * The page read together with its model, shaped; null when it cannot be read so, and when anything in it is
   * refused: read apart (the model, then the page), the same arguments give the refusals in their order (an
   * unknown model first, then the locale, the populate keys, the window, the size of the page).
   */
  private async listTogether(
    reader: Reader,
    lookup: ModelLookup,
    args: ListArguments & ReadArguments,
  ): Promise<RecordPage | null> {
    try {
      const request = await this.request(reader, args);
      const found = await this.records.listTogether(
        reader.workspaceId,
        lookup.key,
        args,
        { withData: reader.withData, served: reader.served },
        lookup.visible,
      );
      if (!found) return null;
      const plans = request && (await this.plansOf(reader, request, [found.model], 'strict'));
      if (!request || !plans || !reader.withData) return found.page;
      return { ...found.page, items: await this.shape(reader, request, plans, found.page.items, [found.model]) };
    } catch (error) {
      if (error instanceof ServiceError) return null;
      throw error;
    }
  }

  /**
   * Records by id in the order of `ids`, null where there is none; with `model`, records of other models are
   * null too. Without `model` (the admin route) they may be of any model of the workspace.
   */
  async getMany(
    reader: Reader,
    ids: readonly string[],
    args: ReadArguments,
    model?: ModelDefinition,
  ): Promise<(StoredRecord | null)[]> {
    if (ids.length > MAX_READ_IDS) {
      throw fieldError({ path: 'ids', reason: `at most ${MAX_READ_IDS} ids in one read; got ${ids.length}` });
    }
    const request = await this.request(reader, args);
    const byId = new Map((await this.read(reader, request, ids, model)).map((record) => [record.id, record]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /** One record, or null; with `model`, a record of another model is null. */
  async get(reader: Reader, id: string, args: ReadArguments, model?: ModelDefinition): Promise<StoredRecord | null> {
    const request = await this.request(reader, args);
    if (!request && !model) return this.records.get(reader.workspaceId, id);
    const [record] = await this.read(reader, request, [id], model);
    return record ?? null;
  }

  /** The records among `ids` (of `model` when given), in the read's shape. */
  private async read(
    reader: Reader,
    request: ReadRequest | null,
    ids: readonly string[],
    model: ModelDefinition | undefined,
  ): Promise<StoredRecord[]> {
    let models: ModelDefinition[] = model ? [model] : [];
    let plans: Plans | null = null;
    if (request) {
      if (request.keys.length > 0 || !model) models = await this.store.models.list(reader.workspaceId);
      // The keys are checked before anything is read when the model is known.
      if (model) plans = await this.plansOf(reader, request, [model], 'strict', models);
    }
    // The admin route reads any model's records, large ones too: their size is measured first. (Read by model,
    // the bound counts only that model's records: the size of others, of models that are not public, tells nothing.)
    const bound = model && !model.hasLargeRecords ? null : this.maxResponseBytes;
    const source = reader.served && model?.drafts ? this.store.published : this.store.records;
    const found = await source.getMany(reader.workspaceId, [...new Set(ids)], {
      modelId: model?.id,
      maxDataBytes: bound,
    });
    if (found === 'too-large') {
      throw new ServiceError(
        'PAYLOAD_TOO_LARGE',
        `ids: these records hold more data than the ${this.maxResponseBytes} bytes one response may carry; ask for fewer`,
        { field: 'ids', maxResponseBytes: this.maxResponseBytes },
      );
    }
    // Read by model already; checked again because a record of another model must never come out here.
    const records = model ? found.filter((record) => record.modelId === model.id) : found;
    if (!request || records.length === 0) return records;
    const modelIds = new Set(records.map((record) => record.modelId));
    const present = models.filter((candidate) => modelIds.has(candidate.id));
    // Checked whether or not the answer selects `data`: the same arguments are refused the same way.
    plans ??= await this.plansOf(reader, request, present, 'lenient', models);
    if (!reader.withData) return records;
    return this.shape(reader, request, plans, records, present);
  }

  /** The checked arguments; null when they ask for nothing beyond the stored records. */
  private async request(reader: Reader, args: ReadArguments): Promise<ReadRequest | null> {
    const locale = args.locale === null || args.locale === undefined ? null : requireLocale('locale', args.locale);
    const keys = checkPopulateKeys(args.populate);
    if (locale === null && keys.length === 0) return null;
    return { locales: locale === null ? null : localeChain(locale, await this.defaultLocale(reader)), keys };
  }

  private async defaultLocale(reader: Reader): Promise<string> {
    if (reader.defaultLocale !== undefined) return reader.defaultLocale;
    const workspace = await this.store.tenancy.findWorkspace(reader.workspaceId);
    return workspace?.defaultLocale ?? DEFAULT_LOCALE;
  }

  /**
   * The populate tree of each model. 'strict': a key that does not fit a model is refused. 'lenient' (records of
   * several models read by id): a key applies to the models it fits, and is refused when it fits none of them.
   */
  private async plansOf(
    reader: Reader,
    request: ReadRequest,
    present: ModelDefinition[],
    mode: 'strict' | 'lenient',
    known?: ModelDefinition[],
  ): Promise<Plans> {
    const plans: Plans = new Map();
    if (request.keys.length === 0) {
      for (const model of present) plans.set(model.id, null);
      return plans;
    }
    const models = known ?? (await this.store.models.list(reader.workspaceId));
    const bySlug = new Map(models.map((model) => [model.slug, model]));
    const scope: PopulateScope = { modelBySlug: (slug) => bySlug.get(slug), publicOnly: reader.publicOnly };
    if (mode === 'strict') {
      for (const model of present) plans.set(model.id, planPopulate(model, request.keys, scope));
      return plans;
    }
    for (const model of present) plans.set(model.id, emptyLevel());
    for (const key of request.keys) {
      let firstRefusal: Error | null = null;
      let fitted = false;
      for (const model of present) {
        try {
          addPopulateKey(plans.get(model.id)!, model, key, scope);
          fitted = true;
        } catch (error) {
          firstRefusal ??= error as Error;
        }
      }
      if (!fitted && firstRefusal) throw firstRefusal;
    }
    return plans;
  }

  /** The records in the read's shape: every populate path's targets fetched in one query, then written in. */
  private async shape(
    reader: Reader,
    request: ReadRequest,
    plans: Plans,
    records: StoredRecord[],
    models: ModelDefinition[],
  ): Promise<StoredRecord[]> {
    const byId = new Map(models.map((model) => [model.id, model]));
    // Each record's relation values are read once, from its text when they can be (scanRelations), and only for a
    // model with something to populate.
    const sources = new Map<string, RecordData[]>();
    const scans = records.map((record) => {
      const level = plans.get(record.modelId);
      if (!level || isEmptyLevel(level)) return null;
      const scan = scanRelations(record, level);
      let data = sources.get(record.modelId);
      if (!data) sources.set(record.modelId, (data = []));
      data.push(scan?.data ?? readData(record));
      return scan;
    });
    const targets = new Map<PopulateNode, Map<string, StoredRecord>>();
    const assetIds = new Set<string>();
    await Promise.all(
      [...plans].map(([modelId, level]) =>
        level && !isEmptyLevel(level)
          ? this.fetchTargets(reader, level, sources.get(modelId) ?? [], targets, assetIds)
          : undefined,
      ),
    );
    const assets = await this.populatedAssets(reader, assetIds);
    const shaper = new RecordShaper({ locales: request.locales, targets, assets });
    return records.map((record, index) => {
      const model = byId.get(record.modelId);
      return model ? shaper.record(record, model.fields, plans.get(model.id) ?? null, scans[index]) : record;
    });
  }

  /** Fetches the targets of each node of `level` (one query per node), then those of the levels inside them. */
  private async fetchTargets(
    reader: Reader,
    level: PopulateLevel,
    sources: RecordData[],
    targets: Map<PopulateNode, Map<string, StoredRecord>>,
    assetIds: Set<string>,
  ): Promise<void> {
    mediaIds(level, sources, assetIds);
    await Promise.all(
      [...relationIds(level, sources)].map(async ([node, ids]) => {
        const byId = new Map<string, StoredRecord>();
        targets.set(node, byId);
        if (ids.size === 0) return;
        if (ids.size > POPULATE_LIMITS.maxTargetsPerPath) {
          throw fieldError({
            path: `populate.${node.path}`,
            reason: `these records point at ${ids.size} records through it, more than the ${POPULATE_LIMITS.maxTargetsPerPath} one populate path may bring; ask for fewer records`,
          });
        }
        const bound = node.target.hasLargeRecords ? this.maxResponseBytes : null;
        // On the delivery route a target of a model with drafts is its published copy (none: populated as null).
        const source = reader.served && node.target.drafts ? this.store.published : this.store.records;
        const found = await source.getMany(reader.workspaceId, [...ids], {
          modelId: node.target.id,
          maxDataBytes: bound,
          // Written into the answer's text, never changed: records kept between reads may be given.
          shared: true,
        });
        if (found === 'too-large') {
          throw new ServiceError(
            'PAYLOAD_TOO_LARGE',
            `populate.${node.path}: the records it brings hold more data than the ${this.maxResponseBytes} bytes one response may carry; ask for fewer records`,
            { field: 'populate', maxResponseBytes: this.maxResponseBytes },
          );
        }
        // Only records of the field's target model (on the delivery route a public one), whatever the ids say.
        for (const record of found) if (record.modelId === node.target.id) byId.set(record.id, record);
        if (!isEmptyLevel(node.inner)) {
          const inner = [...byId.values()].map((record) => scanRelations(record, node.inner)?.data ?? readData(record));
          await this.fetchTargets(reader, node.inner, inner, targets, assetIds);
        }
      }),
    );
  }

  /** The assets populated media fields hold, as populate writes them; on the delivery route a private one has no url. */
  private async populatedAssets(reader: Reader, ids: Set<string>): Promise<Map<string, PopulatedAsset>> {
    const populated = new Map<string, PopulatedAsset>();
    if (ids.size === 0) return populated;
    if (ids.size > POPULATE_LIMITS.maxTargetsPerPath) {
      throw fieldError({
        path: 'populate',
        reason: `these records hold ${ids.size} assets, more than the ${POPULATE_LIMITS.maxTargetsPerPath} one answer may populate; ask for fewer records`,
      });
    }
    for (const [id, asset] of await this.store.assets.getMany(reader.workspaceId, [...ids])) {
      const { filename, mimeType, width, height, alt, blurhash } = asset;
      const url = reader.publicOnly && asset.access === 'private' ? {} : { url: this.assetUrls.url(asset, reader.origin) };
      populated.set(id, { id, ...url, filename, mimeType, width, height, alt, blurhash });
    }
    return populated;
  }
}
