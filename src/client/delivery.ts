// The delivery client: reads published content from `/public/{org}/{workspace}/graphql` with no token, for
// storefront code in browsers and in Node 20 (global fetch). Queries go by GET, so a CDN or the browser's cache can
// keep them (ETag, 304); a query whose URL would be too long goes by POST. With `preview` (and a token of the
// workspace) it reads working copies instead, for previews of drafts; only those requests carry the token.
import { readByIds } from './by-ids.js';
import { ContentServiceError } from './errors.js';
import {
  abortedError,
  answerData,
  DEFAULT_TIMEOUT_MS,
  isTransientFailure,
  noAnswerError,
  READ_RETRIES,
  readRetryDelayMs,
  sleep,
} from './http.js';
import type { JsonObject, ModelDefinition, PopulatePaths, RecordFilter, RecordSort, RecordStatus } from './types.js';

/** The hosted service's SDK sends these two documents; they are copied from delivery.md as they are. */
export const PUBLIC_MODEL_DEFINITIONS = `query PublicModelDefinitions($workspaceId: String!) {
  public { model { definitions(workspaceId: $workspaceId) {
    id name slug description icon color displayField recordCount } } }
}`;

export const PUBLIC_MODEL_RECORDS = `query PublicModelRecords($workspaceId: String!, $modelSlug: String!, $filter: JSON, $sort: String,
                         $locale: String, $limit: Int, $offset: Int, $populate: [String!]) {
  public { model { records(workspaceId: $workspaceId, modelSlug: $modelSlug, filter: $filter, sort: $sort,
                           locale: $locale, limit: $limit, offset: $offset, populate: $populate) {
    items { id modelId data status createdAt updatedAt } total hasMore } } }
}`;

const DELIVERY_RECORD_FIELDS = 'id modelId data status createdAt updatedAt';

const PUBLIC_MODEL_RECORDS_BY_IDS = `query PublicModelRecordsByIds($workspaceId: String!, $modelSlug: String!, $ids: [ID!]!,
                                $locale: String, $populate: [String!]) {
  public { model { recordsByIds(workspaceId: $workspaceId, modelSlug: $modelSlug, ids: $ids, locale: $locale,
                                populate: $populate) { ${DELIVERY_RECORD_FIELDS} } } }
}`;

const PUBLIC_MODEL_RECORD = `query PublicModelRecord($workspaceId: String!, $modelSlug: String!, $id: ID!, $locale: String,
                         $populate: [String!]) {
  public { model { record(workspaceId: $workspaceId, modelSlug: $modelSlug, id: $id, locale: $locale,
                          populate: $populate) { ${DELIVERY_RECORD_FIELDS} } } }
}`;

/** The longest URL sent by GET (the query in the query string); a longer request goes by POST. */
export const MAX_GET_URL_LENGTH = 8 * 1024;

/** The most ids one `recordsByIds` call takes; the client sends more in several calls. */
export const MAX_IDS_PER_DELIVERY_CALL = 100;

export interface DeliveryClientOptions {
  /** The delivery endpoint, e.g. `https://cms.example.com/public/acme/main/graphql` (or give baseUrl, org, workspace). */
  url?: string;
  /** Base URL of the service, e.g. `https://cms.example.com`. */
  baseUrl?: string;
  /** The organisation's slug. */
  org?: string;
  /** The workspace's slug. */
  workspace?: string;
  /**
   * The workspace's id, when known: then `definitions` and `records` send the hosted SDK's documents as they are,
   * and the server checks that the id is the workspace's. Without it the same documents are sent with
   * `$workspaceId` optional and left out.
   */
  workspaceId?: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /** Extra headers sent with every request (a header other than `accept` makes browsers send a CORS preflight). */
  headers?: Record<string, string>;
  /** Time allowed for one HTTP exchange, in ms (default 120 s). */
  timeoutMs?: number;
  /** Cancels every request of the client. */
  signal?: AbortSignal;
  /** How often a request is sent again after no answer or a 5xx (default 3, with back-off). */
  retries?: number;
  /** Longest GET URL; a longer request goes by POST (default 8 KB). */
  maxGetUrlLength?: number;
  /**
   * Read working copies (statuses `draft` and `changed` included) instead of published copies: `preview: true` on
   * every `records`, `record` and `recordsByIds` (and so `findOne`, `allRecords`) of the client, unless a call says
   * otherwise. Needs `token`: without a valid one the server answers 401 (UNAUTHENTICATED). Default false.
   */
  preview?: boolean;
  /**
   * An API token of the workspace (any role), sent as `Authorization: Bearer …` with the requests that ask for
   * preview, and only with those: published reads stay anonymous, so caches keep them.
   */
  token?: string;
}

/** A published model, as the hosted SDK reads it: these parts of its definition. */
export type PublicModelDefinition = Pick<
  ModelDefinition,
  'id' | 'name' | 'slug' | 'description' | 'icon' | 'color' | 'displayField' | 'recordCount'
>;

/**
 * A record as the delivery route serves it. `status` is `published` for a published copy (also every record of a
 * model without drafts); a preview read answers working copies, so also `draft` and `changed`. A server from
 * before drafts answers null.
 */
export interface DeliveryRecord {
  id: string;
  modelId: string;
  data: JsonObject;
  status: RecordStatus | null;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryRecordList {
  items: DeliveryRecord[];
  total: number;
  hasMore: boolean;
}

export interface DeliveryReadOptions {
  /** Every translatable value becomes the string for this locale (`de-AT`, else `de`, else the workspace default). */
  locale?: string;
  /** Relation fields to replace by their records (`['category', 'category.parent']`, depth at most 3). */
  populate?: PopulatePaths;
  /** This call's preview (working copies), instead of the client's `preview` option. */
  preview?: boolean;
  signal?: AbortSignal;
}

export interface DeliveryListOptions extends DeliveryReadOptions {
  filter?: RecordFilter;
  sort?: RecordSort;
  /** At most 100 (default 20). */
  limit?: number;
  offset?: number;
}

export interface DeliveryAllOptions extends Omit<DeliveryListOptions, 'limit' | 'offset'> {
  /** Records per request, at most 100 (default 100). */
  pageSize?: number;
}

export interface DeliveryRequestOptions {
  operationName?: string;
  signal?: AbortSignal;
}

/** Reads published content of one workspace. */
export class DeliveryClient {
  /** The delivery endpoint used (`…/public/{org}/{workspace}/graphql`). */
  readonly url: string;
  private readonly options: DeliveryClientOptions;
  private readonly fetchImpl: typeof fetch;

  constructor(options: DeliveryClientOptions) {
    this.url = deliveryUrl(options);
    this.options = options;
    if (!options.fetch && typeof globalThis.fetch !== 'function') {
      throw new ContentServiceError('fetch: no global fetch here; pass one in the options', {
        code: 'BAD_USER_INPUT',
        field: 'fetch',
      });
    }
    // Bound: the global fetch called as a method of another object throws "Illegal invocation" in browsers.
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The workspace's published models. */
  async definitions(options: { signal?: AbortSignal } = {}): Promise<PublicModelDefinition[]> {
    const data = await this.send<{ public: { model: { definitions: PublicModelDefinition[] } } }>(
      'PublicModelDefinitions',
      PUBLIC_MODEL_DEFINITIONS,
      {},
      options.signal,
    );
    return data.public.model.definitions;
  }

  /** One page of a model's records: filtered, sorted, in one locale, with relations populated. */
  async records(modelSlug: string, options: DeliveryListOptions = {}): Promise<DeliveryRecordList> {
    const { signal, ...args } = options;
    const data = await this.send<{ public: { model: { records: DeliveryRecordList } } }>(
      'PublicModelRecords',
      PUBLIC_MODEL_RECORDS,
      { modelSlug, ...args },
      signal,
    );
    return data.public.model.records;
  }

  /** Records by id, in the order of `ids`, `null` where none is published. Any number of ids. */
  async recordsByIds(
    modelSlug: string,
    ids: readonly string[],
    options: DeliveryReadOptions = {},
  ): Promise<(DeliveryRecord | null)[]> {
    if (!Array.isArray(ids)) {
      throw new ContentServiceError('ids: expected an array of ids', { code: 'BAD_USER_INPUT', field: 'ids' });
    }
    const { signal, ...args } = options;
    return readByIds(ids, MAX_IDS_PER_DELIVERY_CALL, async (chunk) => {
      const data = await this.send<{ public: { model: { recordsByIds: (DeliveryRecord | null)[] } } }>(
        'PublicModelRecordsByIds',
        PUBLIC_MODEL_RECORDS_BY_IDS,
        { modelSlug, ids: chunk, ...args },
        signal,
      );
      return data.public.model.recordsByIds;
    });
  }

  /** One record by id, or null. */
  async record(modelSlug: string, id: string, options: DeliveryReadOptions = {}): Promise<DeliveryRecord | null> {
    const { signal, ...args } = options;
    const data = await this.send<{ public: { model: { record: DeliveryRecord | null } } }>(
      'PublicModelRecord',
      PUBLIC_MODEL_RECORD,
      { modelSlug, id, ...args },
      signal,
    );
    return data.public.model.record;
  }

  /** The first record that matches (in `sort` order), or null: `findOne('product', { slug: 'red-shoe' })`. */
  async findOne(
    modelSlug: string,
    filter: RecordFilter,
    options: DeliveryReadOptions & { sort?: RecordSort } = {},
  ): Promise<DeliveryRecord | null> {
    const page = await this.records(modelSlug, { ...options, filter, limit: 1 });
    return page.items[0] ?? null;
  }

  /** Every matching record, page by page (offset paging until `hasMore` is false or a page comes back empty). */
  async *allRecords(modelSlug: string, options: DeliveryAllOptions = {}): AsyncGenerator<DeliveryRecord> {
    const { pageSize, ...rest } = options;
    const limit = Math.min(100, Math.max(1, pageSize ?? 100));
    for (let offset = 0; ;) {
      const page = await this.records(modelSlug, { ...rest, limit, offset });
      for (const item of page.items) yield item;
      offset += page.items.length;
      if (!page.hasMore || page.items.length === 0) return;
    }
  }

  /** Any query of the delivery schema (by GET, or POST when long); returns `data`. */
  request<T = unknown>(query: string, variables: Record<string, unknown> = {}, options: DeliveryRequestOptions = {}): Promise<T> {
    return this.sendWithRetries<T>(options.operationName ?? 'request', query, variables, options.operationName, options.signal);
  }

  /**
   * A document whose `$workspaceId` is declared `String!`: sent as is with the id, or with it optional and left out.
   * A read of records asking for preview gets `$preview` (declared and passed to the field) and the token; one that
   * does not is sent exactly as before, without `preview` and without the token.
   */
  private send<T>(operationName: string, query: string, variables: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    const workspaceId = this.options.workspaceId;
    const { preview: asked, ...rest } = variables;
    const preview = operationName !== 'PublicModelDefinitions' && (asked ?? this.options.preview) === true;
    let document = workspaceId === undefined ? query.replace('$workspaceId: String!', '$workspaceId: String') : query;
    if (preview) document = withPreview(document);
    const withId = workspaceId === undefined ? rest : { workspaceId, ...rest };
    return this.sendWithRetries<T>(
      operationName,
      document,
      preview ? { ...withId, preview } : withId,
      operationName,
      signal,
      preview,
    );
  }

  private async sendWithRetries<T>(
    operation: string,
    query: string,
    variables: Record<string, unknown>,
    operationName: string | undefined,
    callSignal: AbortSignal | undefined,
    preview = false,
  ): Promise<T> {
    const signals = [this.options.signal, callSignal].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : anySignal(signals);
    const retries = this.options.retries ?? READ_RETRIES;
    for (let failures = 0; ;) {
      try {
        return await this.once<T>(operation, query, definedOnly(variables), operationName, signal, preview);
      } catch (error) {
        if (!(error instanceof ContentServiceError) || !isTransientFailure(error) || failures >= retries) throw error;
        failures += 1;
        await sleep(readRetryDelayMs(failures), signal);
      }
    }
  }

  private async once<T>(
    operation: string,
    query: string,
    variables: Record<string, unknown>,
    operationName: string | undefined,
    signal: AbortSignal | undefined,
    preview: boolean,
  ): Promise<T> {
    if (signal?.aborted) throw abortedError(signal);
    const token: Record<string, string> = preview && this.options.token ? { authorization: `Bearer ${this.options.token}` } : {};
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const getUrl = queryUrl(this.url, query, variables, operationName);
    const byGet = getUrl.length <= (this.options.maxGetUrlLength ?? MAX_GET_URL_LENGTH);
    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(byGet ? getUrl : this.url, {
        method: byGet ? 'GET' : 'POST',
        // Only `accept` on a GET: a simple request, so browsers send no CORS preflight and may cache the answer.
        headers: byGet
          ? { accept: 'application/json', ...this.options.headers, ...token }
          : { accept: 'application/json', 'content-type': 'application/json', ...this.options.headers, ...token },
        ...(byGet ? {} : { body: JSON.stringify({ query, variables, ...(operationName ? { operationName } : {}) }) }),
        signal: signal ? anySignal([signal, timeout]) : timeout,
      });
      text = await response.text();
    } catch (cause) {
      throw noAnswerError(cause, { operation, url: this.url, signal, timeout, timeoutMs, write: false });
    }
    return answerData<T>(response, text, operation, this.url);
  }
}

/** `new DeliveryClient(options)`. */
export function createDeliveryClient(options: DeliveryClientOptions): DeliveryClient {
  return new DeliveryClient(options);
}

/** The endpoint from `url`, or from `baseUrl`, `org` and `workspace`. */
export function deliveryUrl(options: DeliveryClientOptions): string {
  if (options.url) return options.url;
  for (const name of ['baseUrl', 'org', 'workspace'] as const) {
    if (!options[name]) {
      throw new ContentServiceError(`${name}: required (or give url, the whole delivery endpoint)`, {
        code: 'BAD_USER_INPUT',
        field: name,
      });
    }
  }
  const base = options.baseUrl!.replace(/\/+$/, '');
  return `${base}/public/${encodeURIComponent(options.org!)}/${encodeURIComponent(options.workspace!)}/graphql`;
}

/** The document with `preview: $preview` on its one records field (each of these documents ends its arguments with populate). */
function withPreview(query: string): string {
  return query
    .replace('$populate: [String!])', '$populate: [String!], $preview: Boolean)')
    .replace('populate: $populate)', 'populate: $populate, preview: $preview)');
}

/** GraphQL over HTTP's GET form; the parameters always in the same order, so equal requests have equal URLs. */
function queryUrl(url: string, query: string, variables: Record<string, unknown>, operationName: string | undefined): string {
  const parameters = new URLSearchParams({ query });
  if (Object.keys(variables).length > 0) parameters.set('variables', canonicalJson(variables));
  if (operationName) parameters.set('operationName', operationName);
  return `${url}${url.includes('?') ? '&' : '?'}${parameters.toString()}`;
}

/**
 * JSON with every object's keys in sorted order (arrays keep theirs): equal reads give equal URLs, so a CDN and
 * the server's ETags see one request however the caller ordered its options or its filter's keys.
 */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** Variables without the options left undefined (an absent nullable variable is null to GraphQL). */
function definedOnly(variables: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(variables).filter(([, value]) => value !== undefined));
}

/** AbortSignal.any where the browser has it (Safari before 17.4 does not). */
function anySignal(signals: AbortSignal[]): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any(signals);
  const controller = new AbortController();
  for (const signal of signals) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}
