// GraphQL abuse limits through a real server: depth, aliases, batching, token count, introspection on/off.
// Each refusal is BAD_USER_INPUT with a message naming the limit, and nothing runs. The limits are validation
// rules, so the status is GraphQL over HTTP's for a validation error: 200 with errors for application/json
// (what these requests accept), 400 for application/graphql-response+json.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildClientSchema, getIntrospectionQuery } from 'graphql';
import { Admin, authHeaders, bootstrapAdmin, expectError, gql, request, type GqlResponse } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

function expectRefused(response: GqlResponse, message: string | RegExp, status = 200): void {
  const error = expectError(response, 'BAD_USER_INPUT', status);
  if (typeof message === 'string') assert.equal(error.message, message);
  else assert.match(error.message, message);
  assert.equal(response.body.data, undefined);
}

/** `{ model { list { fields { fields { … key } } } } }` with `levels` levels of field nesting in all. */
function nestedFieldsQuery(levels: number): string {
  // model (1) list (2) fields × (levels - 3) key (levels)
  const inner = 'fields { '.repeat(levels - 3) + 'key' + ' }'.repeat(levels - 3);
  return `{ model { list { ${inner} } } }`;
}

describe('GraphQL limits (introspection on, the default)', () => {
  let server: TestServer;
  let owner: Admin;
  let modelId: string;

  before(async () => {
    server = await startServer();
    owner = await bootstrapAdmin(server);
    modelId = (
      await owner.createModel({
        fields: [
          { key: 'title', type: 'text', required: true },
          { key: 'meta', type: 'object', fields: [{ key: 'note', type: 'text' }] },
        ],
      })
    ).id;
  });

  after(async () => {
    await server?.dispose();
  });

  test('a legitimate nested query (5 levels) and one at exactly the depth limit work', async () => {
    const data = await owner.ok('{ model { list { id fields { key fields { key } } } } }');
    const model = data.model.list.find((m: any) => m.id === modelId);
    assert.deepEqual(model.fields[1], { key: 'meta', fields: [{ key: 'note' }] });
    await owner.ok(nestedFieldsQuery(12));
  });

  test('a query one level too deep is refused', async () => {
    expectRefused(await owner.q(nestedFieldsQuery(13)), 'Query is too deep: 13 levels, at most 12');
  });

  test('depth counts through named and inline fragments', async () => {
    const query = `
      query { model { list { ...Deep } } }
      fragment Deep on ModelDefinition { fields { ... on FieldDefinition { fields { ...Deeper } } } }
      fragment Deeper on FieldDefinition { ${'fields { '.repeat(10)}key${' }'.repeat(10)} }`;
    expectRefused(await owner.q(query), 'Query is too deep: 15 levels, at most 12');
  });

  test('the standard introspection query (graphql-js getIntrospectionQuery, every option) is answered: ofType, one type a level, adds no depth', async () => {
    const everyOption = {
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    };
    for (const options of [{}, everyOption]) {
      const data = await owner.ok(getIntrospectionQuery(options));
      assert.ok(buildClientSchema(data).getType('ModelDefinition'), 'a schema the tools can build');
    }
    const delivery = await gql(server.deliveryUrl('acme', 'main'), {}, getIntrospectionQuery(everyOption));
    assert.equal(delivery.body.errors, undefined, delivery.text);
    assert.ok(buildClientSchema(delivery.body.data).getQueryType(), 'the delivery route introspects too');
    const ofType = 'ofType { '.repeat(12) + 'name' + ' }'.repeat(12);
    await owner.ok(`{ __schema { types { fields { type { ${ofType} } } } } }`);
  });

  test('a chain of ofType fields is bounded: 100 (getIntrospectionQuery typeDepth 100) answered, 101 and more refused before execution on both routes', async () => {
    const chain = (levels: number) =>
      `{ __schema { types { fields { type { ${'ofType { '.repeat(levels)}name${' }'.repeat(levels)} } } } } }`;
    const data = await owner.ok(getIntrospectionQuery({ typeDepth: 100 }));
    assert.ok(buildClientSchema(data).getType('ModelDefinition'));
    await owner.ok(chain(100));
    const delivery = server.deliveryUrl('acme', 'main');
    for (const levels of [101, 250]) {
      const message = `Query is too deep: ${levels} nested ofType fields, at most 100`;
      expectRefused(await owner.q(chain(levels)), message);
      expectRefused(await gql(delivery, {}, chain(levels)), message);
    }
    // Deeper still, the document is refused by its tokens before it is parsed (the parser recurses once a level).
    for (const levels of [1000, 3000]) {
      const message = 'Query is too deep: more than 256 nested braces, brackets or parentheses';
      expectRefused(await owner.q(chain(levels)), message);
      expectRefused(await gql(delivery, {}, chain(levels)), message);
    }
    const nestedList = `{ model { list(ids: ${'['.repeat(3000)}"x"${']'.repeat(3000)}) { id } } }`;
    expectRefused(await owner.q(nestedList), 'Query is too deep: more than 256 nested braces, brackets or parentheses');
    // GraphQL over HTTP: a validation error is 400 for a client that accepts application/graphql-response+json.
    const response = await request(server.adminUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...authHeaders(owner.credentials),
      },
      body: JSON.stringify({ query: chain(200) }),
    });
    expectRefused(response, 'Query is too deep: 200 nested ofType fields, at most 100', 400);
  });

  test('introspection that fans out is bounded by the depth limit', async () => {
    const fanning = 'fields { type { '.repeat(5) + 'name' + ' } }'.repeat(5);
    expectRefused(await owner.q(`{ __schema { types { ${fanning} } } }`), 'Query is too deep: 13 levels, at most 12');
  });

  test('30 aliases work, 40 are refused', async () => {
    const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: list { id }`).join(' ');
    const data = await owner.ok(`{ model { ${aliases(30)} } }`);
    assert.equal(Object.keys(data.model).length, 30);
    expectRefused(await owner.q(`{ model { ${aliases(40)} } }`), 'Too many aliases: 40, at most 30');
  });

  test('aliases in a fragment count once per spread', async () => {
    const fragment = Array.from({ length: 10 }, (_, i) => `r${i}: create(input: $input) { id }`).join(' ');
    const query = `
      mutation($input: CreateModelRecordInput!) { record { ...Ten } x: record { ...Ten } y: record { ...Ten } }
      fragment Ten on RecordMutations { ${fragment} }`;
    const before = await owner.total(modelId);
    expectRefused(await owner.q(query, { input: { modelId, data: { title: 'never' } } }), 'Too many aliases: 32, at most 30');
    assert.equal(await owner.total(modelId), before, 'a refused document writes nothing');
  });

  test('a JSON array body (batched requests) is refused with 400', async () => {
    const response = await request(server.adminUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(owner.credentials) },
      body: JSON.stringify([{ query: '{ model { list { id } } }' }, { query: '{ model { list { id } } }' }]),
    });
    // Not a well-formed GraphQL-over-HTTP request: 400 whatever the client accepts.
    expectRefused(response, 'Batched requests (a JSON array body) are not supported: send one operation per request', 400);
  });

  test('a document over 10,000 tokens is refused', async () => {
    const query = `{ model { list { ${'id '.repeat(10_001)} } } }`;
    expectRefused(await owner.q(query), /Document contains more tha[nt] 10000 tokens/);
  });

  test('introspection is answered by default', async () => {
    const data = await owner.ok('{ __schema { queryType { name } } __type(name: "ModelRecord") { name } }');
    assert.deepEqual(data, { __schema: { queryType: { name: 'Query' } }, __type: { name: 'ModelRecord' } });
  });
});

describe('GraphQL limits with INTROSPECTION=off', () => {
  let server: TestServer;
  let owner: Admin;

  before(async () => {
    server = await startServer({ env: { INTROSPECTION: 'off' } });
    owner = await bootstrapAdmin(server);
  });

  after(async () => {
    await server?.dispose();
  });

  test('__schema and __type are refused on the admin route', async () => {
    expectRefused(await owner.q('{ __schema { types { name } } }'), 'Introspection is disabled');
    expectRefused(await owner.q('{ __type(name: "Query") { name } }'), 'Introspection is disabled');
    expectRefused(
      await owner.q('query { ...I } fragment I on Query { model { list { id } } __schema { queryType { name } } }'),
      'Introspection is disabled',
    );
  });

  test('__schema is refused on the delivery route', async () => {
    expectRefused(
      await gql(server.deliveryUrl('acme', 'main'), {}, '{ __schema { types { name } } }'),
      'Introspection is disabled',
    );
  });

  test('__typename and ordinary queries still work', async () => {
    const data = await owner.ok('{ __typename model { __typename list { id } } }');
    assert.deepEqual(data, { __typename: 'Query', model: { __typename: 'ModelQueries', list: [] } });
  });

  test('a bad INTROSPECTION value stops serve with a message', async () => {
    await assert.rejects(
      startServer({ env: { INTROSPECTION: 'maybe' }, readyTimeoutMs: 5000 }),
      /INTROSPECTION: must be "on" or "off"/,
    );
  });
});
