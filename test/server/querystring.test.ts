// The router's query-string parsing with repeated query strings kept (src/server/querystring.ts): the same
// objects as the router's own parser makes, a fresh copy for every request, and a bound on what is kept.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cachingQuerystringParser, routerQuerystringParser } from '../../src/server/querystring.js';

const parse = routerQuerystringParser();

const QUERY_STRINGS = [
  'query=%7B+public+%7B+model+%7B+records%28modelSlug%3A+%22product%22%29+%7B+total+%7D+%7D+%7D+%7D&variables=%7B%7D',
  'a=1&a=2&a=3&b=x+y&c=',
  '__proto__=polluted&constructor=x&toString=y',
  'bad=%E0%A4%A&ok=%20',
  '2=two&1=one&z=last',
  '&&=&x',
];

describe('query-string cache', () => {
  test('query-string cache: a string seen again is answered as the router parses it — same prototype, keys, order and values', () => {
    const cached = cachingQuerystringParser(parse);
    for (const query of QUERY_STRINGS) {
      for (let round = 0; round < 3; round++) {
        const expected = parse(query);
        const actual = cached(query);
        assert.equal(Object.getPrototypeOf(actual), Object.getPrototypeOf(expected), query);
        assert.deepEqual(Reflect.ownKeys(actual), Reflect.ownKeys(expected), query);
        for (const key of Object.keys(expected)) assert.deepEqual(actual[key], expected[key], `${query}: ${key}`);
      }
    }
    assert.equal(({} as { polluted?: unknown }).polluted, undefined, 'nothing reached Object.prototype');
    assert.deepEqual(cached(''), {});
    assert.equal(Object.getPrototypeOf(cached('')), Object.prototype, 'an empty query string is {}, as the router has it');
  });

  test('query-string cache: every call gets its own copy — what one request changes in its query is not seen by the next', () => {
    const cached = cachingQuerystringParser(parse);
    const first = cached('a=1&a=2&b=x');
    (first.a as string[]).push('3');
    first.b = 'changed';
    delete first.a;
    const second = cached('a=1&a=2&b=x');
    assert.notEqual(second, first);
    assert.deepEqual({ ...second }, { a: ['1', '2'], b: 'x' });
  });

  test('query-string cache: at most maxEntries strings are kept, the oldest dropped first; longer ones than maxLength are parsed each time', () => {
    let parses = 0;
    const counting = (query: string) => {
      parses++;
      return parse(query);
    };
    const cached = cachingQuerystringParser(counting, { maxEntries: 2, maxLength: 10 });
    cached('a=1');
    cached('b=2');
    cached('a=1');
    assert.equal(parses, 2, 'a repeated string is not parsed again');
    cached('c=3'); // drops a=1, the oldest
    cached('b=2');
    assert.equal(parses, 3);
    cached('a=1');
    assert.equal(parses, 4, 'the dropped string is parsed again');
    cached('long=123456');
    cached('long=123456');
    assert.equal(parses, 6, 'a string over maxLength is never kept');
  });
});
