import { createRequire } from 'node:module';
import { BoundedMap } from '../shared/bounded-map.js';

/** What the router makes of a query string: every parameter once as a string, a repeated one as an array. */
export type ParsedQuerystring = Record<string, string | string[]>;

/**
 * The router's own query-string parser (Fastify's router, find-my-way, parses with fast-querystring): reached
 * through find-my-way's dependencies, so that a cached answer is exactly the one the router would have made.
 */
export function routerQuerystringParser(): (query: string) => ParsedQuerystring {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  const fromRouter = createRequire(fromFastify.resolve('find-my-way'));
  return (fromRouter('fast-querystring') as { parse: (query: string) => ParsedQuerystring }).parse;
}

/**
 * The router's query-string parsing with the most recently parsed `maxEntries` query strings (up to `maxLength`
 * characters each) kept: a query string seen again is answered with a copy of what it was parsed into. Delivery
 * GETs repeat their URL (caches revalidate it), and their query strings are long and percent-encoded, so parsing
 * is the largest single cost of a 304 (about a quarter of its instructions). Each request gets its own copy (its
 * arrays too), so what one request does to its `request.query` is not seen by another. An empty query string is
 * `{}`, as the router's default parser makes it.
 */
export function cachingQuerystringParser(
  parse: (query: string) => ParsedQuerystring,
  { maxEntries = 1000, maxLength = 4096 }: { maxEntries?: number; maxLength?: number } = {},
): (query: string) => ParsedQuerystring {
  const kept = new BoundedMap<string, ParsedQuerystring>(maxEntries);
  return (query) => {
    if (query.length === 0) return {};
    if (query.length > maxLength) return parse(query);
    let parsed = kept.get(query);
    if (parsed === undefined) {
      parsed = parse(query);
      kept.set(query, parsed);
    }
    return copyOf(parsed);
  };
}

/** A copy with the same prototype (fast-querystring's objects have none but an empty one) and the same keys in order. */
function copyOf(parsed: ParsedQuerystring): ParsedQuerystring {
  const copy = Object.create(Object.getPrototypeOf(parsed) as object | null) as ParsedQuerystring;
  for (const key of Object.keys(parsed)) {
    const value = parsed[key]!;
    copy[key] = Array.isArray(value) ? value.slice() : value;
  }
  return copy;
}
