// HTTP caching of the delivery route: the entity tag of an answer, If-None-Match, Cache-Control.
// The decisions (what the tag is made of, what errors get, POST) are in docs/decisions.md#delivery-caching.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { printSchema, type GraphQLSchema } from 'graphql';
import type { GraphQLRequest } from '../graphql/request.js';
import type { VersionedWorkspace } from '../store/store.js';

/** Errors, refusals and anything else that is not an answer caches may keep. */
export const NO_STORE = 'no-store';

/**
 * `public, max-age=0, must-revalidate` by default: browsers and shared caches keep the answer but ask again every
 * time (cheaply: a 304). With `maxAgeSeconds` > 0 shared caches (a CDN) serve it for that long without asking, and
 * as long again while they revalidate it in the background; browsers still ask every time.
 */
export function deliveryCacheControl(maxAgeSeconds: number): string {
  return maxAgeSeconds > 0
    ? `public, max-age=0, s-maxage=${maxAgeSeconds}, stale-while-revalidate=${maxAgeSeconds}`
    : 'public, max-age=0, must-revalidate';
}

const { version: SERVICE_VERSION } = createRequire(import.meta.url)('../../package.json') as { version: string };

/**
 * What, besides the content and the request, makes the answer: the service's version and the delivery schema.
 * The same in every process of one release, so processes behind one load balancer agree on tags.
 */
export function answerFingerprint(schema: GraphQLSchema): string {
  return createHash('sha256').update(SERVICE_VERSION).update('\n').update(printSchema(schema)).digest('base64url');
}

/**
 * The strong entity tag of a delivery answer: a digest of everything the answer's bytes are made from — the
 * workspace (its settings) and its content version, the request's query, variables and operation name, the
 * content type, and the release. The same inputs make the same bytes (answers are in a fixed order), so the tag
 * is known before anything runs, and a revalidation that finds it current runs nothing.
 */
export function entityTag(
  fingerprint: string,
  versioned: VersionedWorkspace,
  request: GraphQLRequest,
  contentType: string,
): string {
  const parts = [
    fingerprint,
    versioned.workspace,
    versioned.contentVersion,
    contentType,
    request.query,
    request.variables,
    request.operationName ?? null,
  ];
  return `"${createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 32)}"`;
}

/**
 * If-None-Match (RFC 9110 §13.1.2) against the current tag, with weak comparison (`W/"x"` matches `"x"`):
 * `match` when one of the listed tags is the current one, `any` for `*`, `none` when the header is absent or lists
 * only other tags (a malformed header lists none).
 */
export function evaluateIfNoneMatch(header: string | string[] | undefined, currentTag: string): 'match' | 'any' | 'none' {
  if (header === undefined) return 'none';
  // What a cache sends back most often: the tag it was given, alone.
  if (header === currentTag) return 'match';
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return 'any';
  const current = currentTag.slice(1, -1);
  for (const [, opaque] of value.matchAll(LISTED_TAG)) {
    if (opaque === current) return 'match';
  }
  return 'none';
}

/** One entity tag of a list, weak or strong; its opaque part in group 1. */
const LISTED_TAG = /(?:W\/)?"([^"]*)"/g;
