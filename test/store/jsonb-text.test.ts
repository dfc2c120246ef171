// The copy's checksum hashes a record's data in PostgreSQL's jsonb text form: PostgreSQL prints it over the target,
// and jsonbText makes it from the JSON text SQLite holds. Both must agree byte for byte on every valid JSON text (a
// disagreement fails a good copy): key order by UTF-8 length then bytes, a repeated key, escapes, numbers written
// as numeric writes them (exponents, trailing zeros, -0, digits beyond a double), spaces anywhere.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { jsonbText } from '../../src/store/copy/jsonb-text.js';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import { postgresTarget } from '../support/databases.js';

const pgTarget = await postgresTarget();
if ('failure' in pgTarget) throw new Error(pgTarget.failure);
let client: pg.Client;

before(async () => {
  if (pgTarget.skip) return;
  client = new pg.Client({ connectionString: parsePostgresUrl(process.env.DATABASE_URL!).connectionString });
  await client.connect();
});

after(async () => {
  await client?.end();
});

const NUMBERS = [
  '0',
  '-0',
  '-0.0',
  '0.00',
  '1.0',
  '12.50',
  '1e-7',
  '1E+2',
  '1.20e1',
  '-1e-2',
  '0.5e1',
  '5e-324',
  '-0e5',
  '0e-3',
  '1.7976931348623157e+308',
  '12345678901234567890',
  '10e-1',
  '123.456e-2',
  '-12.3E+4',
  '1e0',
  '9.99e-10',
  '0.1',
];
const STRINGS = [
  'a',
  'b',
  'aa',
  'é',
  'z',
  '',
  'x\\"y',
  '\\u00e9',
  '\\/',
  '\\u001F',
  'tab\\t',
  '€uro',
  '😀',
  '\\ud83d\\ude00',
  'A',
  'a b',
  '\\\\',
  'q\\"',
];
const SPACES = ['', '', '', ' ', '\n', '\t ', '\r\n'];

/** Random JSON texts from a fixed seed: nested objects (repeated and non-ASCII keys) and arrays, spaces between tokens. */
function randomTexts(count: number): string[] {
  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const string = () => `"${pick(STRINGS)}"`;
  const number = () => (random() < 0.5 ? pick(NUMBERS) : String((random() - 0.5) * 10 ** Math.floor(random() * 60 - 30)));
  const value = (depth: number): string => {
    const roll = random();
    if (depth > 3 || roll < 0.4) return pick([number, string, () => 'true', () => 'false', () => 'null'])();
    const parts: string[] = [];
    const size = Math.floor(random() * 6);
    if (roll < 0.7) {
      for (let index = 0; index < size; index++)
        parts.push(`${pick(SPACES)}${string()}${pick(SPACES)}:${pick(SPACES)}${value(depth + 1)}`);
      return `{${parts.join(',')}${pick(SPACES)}}`;
    }
    for (let index = 0; index < size; index++) parts.push(`${pick(SPACES)}${value(depth + 1)}${pick(SPACES)}`);
    return `[${parts.join(',')}${pick(SPACES)}]`;
  };
  return Array.from({ length: count }, () => `${pick(SPACES)}${value(0)}${pick(SPACES)}`);
}

test('jsonbText: the same text as PostgreSQL prints for jsonb, for every JSON text', { skip: pgTarget.skip }, async () => {
  const texts = [
    '{"b":1,"aa":2,"a":{"é":1,"z":"\\u00e9\\/\\u001F"},"":[]}',
    '{"a":1,"a":2,"b":{"x":[],"x":{}}}',
    `[${NUMBERS.join(',')}]`,
    JSON.stringify({ title: 'Trail running shoe #0', sku: 'SKU-1', price: 0.99, stock: 0, tags: ['a', 'b'], n: 1 / 7 }),
    ...randomTexts(5000),
  ];
  const { rows } = await client.query<{ text: string }>(
    'SELECT t::jsonb::text AS text FROM unnest($1::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n',
    [texts],
  );
  const differ = texts.filter((text, index) => jsonbText(text) !== rows[index]!.text);
  assert.deepEqual(differ.slice(0, 5), [], `${differ.length} of ${texts.length} differ`);
});

test('jsonbText: text that is not JSON is refused', () => {
  for (const text of ['', '{', '{"a" 1}', '[1,]', 'tru', '01', '"a', '{"a":1}x', '1.']) {
    assert.throws(() => jsonbText(text), SyntaxError, text);
  }
});
