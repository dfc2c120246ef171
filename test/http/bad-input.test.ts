// Bad input at the HTTP and GraphQL level: 400/413/415 with an errors body, nothing partial written, server stays up.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Admin, authHeaders, bootstrapAdmin, request, type GqlResponse } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

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
        { key: 'meta', type: 'object' },
      ],
    })
  ).id;
});

after(async () => {
  await server?.dispose();
});

function post(body: string, contentType = 'application/json', accept?: string): Promise<GqlResponse> {
  return request(server.adminUrl, {
    method: 'POST',
    headers: { 'content-type': contentType, ...(accept ? { accept } : {}), ...authHeaders(owner.credentials) },
    body,
  });
}

/**
 * A GraphQL request error (the document does not parse or validate, no operation to run, variables that do
 * not coerce): GraphQL over HTTP answers it 400 to a client accepting application/graphql-response+json and
 * 200 with the errors to one accepting only application/json (or sending no Accept).
 */
async function assertRequestError(body: string): Promise<{ message: string }> {
  const asGraphQLResponse = assertBadRequest(await post(body, 'application/json', 'application/graphql-response+json'));
  const asJson = assertBadRequest(await post(body, 'application/json', 'application/json'), 200);
  assertBadRequest(await post(body), 200);
  assert.equal(asJson.message, asGraphQLResponse.message);
  return asGraphQLResponse;
}

function assertBadRequest(response: GqlResponse, status = 400, code = 'BAD_USER_INPUT'): { message: string } {
  assert.equal(response.status, status, `expected ${status}, got ${response.status}: ${response.text.slice(0, 500)}`);
  assert.ok(
    Array.isArray(response.body?.errors) && response.body.errors.length > 0,
    `errors body: ${response.text.slice(0, 500)}`,
  );
  const [error] = response.body.errors;
  assert.equal(typeof error.message, 'string');
  assert.equal(error.extensions?.code, code, response.text.slice(0, 500));
  assert.equal(response.body.data, undefined, 'no data on a refused request');
  assert.ok(response.headers.get('x-request-id'), 'x-request-id on a refused request');
  return error;
}

/** The connection closed under a request still being sent (undici: "other side closed", ECONNRESET, EPIPE). */
function closedUnderTheRequest(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return error instanceof TypeError && ['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE'].includes(String(cause?.code));
}

/**
 * Posts an oversized body and returns the server's answer. The server reads such a body to its end (up to 256 MB)
 * before it answers 413, so the answer normally arrives. Should the connection still close while the body is being
 * sent, the client cannot read the answer; a client would send again, so this does, at most twice more, and the
 * last attempt must get the answer. Any other failure is the test's failure.
 */
async function postOversized(body: string): Promise<GqlResponse> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await post(body);
    } catch (error) {
      if (!closedUnderTheRequest(error) || attempt === 3) throw error;
      console.log(
        `# attempt ${attempt}: the connection closed while the body was being sent (${(error as Error).cause}); sending again`,
      );
    }
  }
}

async function assertHealthy(): Promise<void> {
  const response = await fetch(`${server.url}/healthz`);
  await response.arrayBuffer();
  assert.equal(response.status, 200);
  assert.ok(!server.exited, 'server still running');
}

const CREATE = 'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }';

describe('bad input', () => {
  test('bad input: malformed JSON is 400 with an errors body (Request body must be valid JSON)', async () => {
    for (const body of ['{"query": ', 'not json at all', '{"query": "{ __typename }",}', "{'query': '{ __typename }'}"]) {
      const error = assertBadRequest(await post(body));
      assert.equal(error.message, 'Request body must be valid JSON');
    }
    await assertHealthy();
  });

  test('bad input: an empty body is 400 with an errors body', async () => {
    assertBadRequest(await post(''));
  });

  test('bad input: a missing query is 400 (query: must be a non-empty string)', async () => {
    const error = assertBadRequest(await post(JSON.stringify({ variables: {} })));
    assert.equal(error.message, 'query: must be a non-empty string');
  });

  test('bad input: a query that is not a non-empty string is 400', async () => {
    for (const query of [42, '', null, ['{ __typename }'], { q: 1 }]) {
      const error = assertBadRequest(await post(JSON.stringify({ query })));
      assert.equal(error.message, 'query: must be a non-empty string');
    }
  });

  test('bad input: a JSON body that is not an object is 400', async () => {
    for (const body of ['[]', '[{"query":"{ __typename }"}]', '"{ __typename }"', '42', 'null']) {
      assertBadRequest(await post(body));
    }
  });

  test('bad input: variables that are not a JSON object are 400 (variables: must be a JSON object)', async () => {
    for (const variables of [[1, 2], 'x', 5, true]) {
      const error = assertBadRequest(await post(JSON.stringify({ query: '{ model { list { id } } }', variables })));
      assert.equal(error.message, 'variables: must be a JSON object');
    }
  });

  test('bad input: variables of the wrong type are a request error (400 for application/graphql-response+json, 200 for application/json), nothing written', async () => {
    const before = await owner.total(modelId);
    // input must be an object with modelId; here modelId is missing and input a string.
    await assertRequestError(JSON.stringify({ query: CREATE, variables: { input: 'not an input object' } }));
    await assertRequestError(JSON.stringify({ query: CREATE, variables: { input: { data: { title: 'x' } } } }));
    await assertRequestError(
      JSON.stringify({ query: CREATE, variables: { input: { modelId, data: { title: 'x' }, extra: 1 } } }),
    );
    await assertRequestError(
      JSON.stringify({
        query: 'query($l: Int) { record { list(modelId: "x", limit: $l) { total } } }',
        variables: { l: 'ten' },
      }),
    );
    await assertRequestError(
      JSON.stringify({ query: 'query($l: Int) { record { list(modelId: "x", limit: $l) { total } } }', variables: { l: 1.5 } }),
    );
    assert.equal(await owner.total(modelId), before);
  });

  test('bad input: a missing required variable is a request error', async () => {
    await assertRequestError(JSON.stringify({ query: CREATE }));
    await assertRequestError(JSON.stringify({ query: CREATE, variables: {} }));
  });

  test('bad input: a GraphQL syntax error is a request error', async () => {
    await assertRequestError(JSON.stringify({ query: '{ model { list { id }' }));
    await assertRequestError(JSON.stringify({ query: 'mutation {' }));
  });

  test('bad input: an unknown field is a GraphQL validation error', async () => {
    await assertRequestError(JSON.stringify({ query: '{ model { list { id doesNotExist } } }' }));
    await assertRequestError(JSON.stringify({ query: '{ nothing }' }));
  });

  test('bad input: several operations without operationName are a request error', async () => {
    await assertRequestError(JSON.stringify({ query: 'query A { __typename } query B { __typename }' }));
    // With operationName the chosen one runs.
    const response = await post(JSON.stringify({ query: 'query A { __typename } query B { __typename }', operationName: 'B' }));
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { data: { __typename: 'Query' } });
  });

  test('bad input: a subscription is refused (a request error)', async () => {
    await assertRequestError(JSON.stringify({ query: 'subscription { __typename }' }));
  });

  test('bad input: a Content-Type that is not JSON is 415 (Content-Type must be application/json)', async () => {
    const response = await post(JSON.stringify({ query: '{ __typename }' }), 'text/plain');
    const error = assertBadRequest(response, 415);
    assert.equal(error.message, 'Content-Type must be application/json');
    assertBadRequest(await post('query=%7B__typename%7D', 'application/x-www-form-urlencoded'), 415);
  });

  test('bad input: application/json with a charset parameter is accepted', async () => {
    const response = await post(JSON.stringify({ query: '{ __typename }' }), 'application/json; charset=utf-8');
    assert.equal(response.status, 200, response.text);
  });

  test('bad input: a body over the 10 MB limit is 413 PAYLOAD_TOO_LARGE, nothing partial written, server still up', async () => {
    const before = await owner.total(modelId);
    // 1000 rows of ~11 KB: about 11 MB, over the default 10 MB limit.
    const note = 'x'.repeat(11_000);
    const rows = Array.from({ length: 1000 }, (_, i) => ({ title: `big ${i}`, meta: { note } }));
    const body = JSON.stringify({
      query: 'mutation($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount } } }',
      variables: { input: { modelId, rows } },
    });
    assert.ok(body.length > 10 * 1024 * 1024);
    const error = assertBadRequest(await postOversized(body), 413, 'PAYLOAD_TOO_LARGE');
    assert.equal(error.message, `Request body is larger than ${10 * 1024 * 1024} bytes`);
    await assertHealthy();
    assert.equal(await owner.total(modelId), before);
  });

  test('bad input: BODY_LIMIT_BYTES sets the body limit', async () => {
    const small = await startServer({ env: { BODY_LIMIT_BYTES: '2000' } });
    try {
      const info = await small.bootstrap({ org: 'acme', workspace: 'main', email: 'o@acme.test' });
      const big = await request(small.adminUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders(info) },
        body: JSON.stringify({ query: '{ __typename }', variables: { pad: 'p'.repeat(3000) } }),
      });
      const error = assertBadRequest(big, 413, 'PAYLOAD_TOO_LARGE');
      assert.equal(error.message, 'Request body is larger than 2000 bytes');
      const ok = await request(small.adminUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders(info) },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      assert.equal(ok.status, 200, ok.text);
    } finally {
      await small.dispose();
    }
  });

  test('bad input: a body far over the limit (30 MB) is 413 and the server stays up', async () => {
    const body = JSON.stringify({ query: '{ __typename }', variables: { pad: 'y'.repeat(30 * 1024 * 1024) } });
    const error = assertBadRequest(await postOversized(body), 413, 'PAYLOAD_TOO_LARGE');
    assert.equal(error.message, `Request body is larger than ${10 * 1024 * 1024} bytes`);
    await assertHealthy();
  });

  test('bad input: deeply nested JSON in data is stored or refused as bad input, never an INTERNAL error', async () => {
    let nested = '1';
    for (let i = 0; i < 5000; i++) nested = `{"a":${nested}}`;
    const body = `{"query":${JSON.stringify(CREATE)},"variables":{"input":{"modelId":"${modelId}","data":{"title":"deep","meta":${nested}}}}}`;
    const response = await post(body);
    assert.ok(response.status === 200 || response.status === 400, `${response.status}: ${response.text.slice(0, 300)}`);
    assert.ok(response.body?.data || response.body?.errors, 'a GraphQL response');
    if (response.body?.errors) assert.notEqual(response.body.errors[0].extensions?.code, 'INTERNAL', response.text.slice(0, 300));
    await assertHealthy();
  });

  test('bad input: an error never exposes a stack trace or SQL', async () => {
    const before = await owner.total(modelId);
    const responses = await Promise.all([
      post('{"query": '),
      post(
        JSON.stringify({ query: CREATE, variables: { input: { modelId: "'; DROP TABLE records; --", data: { title: 'x' } } } }),
      ),
      post(JSON.stringify({ query: '{ record { get(id: "\' OR 1=1 --") { id } } }' })),
    ]);
    for (const response of responses) {
      assert.doesNotMatch(response.text, /\bat .+\.(js|ts):\d+/);
      assert.doesNotMatch(response.text, /SELECT|INSERT|sqlite|SQLITE_/i);
    }
    await assertHealthy();
    assert.equal(await owner.total(modelId), before, 'nothing written');
  });
});
