// Delivery route HTTP caching (delivery.md "HTTP on the delivery route"): GET for queries, 405 for a mutation by
// GET, ETag on every 200, 304 for a current If-None-Match without running the query, Cache-Control and
// --delivery-max-age / DELIVERY_MAX_AGE, CORS for the hosted SDK's headers.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Admin, bootstrapAdmin, gql, request, uniqueSlug, type GqlResponse } from '../support/client.js';
import { execDirect } from '../support/direct-sql.js';
import { runCli, startServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';

let server: TestServer;
let owner: Admin;
let other: Admin; // acme/other: another workspace on the same server
let deliveryUrl: string;
let shelf: any; // public, with a relation to authors
let authors: any; // not public

const DEFAULT_CACHE_CONTROL = 'public, max-age=0, must-revalidate';

/** What a storefront page would ask: the public models and a page of one model's records. */
const SHELF = `query Shelf($slug: String!) {
  public { model { definitions { slug name } records(modelSlug: $slug, limit: 100) { total items { id data updatedAt } } } }
}`;

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server, { org: 'acme', workspace: 'main', email: 'owner@acme.test' });
  other = await bootstrapAdmin(server, { org: 'acme', workspace: 'other', email: 'other@acme.test' });
  deliveryUrl = server.deliveryUrl('acme', 'main');
  authors = await owner.createSimpleModel({ slug: uniqueSlug('authors'), deliveryAccess: 'none' });
  shelf = await owner.createModel({
    slug: uniqueSlug('shelf'),
    name: 'Shelf',
    displayField: 'title',
    deliveryAccess: 'public',
    fields: [
      { key: 'title', label: 'Title', type: 'text', required: true },
      { key: 'author', label: 'Author', type: 'relation', relationTo: `model:${authors.slug}`, relationType: 'hasOne' },
    ],
  });
  await owner.importRows(
    shelf.id,
    Array.from({ length: 5 }, (_, i) => ({ title: `book ${i}` })),
  );
});

after(async () => {
  await server?.dispose();
});

/** GET with the query in URL parameters, as GraphQL over HTTP and a CDN have it. */
function get(
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = {},
  url = deliveryUrl,
  method = 'GET',
): Promise<GqlResponse> {
  const parameters = new URLSearchParams({ query });
  if (variables !== undefined) parameters.set('variables', JSON.stringify(variables));
  return request(`${url}?${parameters}`, { method, headers: { accept: 'application/json', ...headers } });
}

function shelfPage(headers: Record<string, string> = {}) {
  return get(SHELF, { slug: shelf.slug }, headers);
}

/** A 200 without errors, with its ETag. */
function tagOf(response: GqlResponse): string {
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.errors, undefined, response.text);
  const etag = response.headers.get('etag');
  assert.ok(etag, 'a 200 carries an ETag');
  return etag;
}

/** The server's log lines of one request (by its x-request-id), once its closing `request` line is out. */
async function logOf(response: GqlResponse): Promise<{ level: number; msg: string; status?: number }[]> {
  const requestId = response.headers.get('x-request-id');
  const entries = () =>
    server.stdout
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes(`"requestId":"${requestId}"`))
      .map((line) => JSON.parse(line) as { level: number; msg: string; status?: number });
  await waitFor(() => entries().some((entry) => entry.msg === 'request'), {
    timeoutMs: 5000,
    message: `the log line of request ${requestId}`,
  });
  return entries();
}

/** An answer's headers but the two that differ from one answer to the next (Date, x-request-id), by name. */
function stableHeaders(response: GqlResponse): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'date' && name !== 'x-request-id') headers[name] = value;
  });
  return headers;
}

/**
 * A 304 decided by the route (the first GET of a URL; its tag learnt by POST) and one decided early (the same URL
 * again: the fast path) carry the same headers, and each its own x-request-id and its request log line.
 */
async function assertEarly304LikeRoute(
  url: string,
  query: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<Record<string, string>> {
  const etag = tagOf(await gql(url, {}, query, undefined, headers));
  const byRoute = await get(query, undefined, { ...headers, 'if-none-match': etag }, url, method);
  const early = await get(query, undefined, { ...headers, 'if-none-match': etag }, url, method);
  for (const response of [byRoute, early]) {
    assert.equal(response.status, 304, `${method} ${JSON.stringify(headers)}: ${response.text}`);
    assert.equal(response.headers.get('etag'), etag);
    assert.match(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  }
  assert.notEqual(early.headers.get('x-request-id'), byRoute.headers.get('x-request-id'));
  assert.deepEqual(stableHeaders(early), stableHeaders(byRoute), `${method} ${JSON.stringify(headers)}`);
  return stableHeaders(early);
}

/** The answer to `write` is a new tag: the old one is answered in full (200), the new one 304. */
async function assertTagMoves(what: string, write: () => Promise<unknown>) {
  const before = tagOf(await shelfPage());
  await write();
  const after = await shelfPage({ 'if-none-match': before });
  assert.equal(after.status, 200, `${what}: the old tag is answered in full (${after.status} ${after.text})`);
  const moved = tagOf(after);
  assert.notEqual(moved, before, `${what}: the tag moved`);
  assert.equal((await shelfPage({ 'if-none-match': moved })).status, 304, `${what}: the new tag is current`);
}

describe('delivery caching', () => {
  test('delivery caching: a 200 carries a strong ETag, Cache-Control public, max-age=0, must-revalidate and Vary: Accept; GET and POST of one query share the tag', async () => {
    const byGet = await shelfPage();
    const etag = tagOf(byGet);
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/, 'a strong tag');
    assert.equal(byGet.headers.get('cache-control'), DEFAULT_CACHE_CONTROL);
    assert.match(byGet.headers.get('vary') ?? '', /\baccept\b/i);
    assert.equal(byGet.body.data.public.model.records.total, 5);
    const byPost = await gql(deliveryUrl, {}, SHELF, { slug: shelf.slug });
    assert.equal(tagOf(byPost), etag);
    assert.equal(byPost.headers.get('cache-control'), DEFAULT_CACHE_CONTROL);
    assert.equal(byPost.text, byGet.text, 'the same answer');
    assert.equal(tagOf(await shelfPage()), etag, 'the same tag while nothing is written');
  });

  test('delivery caching: the tag differs with the query, the variables, the operation name and the answer content type', async () => {
    const etag = tagOf(await shelfPage());
    const tags = [
      etag,
      tagOf(await get(SHELF.replace('updatedAt', 'createdAt'), { slug: shelf.slug })),
      tagOf(await get(SHELF.replace('limit: 100', 'limit: 99'), { slug: shelf.slug })),
      tagOf(await get(SHELF, { slug: shelf.slug, unused: 1 })),
      tagOf(
        await request(
          `${deliveryUrl}?${new URLSearchParams({ query: SHELF, variables: JSON.stringify({ slug: shelf.slug }), operationName: 'Shelf' })}`,
        ),
      ),
    ];
    assert.equal(new Set(tags).size, tags.length, tags.join(' '));
    const asGraphQLResponse = await shelfPage({ accept: 'application/graphql-response+json' });
    assert.match(asGraphQLResponse.headers.get('content-type') ?? '', /application\/graphql-response\+json/);
    assert.notEqual(tagOf(asGraphQLResponse), etag, 'another representation, another tag');
  });

  test('delivery caching: If-None-Match with the current tag is 304 with no body and the same ETag, Cache-Control and Vary — strong or weak, alone or in a list, or *', async () => {
    const first = await shelfPage();
    const etag = tagOf(first);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, `W/"x",W/${etag} , "y"`, '*']) {
      const response = await shelfPage({ 'if-none-match': ifNoneMatch });
      assert.equal(response.status, 304, `If-None-Match: ${ifNoneMatch}`);
      assert.equal(response.text, '', 'no body');
      assert.equal(response.headers.get('etag'), etag);
      assert.equal(response.headers.get('cache-control'), DEFAULT_CACHE_CONTROL);
      assert.equal(response.headers.get('vary'), first.headers.get('vary'));
      assert.equal(response.headers.get('content-length') ?? '0', '0');
    }
    for (const ifNoneMatch of ['"other"', 'W/"other", "another"', etag.slice(1, -1), '']) {
      const response = await shelfPage({ 'if-none-match': ifNoneMatch });
      assert.equal(response.status, 200, `If-None-Match: ${ifNoneMatch}`);
      assert.equal(tagOf(response), etag);
      assert.equal(response.text, first.text);
    }
    const head = await get(SHELF, { slug: shelf.slug }, { 'if-none-match': etag }, deliveryUrl, 'HEAD');
    assert.equal(head.status, 304, 'HEAD is conditional like GET');
  });

  test('delivery caching: a POST is answered in full whatever its If-None-Match (conditional requests are GET)', async () => {
    const etag = tagOf(await shelfPage());
    const response = await gql(deliveryUrl, {}, SHELF, { slug: shelf.slug }, { 'if-none-match': etag });
    assert.equal(response.status, 200, response.text);
    assert.equal(tagOf(response), etag);
    assert.equal(response.body.data.public.model.records.total, 5);
  });

  test('delivery caching: the tag moves with every kind of write to the workspace', async () => {
    const records = (await owner.list(shelf.id)).items;
    await assertTagMoves('record.create', () => owner.createRecord(shelf.id, { title: 'new book' }));
    await assertTagMoves('record.import', () => owner.importRows(shelf.id, [{ title: 'imported 1' }, { title: 'imported 2' }]));
    await assertTagMoves('record.patch', async () =>
      assert.equal((await owner.patchRaw(records[0]!.id, { title: 'patched' })).status, 200),
    );
    await assertTagMoves('record.update', async () =>
      assert.equal((await owner.updateRaw(records[1]!.id, { title: 'updated' })).status, 200),
    );
    await assertTagMoves('record.delete', async () => assert.equal((await owner.deleteRaw(records[2]!.id)).status, 200));
    const author = await owner.createRecord(authors.id, { title: 'Ann' });
    await owner.patchRaw(records[3]!.id, { author: author.id });
    await assertTagMoves('record.delete with force of a record another model refers to', async () => {
      const response = await owner.deleteRaw(author.id, true);
      assert.equal(response.body.data?.record.delete.deleted, true, response.text);
      const page = (await shelfPage()).body.data.public.model.records.items;
      assert.equal(page.find((item: any) => item.id === records[3]!.id).data.author, undefined, 'the reference is gone');
    });
    const update = 'mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id } } }';
    await assertTagMoves('model.update (name)', () => owner.ok(update, { input: { id: shelf.id, name: 'Bookshelf' } }));
    await assertTagMoves('model.update (deliveryAccess of another model)', () =>
      owner.ok(update, { input: { id: authors.id, deliveryAccess: 'public' } }),
    );
    const setDefaultLocale = 'mutation($input: UpdateWorkspaceInput!) { workspace { update(input: $input) { defaultLocale } } }';
    await assertTagMoves('workspace.update (defaultLocale)', () =>
      owner.ok(setDefaultLocale, { input: { defaultLocale: 'de' } }),
    );
    await assertTagMoves('workspace.update (defaultLocale back)', () =>
      owner.ok(setDefaultLocale, { input: { defaultLocale: null } }),
    );
    let created: any;
    await assertTagMoves('model.create', async () => (created = await owner.createSimpleModel({ deliveryAccess: 'public' })));
    await assertTagMoves('model.delete', () =>
      owner.ok('mutation($id: ID!) { model { delete(id: $id) { deleted } } }', { id: created.id }),
    );
    await assertTagMoves('model.update (deliveryAccess back to none)', () =>
      owner.ok(update, { input: { id: authors.id, deliveryAccess: 'none' } }),
    );
    await assertTagMoves('a write in a model that is not public', () => owner.createRecord(authors.id, { title: 'Bob' }));
  });

  test('delivery caching: a revalidation right after a write is answered in full, each time (nothing kept from before the write)', async () => {
    // A run of revalidations of one URL, each after a write through the API: the first request of each pair is
    // answered from what the server knows of the URL (the revalidation fast path) and must not find the old tag.
    let etag = tagOf(await shelfPage());
    for (let round = 0; round < 3; round++) {
      assert.equal((await shelfPage({ 'if-none-match': etag })).status, 304, `round ${round}: current before the write`);
      const record = await owner.createRecord(shelf.id, { title: `round ${round}` });
      const after = await shelfPage({ 'if-none-match': etag });
      assert.equal(after.status, 200, `round ${round}: the revalidation after the write is answered in full`);
      assert.ok(
        after.body.data.public.model.records.items.some((item: any) => item.id === record.id),
        'the answer has the new record',
      );
      etag = tagOf(after);
    }
  });

  test('delivery caching: a write committed by another connection to the database moves the tag of the next request', async () => {
    // What another process's write does to the database (its counter moves in its own transaction), done here
    // beside the server: on SQLite the server must see that another connection committed (PRAGMA data_version).
    for (let round = 0; round < 3; round++) {
      const etag = tagOf(await shelfPage());
      assert.equal((await shelfPage({ 'if-none-match': etag })).status, 304);
      await execDirect(server.databaseUrl, `UPDATE models SET content_version = content_version + 1 WHERE id = '${shelf.id}'`);
      const after = await shelfPage({ 'if-none-match': etag });
      assert.equal(after.status, 200, `round ${round}: ${after.status} ${after.text}`);
      assert.notEqual(tagOf(after), etag);
    }
  });

  test("delivery caching: the tag a revalidation is compared with follows that request's Accept", async () => {
    const asJson = tagOf(await shelfPage());
    const asGraphQLResponse = tagOf(await shelfPage({ accept: 'application/graphql-response+json' }));
    assert.notEqual(asJson, asGraphQLResponse);
    for (let round = 0; round < 2; round++) {
      const crossed = await shelfPage({ accept: 'application/graphql-response+json', 'if-none-match': asJson });
      assert.equal(crossed.status, 200, "the JSON answer's tag is not current for the other representation");
      assert.equal(crossed.headers.get('etag'), asGraphQLResponse);
      assert.equal((await shelfPage({ 'if-none-match': asJson })).status, 304);
      assert.equal((await shelfPage({ 'if-none-match': asGraphQLResponse })).status, 200);
    }
  });

  test('delivery caching: a write in another workspace leaves the tag current (304)', async () => {
    const etag = tagOf(await shelfPage());
    const foreign = await other.createSimpleModel({ deliveryAccess: 'public' });
    const record = await other.createRecord(foreign.id, { title: 'elsewhere' });
    await other.patchRaw(record.id, { title: 'still elsewhere' });
    await other.deleteRaw(record.id);
    assert.equal((await shelfPage({ 'if-none-match': etag })).status, 304);
  });

  test('delivery caching: a revalidation that finds the tag current does not run the query (it answers while the records table is gone)', async () => {
    const etag = tagOf(await shelfPage());
    await execDirect(server.databaseUrl, 'ALTER TABLE records RENAME TO records_away');
    try {
      // Running the query now fails, and the server logs the failure with the request's id.
      const ran = await shelfPage();
      assert.ok(
        ran.status !== 200 || ran.body.errors !== undefined,
        `the query needs the records table: ${ran.status} ${ran.text}`,
      );
      assert.equal(ran.headers.get('etag'), null, 'a failed answer carries no tag');
      assert.equal(ran.headers.get('cache-control'), 'no-store');
      assert.ok(
        (await logOf(ran)).some((entry) => entry.level >= 50),
        'running the query logs an error while the table is gone',
      );
      const revalidated = await shelfPage({ 'if-none-match': etag });
      assert.equal(revalidated.status, 304, revalidated.text);
      assert.deepEqual(
        (await logOf(revalidated)).map((entry) => [entry.msg, entry.status]),
        [['request', 304]],
        'the revalidation logged nothing but its request line: nothing ran',
      );
    } finally {
      await execDirect(server.databaseUrl, 'ALTER TABLE records_away RENAME TO records');
    }
    assert.equal(tagOf(await shelfPage()), etag);
  });

  test('delivery caching: a 200 whose answer has errors (an unknown model) carries its ETag and Cache-Control, and revalidates', async () => {
    const notFound = await get(SHELF, { slug: 'no-such-model' });
    assert.equal(notFound.status, 200);
    assert.equal(notFound.body.errors[0].extensions.code, 'NOT_FOUND');
    assert.equal(notFound.headers.get('cache-control'), DEFAULT_CACHE_CONTROL);
    const notFoundTag = notFound.headers.get('etag');
    assert.ok(notFoundTag, 'every 200 carries an ETag');
    const revalidated = await get(SHELF, { slug: 'no-such-model' }, { 'if-none-match': notFoundTag });
    assert.equal(revalidated.status, 304, revalidated.text);
    await owner.createRecord(shelf.id, { title: 'a write moves the tag' });
    const after = await get(SHELF, { slug: 'no-such-model' }, { 'if-none-match': notFoundTag });
    assert.equal(after.status, 200, 'a write moves the tag of every answer of the workspace');
    assert.notEqual(after.headers.get('etag'), notFoundTag);
  });

  test('delivery caching: refusals, and answers the route could not tag (an unknown workspace), carry no ETag and Cache-Control: no-store', async () => {
    const invalid = await get('{ public { nope } }', undefined, { accept: 'application/graphql-response+json' });
    assert.equal(invalid.status, 400);
    const unknownWorkspace = await get(SHELF, { slug: shelf.slug }, {}, server.deliveryUrl('acme', 'nope'));
    assert.ok(unknownWorkspace.body.errors, unknownWorkspace.text);
    const badVariables = await request(`${deliveryUrl}?query=${encodeURIComponent(SHELF)}&variables=%7Bnot-json`);
    assert.equal(badVariables.status, 400);
    for (const response of [invalid, unknownWorkspace, badVariables]) {
      assert.equal(response.headers.get('etag'), null, response.text);
      assert.equal(response.headers.get('cache-control'), 'no-store', response.text);
    }
  });

  test('delivery caching: a mutation by GET is 405 with Allow: POST, whatever If-None-Match says, and nothing runs', async () => {
    const etag = tagOf(await shelfPage());
    const mutation = `mutation { record { create(input: { modelId: "${shelf.id}", data: { title: "by GET" } }) { id } } }`;
    const conditions: Record<string, string>[] = [{}, { 'if-none-match': etag }, { 'if-none-match': '*' }];
    for (const headers of conditions) {
      const response = await get(mutation, undefined, headers);
      assert.equal(response.status, 405, response.text);
      assert.equal(response.headers.get('allow'), 'POST');
      assert.equal(response.headers.get('cache-control'), 'no-store');
      assert.deepEqual(response.body, {
        errors: [{ message: 'Mutations must be sent by POST, not GET', extensions: { code: 'BAD_USER_INPUT' } }],
      });
    }
    assert.equal((await shelfPage({ 'if-none-match': etag })).status, 304, 'nothing was written');
  });

  test('delivery caching: a 304 decided early (a URL answered before) has the headers of one the route decides — CORS, ETag, Cache-Control, Vary — and its own request id and log line', async () => {
    let n = 0;
    const query = () => `{ public { model { records(modelSlug: "${shelf.slug}", limit: ${++n}) { total } } } }`;
    for (const method of ['GET', 'HEAD']) {
      for (const headers of [
        {},
        { origin: 'https://shop.example.com' },
        { accept: 'application/graphql-response+json' },
      ] as Record<string, string>[]) {
        const early = await assertEarly304LikeRoute(deliveryUrl, query(), headers, method);
        assert.equal(early['access-control-allow-origin'], '*');
        assert.equal(early['access-control-expose-headers'], 'x-request-id, etag');
        assert.equal(early['cache-control'], DEFAULT_CACHE_CONTROL);
        assert.equal(early.vary, 'Accept');
      }
    }
    const etag = tagOf(await shelfPage());
    const revalidated = await shelfPage({ 'if-none-match': etag });
    assert.equal(revalidated.status, 304);
    const log = await logOf(revalidated);
    assert.deepEqual(
      log.map((entry) => ({ msg: entry.msg, status: entry.status })),
      [{ msg: 'request', status: 304 }],
    );
    const line = log[0] as unknown as Record<string, unknown>;
    assert.equal(line.method, 'GET');
    assert.equal(line.url, new URL(deliveryUrl).pathname, 'the path, without the query string');
    assert.equal(typeof line.durationMs, 'number');
  });

  test('delivery caching: CORS lets a page send x-workspace-id and If-None-Match, and read the ETag', async () => {
    const preflight = await fetch(deliveryUrl, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-workspace-id,if-none-match',
      },
    });
    await preflight.arrayBuffer();
    assert.ok(preflight.status >= 200 && preflight.status < 300, `preflight ${preflight.status}`);
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    for (const header of ['content-type', 'x-workspace-id', 'if-none-match']) assert.ok(allowed.includes(header), allowed.join());
    const response = await shelfPage({ origin: 'https://shop.example.com', 'x-workspace-id': owner.workspaceId });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('access-control-expose-headers') ?? '', /\betag\b/i);
  });

  test('delivery caching: with a list of CORS origins, Vary names Origin and Accept on 200 and 304', async () => {
    const listed = await startServer({ env: { CORS_ORIGINS: 'https://shop.example.com' } });
    try {
      await listed.bootstrap({ org: 'acme', workspace: 'main', email: 'o@acme.test' });
      const url = listed.deliveryUrl('acme', 'main');
      const query = '{ public { model { definitions { slug } } } }';
      const headers = { origin: 'https://shop.example.com' };
      const full = await get(query, undefined, headers, url);
      const vary = (full.headers.get('vary') ?? '').toLowerCase();
      assert.ok(vary.includes('origin') && vary.includes('accept'), vary);
      const revalidated = await get(query, undefined, { ...headers, 'if-none-match': tagOf(full) }, url);
      assert.equal(revalidated.status, 304);
      assert.equal(revalidated.headers.get('vary'), full.headers.get('vary'));
      assert.equal(revalidated.headers.get('access-control-allow-origin'), 'https://shop.example.com');
      let n = 0;
      const page = () => `{ public { model { definitions { slug } } } } # ${++n}`;
      for (const method of ['GET', 'HEAD']) {
        const allowed = await assertEarly304LikeRoute(url, page(), headers, method);
        assert.equal(allowed['access-control-allow-origin'], 'https://shop.example.com');
        assert.equal(allowed.vary, 'Origin, Accept');
        assert.equal(allowed['access-control-expose-headers'], 'x-request-id, etag');
        const unlisted = await assertEarly304LikeRoute(url, page(), { origin: 'https://elsewhere.example' }, method);
        assert.equal(unlisted['access-control-allow-origin'], undefined, 'an origin not listed is not allowed');
        assert.equal(unlisted.vary, 'Origin, Accept');
        const none = await assertEarly304LikeRoute(url, page(), {}, method);
        assert.equal(none['access-control-allow-origin'], undefined);
      }
    } finally {
      await listed.dispose();
    }
  });

  test('delivery caching: two server processes on one database give one tag, and a write through one moves the tag of the other', async () => {
    const second = await startServer({ dir: server.dir });
    try {
      const secondUrl = second.deliveryUrl('acme', 'main');
      const etag = tagOf(await shelfPage());
      assert.equal(tagOf(await get(SHELF, { slug: shelf.slug }, {}, secondUrl)), etag);
      let current = etag;
      for (let round = 0; round < 3; round++) {
        // The second process has answered (and revalidated) this URL: it knows it, and its database's version.
        assert.equal((await get(SHELF, { slug: shelf.slug }, { 'if-none-match': current }, secondUrl)).status, 304);
        await owner.createRecord(shelf.id, { title: `through the first process ${round}` });
        const after = await get(SHELF, { slug: shelf.slug }, { 'if-none-match': current }, secondUrl);
        assert.equal(after.status, 200, `round ${round}: the write through the first process is seen by the second`);
        assert.notEqual(tagOf(after), current);
        current = tagOf(after);
      }
    } finally {
      await second.stop();
    }
  });
});

describe('delivery caching: --delivery-max-age and DELIVERY_MAX_AGE', () => {
  test('delivery caching: DELIVERY_MAX_AGE sets s-maxage and stale-while-revalidate; --delivery-max-age wins over it; 304s carry the same', async () => {
    const byEnv = await startServer({ env: { DELIVERY_MAX_AGE: '30' } });
    const byFlag = await startServer({ env: { DELIVERY_MAX_AGE: '30' }, extraArgs: ['--delivery-max-age', '600'] });
    try {
      for (const [own, seconds] of [
        [byEnv, 30],
        [byFlag, 600],
      ] as const) {
        await own.bootstrap({ org: 'acme', workspace: 'main', email: 'o@acme.test' });
        const url = own.deliveryUrl('acme', 'main');
        const query = '{ public { model { definitions { slug } } } }';
        const expected = `public, max-age=0, s-maxage=${seconds}, stale-while-revalidate=${seconds}`;
        const full = await get(query, undefined, {}, url);
        assert.equal(full.headers.get('cache-control'), expected);
        const revalidated = await get(query, undefined, { 'if-none-match': tagOf(full) }, url);
        assert.equal(revalidated.status, 304);
        assert.equal(revalidated.headers.get('cache-control'), expected);
        const error = await get('{ public { model { records(modelSlug: "nope") { total } } } }', undefined, {}, url);
        assert.equal(error.headers.get('cache-control'), expected, 'an answer with errors is cached as any answer is');
      }
    } finally {
      await byEnv.dispose();
      await byFlag.dispose();
    }
  });

  test('delivery caching: a bad --delivery-max-age (exit 2, a usage mistake) or DELIVERY_MAX_AGE (exit 1) stops serve with a message naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-max-age-'));
    try {
      const database = `sqlite:${join(dir, 'bad.db')}`;
      for (const value of ['-1', 'abc', '1.5', '', '31536001']) {
        const result = await runCli(['serve', '--port', '0', '--database', database, '--delivery-max-age', value], {
          timeoutMs: 15_000,
        });
        assert.equal(result.code, 2, `--delivery-max-age ${JSON.stringify(value)}: ${result.stdout}${result.stderr}`);
        assert.match(result.stderr, /--delivery-max-age/);
        assert.match(result.stderr, /must be a whole number of seconds from 0 to 31536000/);
      }
      const result = await runCli(['serve', '--port', '0', '--database', database], {
        env: { DELIVERY_MAX_AGE: 'ten' },
        timeoutMs: 15_000,
      });
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.match(result.stderr, /DELIVERY_MAX_AGE: must be a whole number of seconds from 0 to 31536000, got "ten"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
