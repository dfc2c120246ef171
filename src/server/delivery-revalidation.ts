import type { IncomingMessage, OutgoingHttpHeaders, RequestListener, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../ids.js';
import type { GraphQLRequest } from '../graphql/request.js';
import { BoundedMap } from '../shared/bounded-map.js';
import { deepEqual } from '../shared/json.js';
import type { Store, VersionedWorkspace } from '../store/store.js';
import { entityTag, evaluateIfNoneMatch } from './delivery-cache.js';
import { contentTypeFor } from './reply.js';
import { requestLogFields } from './request-log.js';

/** The ETag, Cache-Control and Vary of a delivery answer. */
export interface CacheHeaders {
  etag: string;
  'cache-control': string;
  vary: string;
}

/** The CORS headers of a delivery answer that is not a preflight, for the request's Origin (delivery-route.ts). */
export type CorsHeadersOf = (origin: string | undefined) => readonly (readonly [string, string])[];

/**
 * The revalidation fast path of the delivery route, before Fastify: a GET (or HEAD) with If-None-Match whose URL
 * the route answered before is what that URL was then (the same query, variables, operation and slugs, all found
 * valid), so what is left of the route's work is the version read, the tag (kept per URL and version) and the
 * comparison. A current tag is answered 304 here, with the headers, request id and log line the route gives one;
 * anything else (no match, `*`, an unknown URL, an error) goes to Fastify, and the route decides from scratch.
 */
export class DeliveryRevalidation {
  readonly knownUrls = new KnownUrls();
  /** The version the fast path read, for the route when the copy was not current (not read twice). */
  private readonly versionsRead = new WeakMap<IncomingMessage, VersionedWorkspace>();

  constructor(
    private readonly store: Store,
    private readonly fingerprint: string,
    private readonly cacheControl: string,
    private readonly corsHeadersOf: CorsHeadersOf,
    private readonly logger: FastifyBaseLogger,
  ) {}

  headersOf(known: KnownUrl, versioned: VersionedWorkspace, contentType: string): CacheHeaders {
    return { etag: known.tag(this.fingerprint, versioned, contentType), 'cache-control': this.cacheControl, vary: 'Accept' };
  }

  versionReadFor(request: IncomingMessage): VersionedWorkspace | undefined {
    return this.versionsRead.get(request);
  }

  /**
   * Answers the request 304 when it can; otherwise hands it to `next` (Fastify), at once or once the version is
   * read. True when it took the request (answered it, or will hand it on itself).
   */
  take(request: IncomingMessage, response: ServerResponse, next: RequestListener): boolean {
    const started = performance.now();
    const method = request.method;
    if ((method !== 'GET' && method !== 'HEAD') || request.headers['if-none-match'] === undefined) return false;
    const known = this.knownUrls.get(request.url ?? '');
    if (!known) return false;
    const tenancy = this.store.tenancy;
    try {
      // Known without waiting where the store can (SQLite; PostgreSQL while it is the sole server): the 304 is
      // then sent with no promise.
      const versioned = tenancy.findWorkspaceWithContentVersionSync?.(known.org, known.workspace);
      if (versioned !== undefined) return this.answered(request, response, known, versioned, started);
    } catch {
      return false;
    }
    tenancy.findWorkspaceWithContentVersion(known.org, known.workspace).then(
      (versioned) => {
        if (!this.answered(request, response, known, versioned, started)) next(request, response);
      },
      () => next(request, response),
    );
    return true;
  }

  private answered(
    request: IncomingMessage,
    response: ServerResponse,
    known: KnownUrl,
    versioned: VersionedWorkspace | null,
    started: number,
  ): boolean {
    if (!versioned) return false;
    const cache = this.headersOf(known, versioned, contentTypeFor(request.headers.accept));
    if (evaluateIfNoneMatch(request.headers['if-none-match'], cache.etag) !== 'match') {
      this.versionsRead.set(request, versioned);
      return false;
    }
    this.sendNotModified(request, response, cache, started);
    return true;
  }

  /** The route's 304: x-request-id, the CORS headers, then Cache-Control, ETag and Vary, in that order; its log line. */
  private sendNotModified(request: IncomingMessage, response: ServerResponse, cache: CacheHeaders, started: number): void {
    const requestId = newId();
    const headers: OutgoingHttpHeaders = { 'x-request-id': requestId };
    let vary: string | undefined;
    for (const [name, value] of this.corsHeadersOf(request.headers.origin)) {
      if (name === 'vary') vary = value;
      else headers[name] = value;
    }
    headers['cache-control'] = cache['cache-control'];
    headers.etag = cache.etag;
    headers.vary = vary === undefined ? cache.vary : `${vary}, ${cache.vary}`;
    // As Fastify's HEAD routes answer (a cache does not take Content-Length from a 304: RFC 9111 §3.2).
    if (request.method === 'HEAD') headers['content-length'] = '0';
    // The line Fastify's requests get (app.ts), with the request id its child logger would add.
    response.once('finish', () => {
      const fields = requestLogFields(request.method, request.url ?? '', 304, performance.now() - started);
      this.logger.info({ requestId, ...fields }, 'request');
    });
    response.writeHead(304, headers);
    response.end();
  }
}

/**
 * What a GET's URL asks, once the route has read it whole: its request parsed, validated as a query of this schema,
 * and its slugs checked. The URL decides all of that, so a later request with the same URL needs none of it again.
 * Keeps the tag it last made, with the version and content type it was made from.
 */
export class KnownUrl {
  private lastVersioned: VersionedWorkspace | null = null;
  private lastContentType = '';
  private lastTag = '';

  constructor(
    readonly org: string,
    readonly workspace: string,
    private readonly request: GraphQLRequest,
  ) {}

  tag(fingerprint: string, versioned: VersionedWorkspace, contentType: string): string {
    // The same object on SQLite (the store hands out the one it keeps until the database changes); an equal one
    // (a new row read) on PostgreSQL. Equal workspaces have the same JSON: the row mapper builds them in one key order.
    const last = this.lastVersioned;
    if (
      last === null ||
      contentType !== this.lastContentType ||
      (versioned !== last &&
        (versioned.contentVersion !== last.contentVersion || !deepEqual(versioned.workspace, last.workspace)))
    ) {
      this.lastTag = entityTag(fingerprint, versioned, this.request, contentType);
      this.lastContentType = contentType;
    }
    this.lastVersioned = versioned;
    return this.lastTag;
  }
}

/** Known URLs (see KnownUrl), the most recently learnt 1000 of them up to 4 KB each. */
export class KnownUrls {
  private readonly entries = new BoundedMap<string, KnownUrl>(1000);

  get(url: string): KnownUrl | undefined {
    return this.entries.get(url);
  }

  remember(url: string, known: KnownUrl): void {
    if (url.length > 4096) return;
    this.entries.set(url, known);
  }
}
