// Tokens never reach the logs, and the database stores only their SHA-256 hash.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { bootstrapAdmin, gql, request, uniqueSlug } from '../support/client.js';
import { runCli, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
/** Every token string this run used, real or made up. */
const tokens: string[] = [];
let wrongToken = '';
let logs = '';
let workspaceId = '';

before(async () => {
  // Always SQLite: the test reads the api_tokens table with better-sqlite3. LOG_LEVEL=trace: the most the server logs.
  const dir = mkdtempSync(join(tmpdir(), 'content-service-token-logs-'));
  server = await startServer({ dir, databaseUrl: `sqlite:${join(dir, 'content.db')}`, env: { LOG_LEVEL: 'trace' } });
  const owner = await bootstrapAdmin(server, { org: 'acme', workspace: 'main', email: 'owner@acme.test', role: 'owner' });
  const other = await bootstrapAdmin(server, { org: 'acme', workspace: 'other', email: 'other@acme.test', role: 'owner' });
  workspaceId = owner.workspaceId;
  const viewer = await server.createToken({ workspaceId, email: 'viewer@acme.test', role: 'viewer' });
  const editor = await server.createToken({ workspaceId, email: 'editor@acme.test', role: 'editor' });
  const revoked = await server.createToken({ workspaceId, email: 'revoked@acme.test', role: 'owner' });
  const revoke = await runCli(['token', 'revoke', '--token', revoked.token, '--database', server.databaseUrl]);
  assert.equal(revoke.code, 0, revoke.stderr);
  const wrong = `cs_${randomBytes(32).toString('base64url')}`;
  wrongToken = wrong;
  tokens.push(owner.token, other.token, viewer.token, editor.token, revoked.token, wrong);

  const model = await owner.createSimpleModel({ slug: uniqueSlug('logs'), deliveryAccess: 'public' });
  const create = 'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }';
  const as = (token: string, ws = workspaceId) => ({ token, workspaceId: ws });
  const statuses: number[] = [];
  const send = async (promise: Promise<{ status: number }>) => statuses.push((await promise).status);

  // Successful requests.
  await send(gql(server.adminUrl, as(owner.token), '{ model { list { id } } }'));
  await send(gql(server.adminUrl, as(editor.token), create, { input: { modelId: model.id, data: { title: 'ok' } } }));
  await send(gql(server.adminUrl, as(viewer.token), '{ model { list { id } } }'));
  await send(gql(server.deliveryUrl('acme', 'main'), as(owner.token), '{ public { model { definitions { slug } } } }'));
  // Refused: 403, 401 (revoked, wrong, other workspace, wrong workspace id), field error, bad JSON, syntax error.
  await send(gql(server.adminUrl, as(viewer.token), create, { input: { modelId: model.id, data: { title: 'no' } } }));
  await send(gql(server.adminUrl, as(revoked.token), '{ model { list { id } } }'));
  await send(gql(server.adminUrl, as(wrong), '{ model { list { id } } }'));
  await send(gql(server.adminUrl, as(other.token), '{ model { list { id } } }'));
  await send(gql(server.adminUrl, as(owner.token, other.workspaceId), '{ model { list { id } } }'));
  await send(gql(server.adminUrl, as(`Basic ${editor.token}`), '{ model { list { id } } }'));
  await send(gql(server.adminUrl, as(editor.token), create, { input: { modelId: model.id, data: { nope: 1 } } }));
  await send(gql(server.adminUrl, as(editor.token), '{ model { list { id } '));
  await send(
    request(server.adminUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}`, 'x-workspace-id': workspaceId },
      body: '{"query": ',
    }),
  );
  await send(
    request(server.adminUrl, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${viewer.token}`, 'x-workspace-id': workspaceId },
      body: 'hello',
    }),
  );
  // The syntax error is a GraphQL request error: 200 with errors for application/json (GraphQL over HTTP).
  assert.deepEqual(statuses, [200, 200, 200, 200, 403, 401, 401, 401, 401, 401, 200, 200, 400, 415]);

  await server.stop();
  logs = server.logs();
});

after(async () => {
  await server?.dispose();
});

test('tokens in logs: the server logged something (the check is not vacuous)', () => {
  assert.ok(logs.trim().length > 0, 'no output captured');
  assert.match(logs, /listening/);
});

test('tokens in logs: no token, nor the random part after cs_, appears in the server output', () => {
  assert.equal(tokens.length, 6);
  for (const token of tokens) {
    assert.ok(token.startsWith('cs_'));
    const random = token.slice('cs_'.length);
    assert.ok(!logs.includes(token), `a token was logged: ${token}`);
    assert.ok(!logs.includes(random), `the random part of a token was logged: ${random}`);
    // Not even a long piece of it (e.g. a truncated token).
    assert.ok(!logs.includes(random.slice(0, 16)), `a piece of a token was logged: ${random.slice(0, 16)}`);
  }
});

test('tokens at rest: api_tokens stores only a 64-hex SHA-256 hash, never the token', () => {
  const db = new Database(server.databaseUrl.slice('sqlite:'.length), { readonly: true });
  try {
    const rows = db.prepare('SELECT * FROM api_tokens').all() as Record<string, unknown>[];
    assert.equal(rows.length, 5, 'owner, other, viewer, editor, revoked');
    const hashes = new Set(rows.map((row) => row.token_hash));
    for (const row of rows) {
      assert.match(String(row.token_hash), /^[0-9a-f]{64}$/);
      const stored = JSON.stringify(row);
      for (const token of tokens) {
        assert.ok(!stored.includes(token.slice('cs_'.length)), 'a plain token is stored');
        assert.notEqual(row.token_hash, token);
      }
    }
    // Each real token is found by its hash, the made-up one is not.
    for (const token of tokens.slice(0, 5)) {
      assert.ok(hashes.has(createHash('sha256').update(token).digest('hex')), 'the stored value is the SHA-256 of the token');
    }
    assert.ok(!hashes.has(createHash('sha256').update(wrongToken).digest('hex')));
  } finally {
    db.close();
  }
});
