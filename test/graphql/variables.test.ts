// The quick variable coercion (src/graphql/variables.ts) gives graphql-js's coerced values whenever it gives any,
// and gives up (null) whenever graphql-js would report an error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSchema, getOperationAST, getVariableValues, parse } from 'graphql';
import { buildAdminSchema } from '../../src/graphql/admin/schema.js';
import { coerceVariablesQuickly } from '../../src/graphql/variables.js';

const schema = buildSchema(/* GraphQL */ `
  scalar JSON
  enum Colour {
    RED
    GREEN
  }
  input Inner {
    n: Int!
    tags: [String!]
    deep: Inner
  }
  input Outer {
    id: ID!
    name: String
    ratio: Float
    flag: Boolean
    colour: Colour
    inner: Inner
    list: [Inner]
    data: JSON
    withDefault: Int = 7
  }
  type Query {
    f(a: Outer, b: [Int], c: JSON, d: String, e: ID!): Int
  }
`);

const DOCUMENT = 'query ($a: Outer, $b: [Int], $c: JSON, $d: String, $e: ID!) { f(a: $a, b: $b, c: $c, d: $d, e: $e) }';

function check(variables: Record<string, unknown>, expectQuick: boolean, document = DOCUMENT, onSchema = schema) {
  const operation = getOperationAST(parse(document))!;
  const reference = getVariableValues(onSchema, operation.variableDefinitions ?? [], variables);
  const quick = coerceVariablesQuickly(onSchema, operation, variables);
  if (quick === null) {
    assert.equal(expectQuick, false, `quick path gave up on ${JSON.stringify(variables)}`);
    return;
  }
  assert.ok(!reference.errors, `graphql-js refuses ${JSON.stringify(variables)} but the quick path accepted it`);
  assert.deepEqual(quick, reference.coerced);
  assert.deepEqual(Object.keys(quick), Object.keys(reference.coerced!));
  assert.equal(JSON.stringify(quick), JSON.stringify(reference.coerced));
}

test('quick variable coercion: well-formed values come out as graphql-js coerces them', () => {
  check({ e: 'x' }, true);
  check({ e: 12 }, true);
  check({ e: 'x', a: null, b: null, c: null, d: null }, true);
  check(
    { e: 'x', a: { id: 5, name: 'n', ratio: 2, flag: false, colour: 'RED', inner: { n: 1, tags: ['t'], deep: { n: 2 } } } },
    true,
  );
  check({ e: 'x', a: { inner: { n: 3 }, id: 'i', list: [{ n: 1 }, null, { n: 2, tags: 'single' }] } }, true);
  check({ e: 'x', a: { id: 'i', withDefault: null, data: { any: ['json', 1, null] } } }, true);
  check({ e: 'x', b: [1, 2, 3], c: [{ x: 1 }, 'y'], d: 'text' }, true);
  check({ e: 'x', b: 4 }, true);
});

test('quick variable coercion: gives up wherever graphql-js reports an error', () => {
  const bad: Record<string, unknown>[] = [
    {},
    { e: null },
    { e: 1.5 },
    { e: true },
    { e: 'x', a: { name: 'no id' } },
    { e: 'x', a: { id: 'i', unknown: 1 } },
    { e: 'x', a: { id: 'i', ratio: 'NaN' } },
    { e: 'x', a: { id: 'i', colour: 'BLUE' } },
    { e: 'x', a: { id: 'i', inner: { n: 2 ** 31 } } },
    { e: 'x', a: { id: 'i', inner: { n: 1, tags: [null] } } },
    { e: 'x', a: [] },
    { e: 'x', a: 'not an object' },
    { e: 'x', b: ['one'] },
    { e: 'x', b: [1.5] },
    { e: 'x', d: 5 },
    { e: 'x', d: { text: true } },
  ];
  for (const variables of bad) check(variables, false);
});

test('quick variable coercion: defaults of variables are left to graphql-js', () => {
  check({}, false, 'query ($d: String = "default") { f(d: $d, e: "x") }');
  check({ d: 'given' }, false, 'query ($d: String = "default") { f(d: $d, e: "x") }');
});

test('quick variable coercion: the admin API record writes and imports', () => {
  const admin = buildAdminSchema();
  const rows = Array.from({ length: 50 }, (_, index) => ({ title: `t${index}`, price: index }));
  check(
    { input: { modelId: 'm', rows } },
    true,
    'mutation ($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount } } }',
    admin,
  );
  check(
    { input: { modelId: 'm', rows: [...rows, null] } },
    false,
    'mutation ($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount } } }',
    admin,
  );
  check(
    { input: { modelId: 'm', data: { title: 'x' } } },
    true,
    'mutation ($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }',
    admin,
  );
  check(
    { input: { modelId: 'm' } },
    false,
    'mutation ($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }',
    admin,
  );
  check(
    { model: 'm', offset: 10 },
    true,
    'query ($model: ID!, $offset: Int) { record { list(modelId: $model, offset: $offset) { total } } }',
    admin,
  );
});
