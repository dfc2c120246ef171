// Conventions: x-request-id, content types, GraphiQL, /healthz, request logs (one line per request, never a token).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Admin, bootstrapAdmin, gql, request } from '../support/client.js';
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

/** Log lines (stdout and stderr) that mention `needle`, waiting briefly for the log to be flushed. */
async function logLinesWith(needle: string, atLeast = 1): Promise<string[]> {
  for (let i = 0; i < 40; i++) {
    const lines = server
      .logs()
      .split('\n')
      .filter((line) => line.includes(needle));
    if (lines.length >= atLeast) return lines;
    await sleep(25);
  }
  return server
    .logs()
    .split('\n')
    .filter((line) => line.includes(needle));
}

describe('conventions', () => {
  test('conventions: GET /healthz answers 200 {"status":"ok","database":"ok"}', async () => {
    const response = await request(`${server.url}/healthz`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: 'ok', database: 'ok' });
  });

  test('conventions: the admin route sends no CORS headers', async () => {
    const response = await owner.q('{ model { list { id } } }', undefined, { origin: 'https://evil.example' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), null);
    const preflight = await fetch(server.adminUrl, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      },
    });
    await preflight.arrayBuffer();
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
  });

  test('conventions: every response carries an x-request-id header, different for each request', async () => {
    const responses = await Promise.all([
      owner.q('{ model { list { id } } }'),
      gql(server.adminUrl, {}, '{ model { list { id } } }'),
      request(server.adminUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }),
      request(`${server.url}/healthz`),
      request(`${server.url}/graphql`, { headers: { accept: 'text/html' } }),
      gql(server.deliveryUrl('acme', 'main'), {}, '{ public { model { definitions { slug } } } }'),
      request(server.deliveryUrl('acme', 'main'), {
        method: 'OPTIONS',
        headers: { origin: 'https://x.example', 'access-control-request-method': 'POST' },
      }),
      request(`${server.url}/no/such/route`),
    ]);
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    for (const [i, id] of ids.entries())
      assert.ok(id && id.length > 0, `response ${i} (${responses[i]!.status}) has x-request-id`);
    assert.equal(new Set(ids).size, ids.length, 'request ids are unique');
  });

  test('conventions: admin responses are application/json by default', async () => {
    const response = await owner.q('{ model { list { id } } }');
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  });

  test('conventions: Accept: application/graphql-response+json gets that content type', async () => {
    const ok = await owner.q('{ model { list { id } } }', undefined, { accept: 'application/graphql-response+json' });
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('content-type') ?? '', /^application\/graphql-response\+json/);
    assert.ok(Array.isArray(ok.body.data.model.list));
    const bad = await owner.q('{ nope }', undefined, { accept: 'application/graphql-response+json' });
    assert.equal(bad.status, 400);
    assert.match(bad.headers.get('content-type') ?? '', /^application\/graphql-response\+json/);
    const delivery = await gql(
      server.deliveryUrl('acme', 'main'),
      {},
      '{ public { model { definitions { slug } } } }',
      undefined,
      {
        accept: 'application/graphql-response+json',
      },
    );
    assert.match(delivery.headers.get('content-type') ?? '', /^application\/graphql-response\+json/);
  });

  test('conventions: GET /graphql with Accept text/html returns the GraphiQL page', async () => {
    const response = await request(server.adminUrl, { headers: { accept: 'text/html,application/xhtml+xml' } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(response.text, /graphiql/i);
    assert.match(response.text, /<html/i);
  });

  test('conventions: the GraphiQL page loads its scripts and styles from this server', async () => {
    const page = await request(server.adminUrl, { headers: { accept: 'text/html' } });
    const refs = [...page.text.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"/g)].map((m) => m[1]!);
    for (const ref of refs) {
      assert.ok(!/^https?:\/\//.test(ref) || ref.startsWith(server.url), `asset served locally, not from a CDN: ${ref}`);
      const asset = await fetch(new URL(ref, server.adminUrl));
      await asset.arrayBuffer();
      assert.equal(asset.status, 200, `${ref} loads`);
    }
  });

  test('conventions: logs carry one line per request, with its status and duration', async () => {
    const ok = await owner.q('{ model { list { id } } }');
    const denied = await gql(server.adminUrl, { token: 'cs_wrong', workspaceId: owner.workspaceId }, '{ model { list { id } } }');
    for (const [response, status] of [
      [ok, 200],
      [denied, 401],
    ] as const) {
      const id = response.headers.get('x-request-id');
      assert.ok(id);
      const lines = await logLinesWith(id);
      const requestLines = lines.filter((line) => /duration/i.test(line));
      assert.equal(requestLines.length, 1, `exactly one request line for ${id}:\n${lines.join('\n')}`);
      const line = requestLines[0]!;
      assert.match(line, new RegExp(`\\b${status}\\b`), `status ${status} in: ${line}`);
      assert.match(line, /status/i);
      assert.match(line, /duration\w*"?\s*[:=]\s*\d/i, `a numeric duration in: ${line}`);
      // docs/configuration.md: one JSON line with requestId, method, url, status, durationMs.
      const entry = JSON.parse(line);
      assert.equal(entry.requestId, id);
      assert.equal(entry.method, 'POST');
      assert.equal(entry.url, '/graphql');
      assert.equal(entry.status, status);
      assert.equal(typeof entry.durationMs, 'number');
    }
  });

  test('conventions: the logs never contain a token', async () => {
    const wrong = 'cs_neverLogThisSecretValue1234567890abcdefgh';
    await owner.q('{ model { list { id } } }');
    const model = await owner.createSimpleModel();
    await owner.createRecord(model.id, { title: 'logged?' });
    await gql(server.adminUrl, { token: wrong, workspaceId: owner.workspaceId }, '{ model { list { id } } }');
    await request(server.adminUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${owner.token}`,
        'x-workspace-id': owner.workspaceId,
      },
      body: '{ broken json',
    });
    const last = await owner.q('{ model { list { id } } }');
    await logLinesWith(last.headers.get('x-request-id')!);
    const logs = server.logs();
    assert.ok(logs.length > 0, 'the server logs requests');
    for (const secret of [owner.token, owner.token.slice(3), wrong, wrong.slice(3)]) {
      assert.ok(!logs.includes(secret), `a token appears in the logs: ${secret.slice(0, 8)}…`);
    }
    assert.ok(!/authorization/i.test(logs) || !/Bearer /.test(logs), 'no Authorization header values in the logs');
  });
});
