// The compiled execution path must answer exactly as graphql-js does: same data, same errors with the same paths,
// in the same order, as JSON text. Each document runs both ways on one schema whose resolvers return values,
// promises, nulls, errors and Error values, and the two answers are compared as text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  buildSchema,
  execute,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  parse,
  validate,
  type GraphQLSchema,
} from 'graphql';
import { compiledOperation } from '../../src/graphql/compiled-execute.js';
import { JsonText } from '../../src/domain/json-text.js';

const SDL = /* GraphQL */ `
  scalar JSON
  type Query {
    hello(name: String = "world"): String!
    item(id: ID!): Item
    items(count: Int!): [Item!]!
    maybeItems: [Item]
    slowItems: [Item!]!
    failing: String
    failingNonNull: String!
    failingDeep: Wrapper
    notAList: [Int]
    badInt: Int
    json: JSON
    promisedList: [String]
    nested: [[Int!]]
    method(x: Int!): Int
    error: String
  }
  type Wrapper {
    inner: Inner!
    other: String
  }
  type Inner {
    value: String!
    boom: String!
  }
  type Item {
    id: ID!
    name: String
    tags: [String!]
    child: Item
    asyncName: String
    failingName: String!
  }
  type Mutation {
    first: Int!
    second: Int!
    failing: Int!
    third: Int
  }
`;

function makeSchema(log: string[]): GraphQLSchema {
  const schema = buildSchema(SDL);
  const item = (id: number) => ({
    id: String(id),
    name: id % 3 === 0 ? null : `item ${id}`,
    tags: id % 2 ? ['a', 'b'] : null,
    child: id < 3 ? { id: String(id + 10), name: 'child' } : null,
  });
  const query = schema.getQueryType()!.getFields();
  query.hello!.resolve = (_s, args: { name: string }) => `hello ${args.name}`;
  query.item!.resolve = async (_s, args: { id: string }) => (args.id === 'none' ? null : item(Number(args.id)));
  query.items!.resolve = (_s, args: { count: number }) => Array.from({ length: args.count }, (_, index) => item(index));
  query.maybeItems!.resolve = () => [item(1), null, Promise.resolve(item(2)), Promise.reject(new Error('item failed'))];
  query.slowItems!.resolve = () => [Promise.resolve(item(4)), Promise.resolve({ id: '5', failingName: null })];
  query.failing!.resolve = () => {
    throw new Error('nullable failed');
  };
  query.failingNonNull!.resolve = async () => {
    throw new Error('non-null failed');
  };
  query.failingDeep!.resolve = () => ({ inner: { value: 'v', boom: () => Promise.reject(new Error('deep')) }, other: 'o' });
  query.notAList!.resolve = () => 42;
  query.badInt!.resolve = () => 'abc';
  query.json!.resolve = () => ({ plain: [1, 'two', { three: null }], text: new JsonText('{"raw":[1,2]}') });
  query.promisedList!.resolve = () => Promise.resolve(['x', Promise.resolve('y'), null]);
  query.nested!.resolve = () => [[1, 2], null, [3, null as unknown as number], [4]];
  query.method!.resolve = (source: { times: (args: { x: number }) => number }, args: { x: number }) => source.times(args);
  query.error!.resolve = () => new Error('returned, not thrown');
  const itemFields = schema.getType('Item') as import('graphql').GraphQLObjectType;
  itemFields.getFields().asyncName!.resolve = async (source: { name: string | null }) => source.name?.toUpperCase() ?? null;
  itemFields.getFields().failingName!.resolve = (source: { id: string }) => {
    if (source.id === '5') throw new GraphQLError('refused', { extensions: { code: 'X' } });
    return `ok ${source.id}`;
  };
  const mutation = schema.getMutationType()!.getFields();
  let counter = 0;
  const step =
    (name: string, fail = false) =>
    async () => {
      log.push(`start ${name}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.push(`end ${name}`);
      if (fail) throw new Error(`${name} failed`);
      return ++counter;
    };
  mutation.first!.resolve = step('first');
  mutation.second!.resolve = step('second');
  mutation.failing!.resolve = step('failing', true);
  mutation.third!.resolve = step('third');
  return schema;
}

async function both(query: string, variables: Record<string, unknown> = {}) {
  const referenceLog: string[] = [];
  const compiledLog: string[] = [];
  const reference = makeSchema(referenceLog);
  const compiledSchema = makeSchema(compiledLog);
  const document = parse(query);
  assert.deepEqual(validate(reference, document), [], 'the test document is valid');
  const operation = getOperationAST(document)!;
  const rootValue = { times: ({ x }: { x: number }) => x * 2 };
  const result = await execute({ schema: reference, document, variableValues: variables, rootValue });
  const expected = JSON.stringify({
    data: result.data ?? null,
    ...(result.errors ? { errors: result.errors.map((error) => ({ message: error.message, path: error.path })) } : {}),
  });
  const plan = compiledOperation(compiledSchema, document, operation);
  assert.ok(plan, 'the operation compiles');
  const coerced = getVariableValues(compiledSchema, operation.variableDefinitions ?? [], variables);
  assert.ok(!coerced.errors);
  const { data, errors } = await plan.run(undefined, coerced.coerced, rootValue);
  const errorsJson = errors.length
    ? `,"errors":${JSON.stringify(errors.map((error) => ({ message: error.message, path: error.path })))}`
    : '';
  const actual = `{"data":${data}${errorsJson}}`;
  assert.deepEqual(JSON.parse(actual), JSON.parse(expected));
  assert.equal(actual, expected);
  assert.deepEqual(compiledLog, referenceLog);
  return actual;
}

test('compiled execution: fields, arguments, defaults, aliases and merged selections', async () => {
  await both('{ hello a: hello(name: "you") item(id: "1") { id name } b: item(id: "none") { id } }');
  await both('{ items(count: 4) { id name tags child { id name child { id } } } }');
  await both('{ items(count: 3) { id x: name } items(count: 3) { name tags } }');
  await both('query ($n: Int!, $who: String) { items(count: $n) { id } hello(name: $who) }', { n: 2, who: 'var' });
  await both('{ method(x: 21) }');
});

test('compiled execution: fragments, inline fragments and __typename', async () => {
  await both(`
    query { __typename item(id: "2") { ...F ... on Item { tags } ... { __typename } } }
    fragment F on Item { id name child { ...G } }
    fragment G on Item { id __typename }
  `);
});

test('compiled execution: promises in fields and lists', async () => {
  await both('{ item(id: "1") { asyncName child { asyncName } } promisedList }');
  await both('{ maybeItems { id name asyncName } }');
});

test('compiled execution: errors, null propagation and their paths', async () => {
  await both('{ hello failing }');
  await both('{ hello failingNonNull }');
  await both('{ failingDeep { other inner { value boom } } hello }');
  await both('{ slowItems { id failingName } hello }');
  await both('{ items(count: 2) { failingName } }');
  await both('{ notAList badInt hello }');
  await both('{ nested error }');
});

test('compiled execution: JSON values, and JSON text copied as it is', async () => {
  const answer = await both('{ json }');
  assert.match(answer, /"text":\{"raw":\[1,2\]\}/);
});

test('compiled execution: root mutation fields run one after another; an error that nulls the root stops the rest', async () => {
  await both('mutation { first second a: first }');
  await both('mutation { first failing third }');
  await both('mutation { third first }');
});

test('compiled execution: @skip/@include, with literals and with variables, and introspection', async () => {
  await both('{ hello @skip(if: true) items(count: 2) { id @include(if: false) name ... @skip(if: false) { tags } } }');
  const query = `query ($skip: Boolean!, $with: Boolean = true) {
    items(count: 2) { id @skip(if: $skip) ...F @include(if: $with) ... on Item @include(if: $skip) { tags } }
  }
  fragment F on Item { name }`;
  for (const variables of [{ skip: true }, { skip: false }, { skip: false, with: false }, { skip: true, with: null }]) {
    await both(query, variables);
  }
  await both('{ __schema { queryType { name } mutationType { name fields { name type { kind ofType { name } } } } } }');
  await both(
    '{ __type(name: "Item") { name kind fields(includeDeprecated: true) { name args { name } } } missing: __type(name: "Nope") { name } }',
  );
});

test('compiled execution: operations with abstract types are left to graphql-js', () => {
  const schema = buildSchema(
    'interface Named { name: String } type Thing implements Named { name: String } type Query { named: Named thing: Thing }',
  );
  for (const query of ['{ named { name } }', '{ thing { ... on Named { name } } }']) {
    const document = parse(query);
    assert.equal(compiledOperation(schema, document, getOperationAST(document)!), null, query);
  }
});
