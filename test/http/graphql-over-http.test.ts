// GraphQL over HTTP: the reference audit suite (`graphql-http`'s serverAudits) against both routes, and the
// answers around it the contract fixes (status by accepted media type, GET, the router's own refusals as JSON).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { serverAudits, type AuditResult } from 'graphql-http';
import { Admin, bootstrapAdmin, gql, request, NOT_AUTHORIZED_BODY, type GqlResponse } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let owner: Admin;

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server);
});

after(async () => {
  await server?.dispose();
});

/** A fetch that adds the owner's token and workspace id to every request (the audits send none). */
function fetchWithToken(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${owner.credentials.token}`);
  headers.set('x-workspace-id', owner.credentials.workspaceId!);
  return fetch(input, { ...init, headers });
}

/** Runs every audit; returns the MUST and SHOULD ones that did not pass, as readable lines. */
async function failedAudits(url: string, fetchFn: typeof fetch): Promise<string[]> {
  const results: AuditResult[] = [];
  for (const audit of serverAudits({ url, fetchFn })) results.push(await audit.fn());
  const failed: string[] = [];
  for (const result of results) {
    if (result.status === 'ok' || result.name.startsWith('MAY')) continue;
    const body = await result.response.text().catch(() => '(body already read)');
    failed.push(`${result.name} [${result.id}]: ${result.reason} (HTTP ${result.response.status}: ${body.slice(0, 200)})`);
  }
  return failed;
}

/** Asserts the router's refusal shape: JSON, `errors` of `{message, extensions.code}`, nothing from Fastify. */
function assertErrorsShape(response: GqlResponse, status: number, code: string): void {
  assert.equal(response.status, status, response.text);
  assert.match(response.headers.get('content-type') ?? '', /^application\/(graphql-response\+)?json/, response.text);
  assert.ok(Array.isArray(response.body?.errors), `expected an errors array: ${response.text}`);
  assert.equal(response.body.errors.length, 1, response.text);
  assert.equal(typeof response.body.errors[0].message, 'string');
  assert.equal(response.body.errors[0].extensions?.code, code, response.text);
  assert.doesNotMatch(response.text, /FST_|"statusCode"|"error":/);
}

describe('GraphQL over HTTP audits (graphql-http serverAudits)', () => {
  test('admin POST/GET /graphql (with a token) passes every MUST and SHOULD audit', async () => {
    const failed = await failedAudits(server.adminUrl, fetchWithToken as typeof fetch);
    assert.deepEqual(failed, [], `failing audits:\n${failed.join('\n')}`);
  });

  test('delivery /public/{org}/{workspace}/graphql passes every MUST and SHOULD audit', async () => {
    const failed = await failedAudits(server.deliveryUrl('acme', 'main'), fetch);
    assert.deepEqual(failed, [], `failing audits:\n${failed.join('\n')}`);
  });
});

describe('GraphQL over HTTP: status by accepted media type', () => {
  const bad = [
    { what: 'a document that does not parse', query: '{', variables: undefined },
    { what: 'a document that does not validate', query: '{ model { nope } }', variables: undefined },
    {
      what: 'variables that do not coerce',
      query: 'query ($id: ID!) { model { get(id: $id) { id } } }',
      variables: { id: null },
    },
  ];
  for (const { what, query, variables } of bad) {
    test(`${what}: 200 with errors for application/json, 400 for application/graphql-response+json`, async () => {
      const asJson = await owner.q(query, variables);
      assert.equal(asJson.status, 200, asJson.text);
      assert.match(asJson.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(asJson.body.errors[0].extensions.code, 'BAD_USER_INPUT');
      assert.equal(asJson.body.data, undefined);

      const asGraphQL = await owner.q(query, variables, { accept: 'application/graphql-response+json' });
      assert.equal(asGraphQL.status, 400, asGraphQL.text);
      assert.match(asGraphQL.headers.get('content-type') ?? '', /^application\/graphql-response\+json/);
      assert.equal(asGraphQL.body.errors[0].extensions.code, 'BAD_USER_INPUT');
    });
  }

  test('a syntax error carries its line and column in locations', async () => {
    const answer = await owner.q('{\n  model {\n    list { id name ]\n  }\n}');
    assert.equal(answer.body.errors.length, 1, answer.text);
    assert.match(answer.body.errors[0].message, /^Syntax Error: /);
    assert.deepEqual(answer.body.errors[0].locations, [{ line: 3, column: 20 }]);
  });

  test('each validation error is its own entry with its locations', async () => {
    const answer = await owner.q('{\n  model { nope }\n  record { alsoNope }\n}');
    assert.deepEqual(
      answer.body.errors.map((error: { message: string; locations: unknown }) => [error.message, error.locations]),
      [
        ['Cannot query field "nope" on type "ModelQueries".', [{ line: 2, column: 11 }]],
        ['Cannot query field "alsoNope" on type "RecordQueries".', [{ line: 3, column: 12 }]],
      ],
    );
    assert.equal(answer.body.errors[1].extensions.code, 'BAD_USER_INPUT');
  });

  test('a body that is not well-formed (bad JSON, no query) stays 400 for either media type', async () => {
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const headers = {
        'content-type': 'application/json',
        accept,
        authorization: `Bearer ${owner.credentials.token}`,
        'x-workspace-id': owner.credentials.workspaceId!,
      };
      const badJson = await request(server.adminUrl, { method: 'POST', headers, body: '{ "query' });
      assert.equal(badJson.status, 400, badJson.text);
      assert.equal(badJson.body.errors[0].extensions.code, 'BAD_USER_INPUT');
      const noQuery = await request(server.adminUrl, { method: 'POST', headers, body: '{"variables":{}}' });
      assert.equal(noQuery.status, 400, noQuery.text);
      const delivery = await request(server.deliveryUrl('acme', 'main'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept },
        body: '[1',
      });
      assert.equal(delivery.status, 400, delivery.text);
    }
  });

  test('a mutation sent to the read-only delivery route is a validation error: 200 for application/json', async () => {
    const response = await gql(server.deliveryUrl('acme', 'main'), {}, 'mutation { x }');
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.errors[0].extensions.code, 'BAD_USER_INPUT');
  });
});

describe('GraphQL over HTTP: GET', () => {
  function getUrl(base: string, params: Record<string, string>): string {
    const url = new URL(base);
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    return url.toString();
  }

  test('admin GET /graphql runs a query from the query string, with the same auth', async () => {
    const url = getUrl(server.adminUrl, {
      query: 'query Models($name: String!) { model { list { id } } __type(name: $name) { name } } query Other { __typename }',
      variables: JSON.stringify({ name: 'Query' }),
      operationName: 'Models',
    });
    const response = await request(url, {
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${owner.credentials.token}`,
        'x-workspace-id': owner.credentials.workspaceId!,
      },
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data, { model: { list: [] }, __type: { name: 'Query' } });

    const anonymous = await request(url, { headers: { accept: 'application/json' } });
    assert.equal(anonymous.status, 401);
    assert.deepEqual(anonymous.body, NOT_AUTHORIZED_BODY);
    const wrongToken = await request(url, {
      headers: { accept: 'application/json', authorization: 'Bearer cs_nope', 'x-workspace-id': owner.credentials.workspaceId! },
    });
    assert.equal(wrongToken.status, 401);
    assert.deepEqual(wrongToken.body, NOT_AUTHORIZED_BODY);
  });

  test('a mutation by GET is refused with 405 and Allow: POST, on both routes, and nothing runs', async () => {
    const mutation =
      'mutation { model { create(input: { name: "By GET", slug: "by-get", fields: [{ key: "title", type: "text" }] }) { id } } }';
    const admin = await request(getUrl(server.adminUrl, { query: mutation }), {
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${owner.credentials.token}`,
        'x-workspace-id': owner.credentials.workspaceId!,
      },
    });
    assertErrorsShape(admin, 405, 'BAD_USER_INPUT');
    assert.equal(admin.headers.get('allow'), 'POST');
    const list = await owner.q('{ model { list { slug } } }');
    assert.deepEqual(list.body.data.model.list, []);

    const delivery = await request(getUrl(server.deliveryUrl('acme', 'main'), { query: 'mutation { x }' }), {
      headers: { accept: 'application/json' },
    });
    assertErrorsShape(delivery, 405, 'BAD_USER_INPUT');
    assert.equal(delivery.headers.get('allow'), 'POST');
  });

  test('delivery GET runs a query from the query string', async () => {
    const response = await request(
      getUrl(server.deliveryUrl('acme', 'main'), { query: '{ public { model { definitions { slug } } } }' }),
      {
        headers: { accept: 'application/json' },
      },
    );
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data.public.model.definitions, []);
  });

  test('GraphiQL is still served for a browser GET without a query', async () => {
    const response = await request(server.adminUrl, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(response.text, /graphiql/i);
  });
});

describe('GraphQL over HTTP: the router refusals answer in the errors shape', () => {
  test('a URL the router cannot decode', async () => {
    assertErrorsShape(await request(`${server.url}/public/%E0%A4%A/x/graphql`), 400, 'BAD_USER_INPUT');
    assertErrorsShape(
      await request(`${server.url}/public/%E0%A4%A/x/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ __typename }"}',
      }),
      400,
      'BAD_USER_INPUT',
    );
  });

  test('an unknown path: 404', async () => {
    assertErrorsShape(await request(`${server.url}/nowhere`), 404, 'NOT_FOUND');
    assertErrorsShape(
      await request(`${server.url}/public/acme/main/graphql/more`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
      404,
      'NOT_FOUND',
    );
  });

  test('a method the route does not take: 405 with Allow', async () => {
    for (const url of [server.adminUrl, server.deliveryUrl('acme', 'main')]) {
      const response = await request(url, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ __typename }"}',
      });
      assertErrorsShape(response, 405, 'BAD_USER_INPUT');
      assert.equal(response.headers.get('allow'), 'GET, POST');
    }
  });

  test('a body over the limit: 413; a content type that is not JSON: 415', async () => {
    const big = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(200 * 1024) } });
    const tooLarge = await request(server.deliveryUrl('acme', 'main'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: big,
    });
    assertErrorsShape(tooLarge, 413, 'PAYLOAD_TOO_LARGE');
    const notJson = await request(server.deliveryUrl('acme', 'main'), {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{ __typename }',
    });
    assertErrorsShape(notJson, 415, 'BAD_USER_INPUT');
  });
});
