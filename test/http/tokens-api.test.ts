// API tokens and workspace settings through the admin GraphQL API (beyond the spec): workspace.current,
// token.list / create / revoke for owners and admins (API token or admin session), refused for editors and
// viewers, never showing a token or its hash, and free of the record write budget.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Admin, dataOf, expectError, gql, NOT_AUTHORIZED_BODY, type Credentials, type GqlResponse } from '../support/client.js';
import { runCli, startServer, type TestServer } from '../support/server.js';
import { sessionCredentials, setPassword, signIn } from '../support/session.js';
import { waitFor } from '../support/wait-for.js';

const BUDGET = 2;
const CONNECTIVITY = '{ model { list { id } } }';
const TOKEN_FIELDS = 'id name userEmail role createdAt expiresAt revokedAt';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let server: TestServer;
let owner: Admin;
let ownerTokenId: string;
let other: Admin; // owner of another workspace
const tokens = new Map<'admin' | 'editor' | 'viewer', { token: string; tokenId: string }>();

before(async () => {
  server = await startServer({ writeBudget: BUDGET });
  const bootstrapped = await server.bootstrap({ org: 'acme', workspace: 'main', email: 'owner@acme.test', role: 'owner' });
  owner = new Admin(server, bootstrapped);
  other = new Admin(
    server,
    await server.bootstrap({ org: 'acme', workspace: 'other', email: 'owner@other.test', role: 'owner' }),
  );
  for (const role of ['admin', 'editor', 'viewer'] as const) {
    const result = await runCli([
      'token',
      'create',
      '--workspace-id',
      owner.workspaceId,
      '--email',
      `${role}@acme.test`,
      '--role',
      role,
      '--name',
      `${role} cli`,
      '--json',
      '--database',
      server.databaseUrl,
    ]);
    assert.equal(result.code, 0, result.stderr);
    const parsed = JSON.parse(result.stdout);
    tokens.set(role, { token: parsed.token, tokenId: parsed.tokenId });
  }
  ownerTokenId = (await list(owner.credentials)).find((t: any) => t.name === 'bootstrap' && t.userEmail === 'owner@acme.test').id;
});

after(async () => {
  await server?.dispose();
});

function as(role: 'admin' | 'editor' | 'viewer'): Credentials {
  return { token: tokens.get(role)!.token, workspaceId: owner.workspaceId };
}

function createRaw(credentials: Credentials, input: Record<string, unknown>): Promise<GqlResponse> {
  return gql(
    server.adminUrl,
    credentials,
    `mutation($input: CreateApiTokenInput!) { token { create(input: $input) { token apiToken { ${TOKEN_FIELDS} } } } }`,
    {
      input,
    },
  );
}

async function create(credentials: Credentials, input: Record<string, unknown>): Promise<{ token: string; apiToken: any }> {
  return dataOf(await createRaw(credentials, input)).token.create;
}

function revokeRaw(credentials: Credentials, id: string): Promise<GqlResponse> {
  return gql(server.adminUrl, credentials, 'mutation($id: ID!) { token { revoke(id: $id) { id deleted } } }', { id });
}

function listRaw(credentials: Credentials): Promise<GqlResponse> {
  return gql(server.adminUrl, credentials, `{ token { list { ${TOKEN_FIELDS} } } }`);
}

async function list(credentials: Credentials): Promise<any[]> {
  return dataOf(await listRaw(credentials)).token.list;
}

async function connectivity(credentials: Credentials): Promise<GqlResponse> {
  return gql(server.adminUrl, credentials, CONNECTIVITY);
}

function assertNotAuthorized(response: GqlResponse): void {
  assert.equal(response.status, 401, `expected 401, got ${response.status}: ${response.text}`);
  assert.equal(response.text, JSON.stringify(NOT_AUTHORIZED_BODY));
}

describe('workspace.current', () => {
  test('workspace.current: id, slugs, the caller role, the delivery path and the default write budget', async () => {
    const current = dataOf(
      await gql(
        server.adminUrl,
        owner.credentials,
        '{ workspace { current { id orgSlug slug role deliveryPath writeBudget writeBudgetIsDefault } } }',
      ),
    ).workspace.current;
    assert.deepEqual(current, {
      id: owner.workspaceId,
      orgSlug: 'acme',
      slug: 'main',
      role: 'owner',
      deliveryPath: '/public/acme/main/graphql',
      writeBudget: BUDGET,
      writeBudgetIsDefault: true,
    });
    const delivery = await gql(`${server.url}${current.deliveryPath}`, {}, '{ public { model { definitions { slug } } } }');
    assert.equal(delivery.status, 200, delivery.text);
  });

  test('workspace.current: any role may read it, with its own role; a budget set for the workspace is shown', async () => {
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      const current = dataOf(await gql(server.adminUrl, as(role), '{ workspace { current { id role } } }')).workspace.current;
      assert.deepEqual(current, { id: owner.workspaceId, role });
    }
    const result = await runCli([
      'workspace',
      'set-budget',
      '--workspace-id',
      other.workspaceId,
      '--budget',
      '7',
      '--database',
      server.databaseUrl,
    ]);
    assert.equal(result.code, 0, result.stderr);
    const current = dataOf(
      await gql(server.adminUrl, other.credentials, '{ workspace { current { writeBudget writeBudgetIsDefault } } }'),
    ).workspace.current;
    assert.deepEqual(current, { writeBudget: 7, writeBudgetIsDefault: false });
  });
});

describe('token management', () => {
  test('token.create: an owner gets a new cs_ token acting as the owner, shown once, with its listing entry', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const created = await create(owner.credentials, { name: '  CI deploy  ', expiresAt });
    assert.match(created.token, /^cs_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(
      { ...created.apiToken, id: 'x', createdAt: 'x' },
      {
        id: 'x',
        name: 'CI deploy',
        userEmail: 'owner@acme.test',
        role: 'owner',
        createdAt: 'x',
        expiresAt,
        revokedAt: null,
      },
    );
    assert.match(created.apiToken.createdAt, ISO);
    // The new token works at once, as the owner (may change models).
    const made = await new Admin(server, { token: created.token, workspaceId: owner.workspaceId }).createSimpleModel();
    assert.ok(made.id);
    // It is listed without the token.
    const listed = await list(owner.credentials);
    assert.deepEqual(listed[0], created.apiToken, 'newest first');
  });

  test('token.list: every token of the workspace (all users), with role and expiry, never the token or its hash', async () => {
    const created = await create(owner.credentials, { name: 'listed' });
    const response = await listRaw(owner.credentials);
    const listed = dataOf(response).token.list;
    const byName = new Map(listed.map((t: any) => [t.name, t]));
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      const entry: any = byName.get(`${role} cli`);
      assert.ok(entry, `${role} token listed`);
      assert.equal(entry.id, tokens.get(role)!.tokenId);
      assert.equal(entry.userEmail, `${role}@acme.test`);
      assert.equal(entry.role, role);
      assert.equal(entry.expiresAt, null);
    }
    assert.ok(listed.some((t: any) => t.id === ownerTokenId));
    assert.ok(!listed.some((t: any) => t.userEmail === 'owner@other.test'), 'no token of another workspace');
    const times = listed.map((t: any) => t.createdAt);
    assert.deepEqual([...times].sort().reverse(), times, 'newest first');
    for (const secret of [created.token, owner.token, ...[...tokens.values()].map((t) => t.token)]) {
      assert.ok(!response.text.includes(secret), 'a token in the listing');
      assert.ok(!response.text.includes(secret.slice(3)), 'the random part of a token in the listing');
      assert.ok(!response.text.includes(createHash('sha256').update(secret).digest('hex')), 'a token hash in the listing');
    }
  });

  test('token.revoke: the token stops working at once (401), is listed with revokedAt; revoking again changes nothing', async () => {
    const created = await create(owner.credentials, { name: 'to revoke' });
    const credentials = { token: created.token, workspaceId: owner.workspaceId };
    assert.equal((await connectivity(credentials)).status, 200);
    assert.deepEqual(dataOf(await revokeRaw(owner.credentials, created.apiToken.id)).token.revoke, {
      id: created.apiToken.id,
      deleted: true,
    });
    assertNotAuthorized(await connectivity(credentials));
    const entry = (await list(owner.credentials)).find((t) => t.id === created.apiToken.id);
    assert.match(entry.revokedAt, ISO);
    assert.deepEqual(dataOf(await revokeRaw(owner.credentials, created.apiToken.id)).token.revoke, {
      id: created.apiToken.id,
      deleted: true,
    });
    assert.equal((await list(owner.credentials)).find((t) => t.id === created.apiToken.id).revokedAt, entry.revokedAt);
  });

  test('token.revoke: an unknown id, or a token of another workspace, is NOT_FOUND and that token keeps working', async () => {
    const error = expectError(await revokeRaw(owner.credentials, 'no-such-token'), 'NOT_FOUND');
    assert.equal(error.message, 'id: token not found');
    const otherToken = (await list(other.credentials))[0];
    assert.equal(expectError(await revokeRaw(owner.credentials, otherToken.id), 'NOT_FOUND').message, 'id: token not found');
    assert.equal((await connectivity(other.credentials)).status, 200);
  });

  test('token.create: an admin may manage tokens; the token acts as the admin', async () => {
    const created = await create(as('admin'), { name: 'by admin' });
    assert.equal(created.apiToken.userEmail, 'admin@acme.test');
    assert.equal(created.apiToken.role, 'admin');
    assert.ok((await list(as('admin'))).some((t) => t.id === created.apiToken.id));
    assert.deepEqual(dataOf(await revokeRaw(as('admin'), created.apiToken.id)).token.revoke.deleted, true);
  });

  test('token management: editors and viewers get 403 "may not manage tokens" for list, create and revoke; nothing changes', async () => {
    const before = await list(owner.credentials);
    for (const role of ['editor', 'viewer'] as const) {
      const message = `Forbidden: ${role} may not manage tokens`;
      for (const response of [
        await listRaw(as(role)),
        await createRaw(as(role), { name: 'nope' }),
        await revokeRaw(as(role), ownerTokenId),
        await revokeRaw(as(role), tokens.get(role)!.tokenId),
      ]) {
        assert.equal(response.status, 403, response.text);
        assert.deepEqual(response.body.errors, [{ message, extensions: { code: 'FORBIDDEN' } }]);
      }
    }
    assert.deepEqual(await list(owner.credentials), before);
    assert.equal((await connectivity(owner.credentials)).status, 200);
  });

  test('token.create: an empty name, an expiry in the past or not a date-time are refused naming the field; nothing created', async () => {
    const before = (await list(owner.credentials)).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '   ' }, 'name: must not be empty'],
      [{ name: 'x'.repeat(201) }, 'name: must be at most 200 characters'],
      [{ name: 'past', expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt: must be in the future'],
      [{ name: 'garbage', expiresAt: 'tomorrow' }, 'expiresAt: must be an ISO 8601 date-time, e.g. 2030-01-31T00:00:00Z'],
    ];
    for (const [input, message] of cases) {
      const error = expectError(await createRaw(owner.credentials, input), 'BAD_USER_INPUT');
      assert.equal(error.message, message);
    }
    assert.equal((await list(owner.credentials)).length, before);
  });

  // In real time, on the server's own clock; the exact boundary is checked on a set clock (test/auth/token-expiry.test.ts).
  test('token.create: a token past its expiresAt is refused with 401', async () => {
    const expiresAt = Date.now() + 1000;
    const created = await create(owner.credentials, { name: 'short lived', expiresAt: new Date(expiresAt).toISOString() });
    const credentials = { token: created.token, workspaceId: owner.workspaceId };
    assert.equal((await connectivity(credentials)).status, 200);
    let last: GqlResponse | undefined;
    await waitFor(async () => (last = await connectivity(credentials)).status !== 200, {
      timeoutMs: 10_000,
      intervalMs: 50,
      message: 'the token still worked 10 s after its expiresAt',
    });
    assert.ok(Date.now() >= expiresAt, 'refused only once expiresAt has passed');
    assertNotAuthorized(last!);
  });

  test(`token management costs nothing against the write budget (${BUDGET}/min): record writes keep the whole budget`, async () => {
    const workspace = await server.bootstrap({ org: 'budget', workspace: 'tokens', email: 'budget@acme.test', role: 'owner' });
    const admin = new Admin(server, workspace);
    const created = [];
    for (let i = 0; i < BUDGET * 3; i++) created.push(await create(admin.credentials, { name: `t${i}` }));
    for (const token of created.slice(0, BUDGET + 1)) dataOf(await revokeRaw(admin.credentials, token.apiToken.id));
    const model = await admin.createSimpleModel();
    for (let i = 0; i < BUDGET; i++) dataOf(await admin.createRecordRaw(model.id, { title: `r${i}` }));
    assert.equal((await admin.createRecordRaw(model.id, { title: 'over' })).status, 429);
  });

  test('token management through an admin session: acts as the signed-in user, with the CSRF header', async () => {
    await setPassword(server, 'admin@acme.test', 'admin password');
    const session = await signIn(server, 'admin@acme.test', 'admin password');
    const credentials = sessionCredentials(session, owner.workspaceId);
    const created = await create(credentials, { name: 'from the browser' });
    assert.equal(created.apiToken.userEmail, 'admin@acme.test');
    assert.equal(created.apiToken.role, 'admin');
    assert.equal((await connectivity({ token: created.token, workspaceId: owner.workspaceId })).status, 200);
    assert.deepEqual(dataOf(await revokeRaw(credentials, created.apiToken.id)).token.revoke, {
      id: created.apiToken.id,
      deleted: true,
    });
    assertNotAuthorized(await connectivity({ token: created.token, workspaceId: owner.workspaceId }));
    const withoutCsrf = await createRaw(sessionCredentials(session, owner.workspaceId, { csrf: false }), { name: 'csrf' });
    assert.equal(withoutCsrf.status, 403, withoutCsrf.text);
  });
});
