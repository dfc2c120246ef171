// Authorization matrix: every operation (admin and delivery) × every principal (roles and bad credentials).
// Exactly the allowed combinations succeed; the others get 401 `Not authorized` or 403 `Forbidden: <role> may not
// <action>`, and a refused request writes nothing (the workspace is snapshotted with an owner token before and after).
// On SQLite, and on PostgreSQL when DATABASE_URL is set (skipped with the reason otherwise; with CI=true an
// unreachable PostgreSQL fails): the server's database decides nothing here, but each store must answer the same.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  Admin,
  bootstrapAdmin,
  dataOf,
  gql,
  MODEL_FIELDS,
  NOT_AUTHORIZED_BODY,
  uniqueSlug,
  type Credentials,
  type GqlResponse,
} from '../support/client.js';
import { postgresTarget, sqliteTarget, type Target } from '../support/databases.js';
import { runCli, startServer, type TestServer } from '../support/server.js';
import { runSql, sessionCredentials, setPassword, signIn } from '../support/session.js';

// The server of the database being checked (set by that database's `before`; the databases run one after another).
let server: TestServer;
let owner: Admin;
let other: Admin; // owner of another workspace of the same organisation
let mainModel: any; // public, with records
let seededRecordId: string;
const principals = new Map<string, Credentials>();

type Principal =
  | 'owner'
  | 'admin'
  | 'editor'
  | 'viewer'
  | 'no token'
  | 'revoked token'
  | 'expired token'
  | 'token of another workspace'
  | 'wrong workspace id'
  | 'editor session'
  | 'session without CSRF token';

const PRINCIPALS: Principal[] = [
  'owner',
  'admin',
  'editor',
  'viewer',
  'no token',
  'revoked token',
  'expired token',
  'token of another workspace',
  'wrong workspace id',
  'editor session',
  'session without CSRF token',
];

type Kind =
  | 'read'
  | 'record-write'
  | 'model-write'
  | 'token-management'
  | 'webhook-management'
  | 'member-management'
  | 'workspace-settings'
  | 'delivery';

interface Operation {
  name: string;
  kind: Kind;
  /** Sets up what the operation acts on (with the owner token), before the snapshot. */
  prepare?: () => Promise<any>;
  run: (credentials: Credentials, target: any) => Promise<GqlResponse>;
  /** Checks the answer and the effect of an allowed call. */
  verify: (response: GqlResponse, target: any) => Promise<void>;
}

const CONNECTIVITY = '{ model { list { id slug name } } }';

function admin(credentials: Credentials, query: string, variables?: Record<string, unknown>): Promise<GqlResponse> {
  return gql(server.adminUrl, credentials, query, variables);
}

async function ownerRecord(title: string): Promise<any> {
  return owner.createRecord(mainModel.id, { title });
}

const TOKEN_FIELDS = 'id name userEmail role createdAt expiresAt revokedAt';

async function ownerToken(name: string): Promise<{ id: string; token: string }> {
  const created = dataOf(
    await admin(
      owner.credentials,
      'mutation($input: CreateApiTokenInput!) { token { create(input: $input) { token apiToken { id } } } }',
      {
        input: { name },
      },
    ),
  ).token.create;
  return { id: created.apiToken.id, token: created.token };
}

const MEMBER_FIELDS = 'userId email role hasPassword addedAt';

/** A new viewer of the main workspace, added with the owner token. */
async function ownerAddsMember(): Promise<{ userId: string; email: string }> {
  const email = `${uniqueSlug('matrix-member')}@acme.test`;
  const added = await owner.ok(
    'mutation($email: String!) { member { add(email: $email, role: "viewer") { member { userId } } } }',
    {
      email,
    },
  );
  return { userId: added.member.add.member.userId, email };
}

const OPERATIONS: Operation[] = [
  {
    name: 'member.list',
    kind: 'member-management',
    run: (c) => admin(c, `{ member { list { ${MEMBER_FIELDS} } } }`),
    verify: async (r) => {
      const listed = dataOf(r).member.list;
      assert.ok(listed.some((m: any) => m.email === 'owner@acme.test' && m.role === 'owner'));
      assert.ok(!listed.some((m: any) => m.email === 'owner@other.test'), 'only members of this workspace');
    },
  },
  {
    name: 'member.add',
    kind: 'member-management',
    prepare: async () => ({ email: `${uniqueSlug('matrix-add')}@acme.test` }),
    run: (c, t) =>
      admin(
        c,
        `mutation($email: String!) { member { add(email: $email, role: "editor") { member { ${MEMBER_FIELDS} } signInLink } } }`,
        { email: t.email },
      ),
    verify: async (r, t) => {
      const added = dataOf(r).member.add;
      assert.equal(added.member.email, t.email);
      assert.equal(added.member.role, 'editor');
      assert.equal(added.member.hasPassword, false);
      assert.match(added.signInLink, /^http:\/\/127\.0\.0\.1:\d+\/admin\/#\/welcome\?token=[A-Za-z0-9_-]{43}$/);
    },
  },
  {
    name: 'member.setRole',
    kind: 'member-management',
    prepare: ownerAddsMember,
    run: (c, t) =>
      admin(c, `mutation($id: ID!) { member { setRole(userId: $id, role: "editor") { ${MEMBER_FIELDS} } } }`, { id: t.userId }),
    verify: async (r, t) => {
      assert.deepEqual(
        { userId: dataOf(r).member.setRole.userId, role: dataOf(r).member.setRole.role },
        { userId: t.userId, role: 'editor' },
      );
    },
  },
  {
    name: 'member.remove',
    kind: 'member-management',
    prepare: ownerAddsMember,
    run: (c, t) => admin(c, 'mutation($id: ID!) { member { remove(userId: $id) { id deleted } } }', { id: t.userId }),
    verify: async (r, t) => {
      assert.deepEqual(dataOf(r).member.remove, { id: t.userId, deleted: true });
      const listed = (await owner.ok('{ member { list { userId } } }')).member.list;
      assert.ok(!listed.some((m: any) => m.userId === t.userId));
    },
  },
  {
    name: 'workspace.current',
    kind: 'read',
    run: (c) => admin(c, '{ workspace { current { id orgSlug slug deliveryPath } } }'),
    verify: async (r) =>
      assert.deepEqual(dataOf(r).workspace.current, {
        id: owner.workspaceId,
        orgSlug: 'acme',
        slug: 'main',
        deliveryPath: '/public/acme/main/graphql',
      }),
  },
  {
    name: 'workspace.update',
    kind: 'workspace-settings',
    run: (c) =>
      admin(c, 'mutation($input: UpdateWorkspaceInput!) { workspace { update(input: $input) { id defaultLocale } } }', {
        input: { defaultLocale: 'de' },
      }),
    verify: async (r) => {
      assert.deepEqual(dataOf(r).workspace.update, { id: owner.workspaceId, defaultLocale: 'de' });
      // Back to en, so that every call starts from the same workspace.
      await owner.ok('mutation { workspace { update(input: { defaultLocale: "en" }) { id } } }');
    },
  },
  {
    name: 'token.list',
    kind: 'token-management',
    run: (c) => admin(c, `{ token { list { ${TOKEN_FIELDS} } } }`),
    verify: async (r) => {
      const listed = dataOf(r).token.list;
      assert.ok(listed.some((t: any) => t.userEmail === 'owner@acme.test' && t.role === 'owner'));
      assert.ok(!r.text.includes(owner.token), 'never the token itself');
    },
  },
  {
    name: 'token.create',
    kind: 'token-management',
    prepare: async () => ({ name: uniqueSlug('matrix-token') }),
    run: (c, t) =>
      admin(
        c,
        `mutation($input: CreateApiTokenInput!) { token { create(input: $input) { token apiToken { ${TOKEN_FIELDS} } } } }`,
        {
          input: { name: t.name },
        },
      ),
    verify: async (r, t) => {
      const created = dataOf(r).token.create;
      assert.equal(created.apiToken.name, t.name);
      assert.equal((await admin({ token: created.token, workspaceId: owner.workspaceId }, CONNECTIVITY)).status, 200);
    },
  },
  {
    name: 'token.revoke',
    kind: 'token-management',
    prepare: () => ownerToken(uniqueSlug('matrix-revoke')),
    run: (c, t) => admin(c, 'mutation($id: ID!) { token { revoke(id: $id) { id deleted } } }', { id: t.id }),
    verify: async (r, t) => {
      assert.deepEqual(dataOf(r).token.revoke, { id: t.id, deleted: true });
      assert.equal((await admin({ token: t.token, workspaceId: owner.workspaceId }, CONNECTIVITY)).status, 401);
    },
  },
  {
    name: 'webhook.list',
    kind: 'webhook-management',
    run: (c) => admin(c, '{ webhook { list { id url } } }'),
    verify: async (r) => assert.ok(Array.isArray(dataOf(r).webhook.list)),
  },
  {
    name: 'webhook.create',
    kind: 'webhook-management',
    prepare: async () => ({ description: uniqueSlug('matrix-webhook') }),
    run: (c, t) =>
      admin(
        c,
        'mutation($input: CreateWebhookInput!) { webhook { create(input: $input) { secret webhook { id description } } } }',
        {
          // A public address written as a number (no DNS lookup), paused: nothing is ever sent to it.
          input: { url: 'https://93.184.215.14/hooks', events: ['*'], active: false, description: t.description },
        },
      ),
    verify: async (r, t) => {
      const created = dataOf(r).webhook.create;
      assert.equal(created.webhook.description, t.description);
      assert.match(created.secret, /^whsec_/);
      await owner.ok('mutation($id: ID!) { webhook { delete(id: $id) { id } } }', { id: created.webhook.id });
    },
  },
  {
    name: 'model.list',
    kind: 'read',
    run: (c) => admin(c, CONNECTIVITY),
    verify: async (r) => assert.ok(dataOf(r).model.list.some((m: any) => m.id === mainModel.id)),
  },
  {
    name: 'model.get',
    kind: 'read',
    run: (c) => admin(c, 'query($id: ID!) { model { get(id: $id) { id slug } } }', { id: mainModel.id }),
    verify: async (r) => assert.deepEqual(dataOf(r).model.get, { id: mainModel.id, slug: mainModel.slug }),
  },
  {
    name: 'model.create',
    kind: 'model-write',
    prepare: async () => ({ slug: uniqueSlug('matrix') }),
    run: (c, t) =>
      admin(c, 'mutation($input: CreateModelDefinitionInput!) { model { create(input: $input) { id slug } } }', {
        input: { name: 'Matrix', slug: t.slug, fields: [{ key: 'title', type: 'text' }] },
      }),
    verify: async (r, t) => {
      const created = dataOf(r).model.create;
      assert.equal(created.slug, t.slug);
      assert.equal((await owner.getModel(created.id)).slug, t.slug);
    },
  },
  {
    name: 'model.update',
    kind: 'model-write',
    prepare: () => owner.createSimpleModel({ name: 'Before' }),
    run: (c, t) =>
      admin(c, 'mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id name } } }', {
        input: { id: t.id, name: 'After' },
      }),
    verify: async (r, t) => {
      assert.deepEqual(dataOf(r).model.update, { id: t.id, name: 'After' });
      assert.equal((await owner.getModel(t.id)).name, 'After');
    },
  },
  {
    name: 'model.delete',
    kind: 'model-write',
    prepare: () => owner.createSimpleModel(),
    run: (c, t) => admin(c, 'mutation($id: ID!) { model { delete(id: $id) { id deleted } } }', { id: t.id }),
    verify: async (r, t) => {
      assert.deepEqual(dataOf(r).model.delete, { id: t.id, deleted: true });
      assert.equal(await owner.getModel(t.id), null);
    },
  },
  {
    name: 'record.list',
    kind: 'read',
    run: (c) =>
      admin(c, 'query($modelId: ID!) { record { list(modelId: $modelId, limit: 100) { total items { id } } } }', {
        modelId: mainModel.id,
      }),
    verify: async (r) => {
      const list = dataOf(r).record.list;
      assert.ok(list.total > 0);
      assert.ok(list.items.some((i: any) => i.id === seededRecordId));
    },
  },
  {
    name: 'record.get',
    kind: 'read',
    run: (c) => admin(c, 'query($id: ID!) { record { get(id: $id) { id data } } }', { id: seededRecordId }),
    verify: async (r) => assert.deepEqual(dataOf(r).record.get, { id: seededRecordId, data: { title: 'seed 0' } }),
  },
  {
    name: 'record.getMany',
    kind: 'read',
    run: (c) =>
      admin(c, 'query($ids: [ID!]!) { record { getMany(ids: $ids, locale: "en") { id data } } }', {
        ids: [seededRecordId, 'no-such-id'],
      }),
    verify: async (r) => assert.deepEqual(dataOf(r).record.getMany, [{ id: seededRecordId, data: { title: 'seed 0' } }, null]),
  },
  {
    name: 'record.create',
    kind: 'record-write',
    run: (c) =>
      admin(c, 'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id data } } }', {
        input: { modelId: mainModel.id, data: { title: 'created' } },
      }),
    verify: async (r) => {
      const created = dataOf(r).record.create;
      assert.deepEqual((await owner.getRecord(created.id)).data, { title: 'created' });
    },
  },
  {
    name: 'record.import',
    kind: 'record-write',
    prepare: async () => ({ total: await owner.total(mainModel.id) }),
    run: (c) =>
      admin(
        c,
        'mutation($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount errors { row message } } } }',
        {
          input: { modelId: mainModel.id, rows: [{ title: 'imported 1' }, { title: 'imported 2' }] },
        },
      ),
    verify: async (r, t) => {
      assert.deepEqual(dataOf(r).record.import, { importedCount: 2, errors: [] });
      assert.equal(await owner.total(mainModel.id), t.total + 2);
    },
  },
  {
    name: 'record.patch',
    kind: 'record-write',
    prepare: () => ownerRecord('to patch'),
    run: (c, t) =>
      admin(c, 'mutation($input: PatchModelRecordInput!) { record { patch(input: $input) { id data } } }', {
        input: { id: t.id, data: { note: 'patched' } },
      }),
    verify: async (r, t) => {
      assert.deepEqual(dataOf(r).record.patch.data, { title: 'to patch', note: 'patched' });
      assert.deepEqual((await owner.getRecord(t.id)).data, { title: 'to patch', note: 'patched' });
    },
  },
  {
    name: 'record.update',
    kind: 'record-write',
    prepare: () => ownerRecord('to update'),
    run: (c, t) =>
      admin(c, 'mutation($input: UpdateModelRecordInput!) { record { update(input: $input) { id data } } }', {
        input: { id: t.id, data: { title: 'updated' } },
      }),
    verify: async (r, t) => {
      assert.deepEqual(dataOf(r).record.update.data, { title: 'updated' });
      assert.deepEqual((await owner.getRecord(t.id)).data, { title: 'updated' });
    },
  },
  {
    name: 'record.delete',
    kind: 'record-write',
    prepare: () => ownerRecord('to delete'),
    run: (c, t) => admin(c, 'mutation($id: ID!) { record { delete(id: $id) { id deleted } } }', { id: t.id }),
    verify: async (r, t) => {
      assert.deepEqual(dataOf(r).record.delete, { id: t.id, deleted: true });
      assert.equal(await owner.getRecord(t.id), null);
    },
  },
  {
    name: 'delivery.definitions',
    kind: 'delivery',
    run: (c) => gql(server.deliveryUrl('acme', 'main'), c, '{ public { model { definitions { slug } } } }'),
    verify: async (r) => assert.ok(dataOf(r).public.model.definitions.some((d: any) => d.slug === mainModel.slug)),
  },
  {
    name: 'delivery.records',
    kind: 'delivery',
    run: (c) =>
      gql(
        server.deliveryUrl('acme', 'main'),
        c,
        'query($slug: String!) { public { model { records(modelSlug: $slug, limit: 100) { total items { id } } } } }',
        { slug: mainModel.slug },
      ),
    verify: async (r) => {
      const records = dataOf(r).public.model.records;
      assert.ok(records.total > 0);
      assert.ok(records.items.some((i: any) => i.id === seededRecordId));
    },
  },
  {
    name: 'delivery.recordsByIds',
    kind: 'delivery',
    run: (c) =>
      gql(
        server.deliveryUrl('acme', 'main'),
        c,
        'query($slug: String!, $ids: [ID!]!) { public { model { recordsByIds(modelSlug: $slug, ids: $ids) { id } } } }',
        { slug: mainModel.slug, ids: [seededRecordId] },
      ),
    verify: async (r) => assert.deepEqual(dataOf(r).public.model.recordsByIds, [{ id: seededRecordId }]),
  },
  {
    name: 'delivery.record',
    kind: 'delivery',
    run: (c) =>
      gql(
        server.deliveryUrl('acme', 'main'),
        c,
        'query($slug: String!, $id: ID!) { public { model { record(modelSlug: $slug, id: $id) { id } } } }',
        { slug: mainModel.slug, id: seededRecordId },
      ),
    verify: async (r) => assert.deepEqual(dataOf(r).public.model.record, { id: seededRecordId }),
  },
];

type Expected = { allowed: true } | { allowed: false; status: 401 } | { allowed: false; status: 403; message: string };

function expected(principal: Principal, kind: Kind): Expected {
  if (kind === 'delivery') return { allowed: true }; // no token needed, whatever headers come with the request
  if (principal === 'session without CSRF token') {
    return { allowed: false, status: 403, message: 'Forbidden: missing or wrong CSRF token' };
  }
  if (principal === 'owner' || principal === 'admin') return { allowed: true };
  if (principal === 'editor' || principal === 'editor session') {
    if (kind === 'model-write') return { allowed: false, status: 403, message: 'Forbidden: editor may not change models' };
    if (kind === 'token-management') return { allowed: false, status: 403, message: 'Forbidden: editor may not manage tokens' };
    if (kind === 'member-management') return { allowed: false, status: 403, message: 'Forbidden: editor may not manage members' };
    if (kind === 'webhook-management')
      return { allowed: false, status: 403, message: 'Forbidden: editor may not manage webhooks' };
    if (kind === 'workspace-settings') {
      return { allowed: false, status: 403, message: 'Forbidden: editor may not change workspace settings' };
    }
    return { allowed: true };
  }
  if (principal === 'viewer') {
    if (kind === 'record-write') return { allowed: false, status: 403, message: 'Forbidden: viewer may not write records' };
    if (kind === 'model-write') return { allowed: false, status: 403, message: 'Forbidden: viewer may not change models' };
    if (kind === 'token-management') return { allowed: false, status: 403, message: 'Forbidden: viewer may not manage tokens' };
    if (kind === 'member-management') return { allowed: false, status: 403, message: 'Forbidden: viewer may not manage members' };
    if (kind === 'webhook-management')
      return { allowed: false, status: 403, message: 'Forbidden: viewer may not manage webhooks' };
    if (kind === 'workspace-settings') {
      return { allowed: false, status: 403, message: 'Forbidden: viewer may not change workspace settings' };
    }
    return { allowed: true };
  }
  return { allowed: false, status: 401 };
}

/** Everything a refused call could have changed in the workspace, read with the owner token. */
async function snapshot(): Promise<unknown> {
  const models = (await owner.ok(`{ model { list { ${MODEL_FIELDS} } } }`)).model.list.sort((a: any, b: any) =>
    a.id.localeCompare(b.id),
  );
  const records = [];
  for (const model of models) {
    if (model.recordCount > 0) records.push(...(await owner.listAll(model.id)).map((r) => ({ modelId: model.id, ...r })));
  }
  // The other workspace must not change either.
  const otherModels = (await other.ok(CONNECTIVITY)).model.list;
  const tokens = (await owner.ok(`{ token { list { ${TOKEN_FIELDS} } } }`)).token.list;
  const otherTokens = (await other.ok(`{ token { list { ${TOKEN_FIELDS} } } }`)).token.list;
  const settings = (await owner.ok('{ workspace { current { defaultLocale writeBudget } } }')).workspace.current;
  const webhooks = (await owner.ok('{ webhook { list { id url events active description } } }')).webhook.list;
  const members = (await owner.ok(`{ member { list { ${MEMBER_FIELDS} } } }`)).member.list;
  const otherMembers = (await other.ok(`{ member { list { ${MEMBER_FIELDS} } } }`)).member.list;
  return { models, records, otherModels, tokens, otherTokens, settings, webhooks, members, otherMembers };
}

async function tokenFor(email: string, role: 'owner' | 'admin' | 'editor' | 'viewer') {
  return runCliJson(['token', 'create', '--workspace-id', owner.workspaceId, '--email', email, '--role', role, '--json']);
}

async function runCliJson(args: string[]): Promise<any> {
  const result = await runCli([...args, '--database', server.databaseUrl]);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout.trim());
}

/** A server on `databaseUrl` with two workspaces, a model with records, and a principal of every kind. */
async function setUp(databaseUrl: string): Promise<void> {
  principals.clear();
  server = await startServer({ databaseUrl });
  owner = await bootstrapAdmin(server, { org: 'acme', workspace: 'main', email: 'owner@acme.test', role: 'owner' });
  other = await bootstrapAdmin(server, { org: 'acme', workspace: 'other', email: 'owner@other.test', role: 'owner' });
  mainModel = await owner.createSimpleModel({ slug: uniqueSlug('main'), name: 'Main', deliveryAccess: 'public' });
  seededRecordId = (await owner.createRecord(mainModel.id, { title: 'seed 0' })).id;
  await owner.createRecord(mainModel.id, { title: 'seed 1' });
  await other.createSimpleModel({ slug: uniqueSlug('other') });

  const ws = owner.workspaceId;
  principals.set('owner', owner.credentials);
  for (const role of ['admin', 'editor', 'viewer'] as const) {
    principals.set(role, { token: (await tokenFor(`${role}@acme.test`, role)).token, workspaceId: ws });
  }
  principals.set('no token', { workspaceId: ws });

  // Revoked and expired tokens belong to owners: the only thing wrong with them is the revocation or the expiry.
  const revoked = await tokenFor('revoked@acme.test', 'owner');
  const expired = await tokenFor('expired@acme.test', 'owner');
  for (const t of [revoked, expired]) {
    assert.equal(
      (await admin({ token: t.token, workspaceId: ws }, CONNECTIVITY)).status,
      200,
      'works before revocation / expiry',
    );
  }
  const revoke = await runCli(['token', 'revoke', '--token-id', revoked.tokenId, '--database', server.databaseUrl]);
  assert.equal(revoke.code, 0, revoke.stderr);
  // Expired a minute ago (token.create only takes a time in the future).
  assert.equal(
    await runSql(server, 'UPDATE api_tokens SET expires_at = ? WHERE id = ?', [Date.now() - 60_000, expired.tokenId]),
    1,
  );
  principals.set('revoked token', { token: revoked.token, workspaceId: ws });
  principals.set('expired token', { token: expired.token, workspaceId: ws });
  principals.set('token of another workspace', { token: other.token, workspaceId: ws });
  principals.set('wrong workspace id', { token: owner.token, workspaceId: randomUUID() });

  // The admin application's session (cookie + x-csrf-token) of the editor: the editor's role, no token.
  await setPassword(server, 'editor@acme.test', 'editor password');
  const session = await signIn(server, 'editor@acme.test', 'editor password');
  principals.set('editor session', sessionCredentials(session, ws));
  principals.set('session without CSRF token', sessionCredentials(session, ws, { csrf: false }));
}

const targets: (Target | { failure: string })[] = [sqliteTarget(), await postgresTarget()];

for (const target of targets) {
  if ('failure' in target) {
    test('authorization matrix on PostgreSQL (CI=true requires PostgreSQL)', () => assert.fail(target.failure));
    continue;
  }
  describe(`authorization matrix (${target.name})`, { skip: target.skip }, () => {
    before(() => setUp(target.url('authz')));
    after(async () => {
      await server?.dispose();
      await target.cleanup();
    });
    defineMatrix();
  });
}

function defineMatrix(): void {
  for (const operation of OPERATIONS) {
    for (const principal of PRINCIPALS) {
      const outcome = expected(principal, operation.kind);
      const name = outcome.allowed
        ? operation.kind === 'delivery' && !['owner', 'admin', 'editor', 'viewer'].includes(principal)
          ? `authorization: ${principal} may ${operation.name} (no token needed)`
          : `authorization: ${principal} may ${operation.name}`
        : `authorization: ${principal} may not ${operation.name} (${outcome.status}${operation.kind === 'read' ? '' : ', nothing written'})`;
      test(name, async () => {
        const credentials = principals.get(principal);
        assert.ok(credentials, principal);
        const target = operation.prepare ? await operation.prepare() : undefined;
        const before = outcome.allowed ? undefined : await snapshot();
        const response = await operation.run(credentials, target);
        if (outcome.allowed) {
          await operation.verify(response, target);
          return;
        }
        if (outcome.status === 401) {
          assert.equal(response.status, 401, `expected 401, got ${response.status}: ${response.text}`);
          assert.equal(response.text.trim(), JSON.stringify(NOT_AUTHORIZED_BODY));
        } else {
          assert.equal(response.status, 403, `expected 403, got ${response.status}: ${response.text}`);
          assert.deepEqual(
            response.body.errors,
            [{ message: outcome.message, extensions: { code: 'FORBIDDEN' } }],
            response.text,
          );
          assert.ok(response.body.data === undefined || response.body.data === null, response.text);
        }
        assert.deepEqual(await snapshot(), before, 'a refused request changed the workspace');
      });
    }
  }
}
