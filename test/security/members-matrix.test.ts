// Members (admin API `member`): the rules beyond the role matrix (authorization-matrix.test.ts has who may call
// each operation at all). Only an owner grants, changes or removes `owner`; the last owner stays; a removed member's
// tokens and sessions stop working in that workspace on the next request; a user added without a password gets a
// one-time sign-in link. Every refusal is checked to have written nothing. The owner rules and the last-owner rule depend on the
// stored members, so they are refused in execution: HTTP 200 with `errors` and `data: null` (as NOT_FOUND and CONFLICT). On SQLite, and on PostgreSQL when
// DATABASE_URL is set (skipped with the reason otherwise; with CI=true an unreachable PostgreSQL fails).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  Admin,
  bootstrapAdmin,
  dataOf,
  expectError,
  NOT_AUTHORIZED_BODY,
  request,
  uniqueSlug,
  type GqlResponse,
} from '../support/client.js';
import { postgresTarget, sqliteTarget, type Target } from '../support/databases.js';
import { startServer, type TestServer } from '../support/server.js';
import { runSql, sessionCredentials, setPassword, signIn } from '../support/session.js';
import { gql } from '../support/client.js';

let server: TestServer;

const MEMBER_FIELDS = 'userId email role hasPassword addedAt';
const CONNECTIVITY = '{ model { list { id } } }';

interface Team {
  slug: string;
  owner: Admin;
  admin: Admin;
  ownerUserId: string;
  adminUserId: string;
}

/** A new workspace with an owner and an admin, each with a token. */
async function team(): Promise<Team> {
  const slug = uniqueSlug('team');
  const ownerEmail = `owner-${slug}@acme.test`;
  const booted = await server.bootstrap({ org: 'acme', workspace: slug, email: ownerEmail, role: 'owner' });
  const owner = new Admin(server, { token: booted.token, workspaceId: booted.workspaceId });
  const created = await server.createToken({ workspaceId: booted.workspaceId, email: `admin-${slug}@acme.test`, role: 'admin' });
  const admin = new Admin(server, { token: created.token, workspaceId: booted.workspaceId });
  return { slug, owner, admin, ownerUserId: booted.userId, adminUserId: created.userId };
}

function add(by: Admin, email: string, role: string): Promise<GqlResponse> {
  return by.q(
    `mutation($email: String!, $role: String!) { member { add(email: $email, role: $role) { member { ${MEMBER_FIELDS} } signInLink signInLinkExpiresAt } } }`,
    { email, role },
  );
}

function setRole(by: Admin, userId: string, role: string): Promise<GqlResponse> {
  return by.q(`mutation($id: ID!, $role: String!) { member { setRole(userId: $id, role: $role) { ${MEMBER_FIELDS} } } }`, {
    id: userId,
    role,
  });
}

function remove(by: Admin, userId: string): Promise<GqlResponse> {
  return by.q('mutation($id: ID!) { member { remove(userId: $id) { id deleted } } }', { id: userId });
}

async function members(t: Team): Promise<any[]> {
  return (await t.owner.ok(`{ member { list { ${MEMBER_FIELDS} } } }`)).member.list;
}

async function roleOf(t: Team, userId: string): Promise<string | undefined> {
  return (await members(t)).find((m) => m.userId === userId)?.role;
}

/** A new member (with a token) of the team's workspace. */
async function memberWithToken(t: Team, role: 'owner' | 'admin' | 'editor' | 'viewer') {
  const created = await server.createToken({
    workspaceId: t.owner.workspaceId,
    email: `${role}-${uniqueSlug('m')}@acme.test`,
    role,
  });
  return {
    userId: created.userId,
    email: created.email,
    client: new Admin(server, { token: created.token, workspaceId: t.owner.workspaceId }),
  };
}

/** Asserts a refusal with exactly this code and message, and that the members did not change. */
async function refused(t: Team, call: () => Promise<GqlResponse>, code: string, message: string, status = 200) {
  const before = await members(t);
  const response = await call();
  const error = expectError(response, code, status);
  assert.equal(error.message, message);
  assert.deepEqual(await members(t), before, 'a refused call changed the members');
}

function postLink(body: unknown): Promise<GqlResponse> {
  return request(`${server.url}/admin/sign-in-link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function tokenOf(link: string): string {
  const token = new URL(link).hash.split('token=')[1];
  assert.ok(token, link);
  return token;
}

const LINK_NOT_USABLE =
  'This sign-in link cannot be used: it was used already, has expired or was replaced. Ask an admin of the workspace for a new one.';

function defineRules(): void {
  test('members: list shows every member of the workspace with role, email and whether a password is set', async () => {
    const t = await team();
    const listed = await members(t);
    assert.deepEqual(
      listed.map((m) => [m.userId, m.role, m.hasPassword]).sort(),
      [
        [t.adminUserId, 'admin', false],
        [t.ownerUserId, 'owner', false],
      ].sort(),
    );
    for (const m of listed) assert.match(m.addedAt, /^\d{4}-\d{2}-\d{2}T/);
  });

  test('members: an admin may not add an owner (FORBIDDEN, nothing written)', async () => {
    const t = await team();
    await refused(
      t,
      () => add(t.admin, `new-${t.slug}@acme.test`, 'owner'),
      'FORBIDDEN',
      'Forbidden: admin may not grant the owner role',
    );
  });

  test('members: an admin may not make a member owner (FORBIDDEN, nothing written)', async () => {
    const t = await team();
    const viewer = await memberWithToken(t, 'viewer');
    await refused(
      t,
      () => setRole(t.admin, viewer.userId, 'owner'),
      'FORBIDDEN',
      'Forbidden: admin may not grant the owner role',
    );
    await refused(
      t,
      () => setRole(t.admin, t.adminUserId, 'owner'),
      'FORBIDDEN',
      'Forbidden: admin may not grant the owner role',
    );
  });

  test("members: an admin may not change an owner's role nor remove an owner, even with several owners", async () => {
    const t = await team();
    await memberWithToken(t, 'owner');
    await refused(
      t,
      () => setRole(t.admin, t.ownerUserId, 'viewer'),
      'FORBIDDEN',
      "Forbidden: admin may not change an owner's role",
    );
    await refused(t, () => remove(t.admin, t.ownerUserId), 'FORBIDDEN', 'Forbidden: admin may not remove an owner');
  });

  test('members: an admin adds, changes and removes members below owner', async () => {
    const t = await team();
    const added = dataOf(await add(t.admin, `  New-${t.slug}@ACME.test `, 'viewer')).member.add;
    assert.equal(added.member.email, `new-${t.slug}@acme.test`, 'trimmed and in lower case, as sign-in reads it');
    assert.equal(added.member.role, 'viewer');
    assert.deepEqual(dataOf(await setRole(t.admin, added.member.userId, 'admin')).member.setRole.role, 'admin');
    const otherAdmin = await memberWithToken(t, 'admin');
    assert.equal(dataOf(await setRole(t.admin, otherAdmin.userId, 'editor')).member.setRole.role, 'editor');
    assert.deepEqual(dataOf(await remove(t.admin, added.member.userId)).member.remove, {
      id: added.member.userId,
      deleted: true,
    });
    assert.equal(await roleOf(t, added.member.userId), undefined);
  });

  test('members: an owner grants owner, and demotes or removes an owner while another owner remains', async () => {
    const t = await team();
    assert.equal(dataOf(await setRole(t.owner, t.adminUserId, 'owner')).member.setRole.role, 'owner');
    const second = dataOf(await add(t.owner, `second-${t.slug}@acme.test`, 'owner')).member.add.member;
    assert.equal(second.role, 'owner');
    assert.equal(dataOf(await setRole(t.owner, t.adminUserId, 'editor')).member.setRole.role, 'editor');
    assert.deepEqual(dataOf(await remove(t.owner, second.userId)).member.remove, { id: second.userId, deleted: true });
  });

  test('members: the last owner can be neither demoted nor removed (409-style CONFLICT naming the rule)', async () => {
    const t = await team();
    await refused(
      t,
      () => setRole(t.owner, t.ownerUserId, 'admin'),
      'CONFLICT',
      'userId: the last owner of the workspace cannot be demoted; make another member owner first',
    );
    await refused(
      t,
      () => remove(t.owner, t.ownerUserId),
      'CONFLICT',
      'userId: the last owner of the workspace cannot be removed; make another member owner first',
    );
    // Setting the role an owner already has is no demotion.
    assert.equal(dataOf(await setRole(t.owner, t.ownerUserId, 'owner')).member.setRole.role, 'owner');
  });

  test('members: two owners demoting each other at once leave exactly one owner', async () => {
    const t = await team();
    const second = await memberWithToken(t, 'owner');
    const [a, b] = await Promise.all([setRole(t.owner, second.userId, 'admin'), setRole(second.client, t.ownerUserId, 'admin')]);
    const outcomes = [a, b].map((r) => (r.body?.errors ? r.body.errors[0].extensions.code : 'ok')).sort();
    // The loser is either refused as the last owner or, having lost the owner role first, refused as an admin.
    assert.equal(outcomes.filter((o) => o === 'ok').length, 1, `${a.text}\n${b.text}`);
    const owners = (await (a.body?.errors ? second.client : t.owner).ok(`{ member { list { role } } }`)).member.list.filter(
      (m: any) => m.role === 'owner',
    );
    assert.equal(owners.length, 1);
  });

  test("members: a removed member's tokens are refused on the next request, and stay revoked if re-added", async () => {
    const t = await team();
    const editor = await memberWithToken(t, 'editor');
    assert.equal((await editor.client.q(CONNECTIVITY)).status, 200);
    dataOf(await remove(t.admin, editor.userId));
    const refusedAnswer = await editor.client.q(CONNECTIVITY);
    assert.equal(refusedAnswer.status, 401);
    assert.equal(refusedAnswer.text.trim(), JSON.stringify(NOT_AUTHORIZED_BODY));
    const listed = (await t.owner.ok('{ token { list { userEmail revokedAt } } }')).token.list.filter(
      (tk: any) => tk.userEmail === editor.email,
    );
    assert.equal(listed.length, 1);
    assert.ok(listed[0].revokedAt, 'the token is revoked, not only orphaned');
    dataOf(await add(t.owner, editor.email, 'editor'));
    assert.equal((await editor.client.q(CONNECTIVITY)).status, 401, 'adding the user again does not revive old tokens');
  });

  test("members: a role change applies to the member's token on the next request", async () => {
    const t = await team();
    const editor = await memberWithToken(t, 'editor');
    const model = await t.owner.createSimpleModel({ slug: uniqueSlug('roles') });
    assert.equal((await editor.client.createRecord(model.id, { title: 'before' })).data.title, 'before');
    dataOf(await setRole(t.admin, editor.userId, 'viewer'));
    const write = await editor.client.q(
      'mutation($m: ID!) { record { create(input: { modelId: $m, data: { title: "after" } }) { id } } }',
      {
        m: model.id,
      },
    );
    assert.equal(expectError(write, 'FORBIDDEN', 403).message, 'Forbidden: viewer may not write records');
  });

  test("members: a removed member's admin session stops in that workspace and keeps working in the others", async () => {
    const t = await team();
    const elsewhere = await team();
    const editor = await memberWithToken(t, 'editor');
    dataOf(await add(elsewhere.owner, editor.email, 'viewer'));
    await setPassword(server, editor.email, 'editor password');
    const session = await signIn(server, editor.email, 'editor password');
    const here = sessionCredentials(session, t.owner.workspaceId);
    const there = sessionCredentials(session, elsewhere.owner.workspaceId);
    assert.equal((await gql(server.adminUrl, here, CONNECTIVITY)).status, 200);
    dataOf(await remove(t.owner, editor.userId));
    const refusedAnswer = await gql(server.adminUrl, here, CONNECTIVITY);
    assert.equal(refusedAnswer.status, 401);
    assert.equal(refusedAnswer.text.trim(), JSON.stringify(NOT_AUTHORIZED_BODY));
    assert.equal((await gql(server.adminUrl, there, CONNECTIVITY)).status, 200);
    const sessionBody = await request(`${server.url}/admin/session`, { headers: { cookie: session.cookie } });
    assert.deepEqual(
      sessionBody.body.workspaces.map((w: any) => w.id),
      [elsewhere.owner.workspaceId],
      'the session lists only the workspaces the user is still in',
    );
  });

  test('members: bad input, an existing member and an unknown member are refused by name', async () => {
    const t = await team();
    await refused(t, () => add(t.owner, 'not an email', 'viewer'), 'BAD_USER_INPUT', 'email: must be an email address');
    await refused(
      t,
      () => add(t.owner, `x-${t.slug}@acme.test`, 'superuser'),
      'BAD_USER_INPUT',
      'role: must be one of owner, admin, editor, viewer',
    );
    const adminEmail = `admin-${t.slug}@acme.test`;
    await refused(
      t,
      () => add(t.owner, adminEmail, 'viewer'),
      'CONFLICT',
      `email: ${adminEmail} is already a member of this workspace; change the role instead`,
    );
    await refused(t, () => setRole(t.owner, 'no-such-user', 'viewer'), 'NOT_FOUND', 'userId: not a member of this workspace');
    await refused(t, () => remove(t.owner, 'no-such-user'), 'NOT_FOUND', 'userId: not a member of this workspace');
    // A member of another workspace is not a member here.
    const elsewhere = await team();
    await refused(t, () => remove(t.owner, elsewhere.ownerUserId), 'NOT_FOUND', 'userId: not a member of this workspace');
  });

  test('members: a new user gets a one-time sign-in link that sets a password and signs in, once', async () => {
    const t = await team();
    const email = `fresh-${t.slug}@acme.test`;
    const added = dataOf(await add(t.admin, email, 'editor')).member.add;
    assert.equal(added.member.hasPassword, false);
    assert.ok(added.signInLink.startsWith(`${server.url}/admin/#/welcome?token=`), added.signInLink);
    const expiresIn = Date.parse(added.signInLinkExpiresAt) - Date.now();
    assert.ok(expiresIn > 23.9 * 3600_000 && expiresIn <= 24 * 3600_000, added.signInLinkExpiresAt);
    const token = tokenOf(added.signInLink);
    const hashes = await runSql(server, 'UPDATE sign_in_links SET used_at = used_at WHERE token_hash = ?', [token]);
    assert.equal(hashes, 0, 'the link token itself is not stored');

    assert.deepEqual((await postLink({ token })).body, { email });
    const short = await postLink({ token, password: 'short' });
    assert.equal(expectError(short, 'BAD_USER_INPUT', 400).message, 'password: must be at least 8 characters');
    const used = await postLink({ token, password: 'a good long password' });
    assert.equal(used.status, 200, used.text);
    assert.match(used.headers.get('set-cookie') ?? '', /cs_session=[^;]+;.*HttpOnly/);
    assert.deepEqual(
      used.body.workspaces.map((w: any) => [w.id, w.role]),
      [[t.owner.workspaceId, 'editor']],
    );
    const cookie = /cs_session=([^;]+)/.exec(used.headers.get('set-cookie')!)![0];
    const credentials = { cookie, csrfToken: used.body.csrfToken, workspaceId: t.owner.workspaceId };
    assert.equal((await gql(server.adminUrl, credentials, CONNECTIVITY)).status, 200);

    const again = await postLink({ token, password: 'another long password' });
    assert.equal(expectError(again, 'UNAUTHENTICATED', 401).message, LINK_NOT_USABLE);
    assert.equal((await signIn(server, email, 'a good long password')).body.user.email, email);
    assert.equal((await members(t)).find((m) => m.email === email).hasPassword, true);
  });

  test('members: a sign-in link stops working when it expires, when the member is removed, or when the user is in another workspace', async () => {
    const t = await team();
    const expired = dataOf(await add(t.owner, `expired-${t.slug}@acme.test`, 'viewer')).member.add;
    await runSql(server, 'UPDATE sign_in_links SET expires_at = ? WHERE user_id = ?', [Date.now() - 1000, expired.member.userId]);
    assert.equal(
      expectError(await postLink({ token: tokenOf(expired.signInLink) }), 'UNAUTHENTICATED', 401).message,
      LINK_NOT_USABLE,
    );
    assert.equal(
      expectError(
        await postLink({ token: tokenOf(expired.signInLink), password: 'a good long password' }),
        'UNAUTHENTICATED',
        401,
      ).message,
      LINK_NOT_USABLE,
    );

    const removed = dataOf(await add(t.owner, `removed-${t.slug}@acme.test`, 'viewer')).member.add;
    dataOf(await remove(t.owner, removed.member.userId));
    assert.equal(
      expectError(
        await postLink({ token: tokenOf(removed.signInLink), password: 'a good long password' }),
        'UNAUTHENTICATED',
        401,
      ).message,
      LINK_NOT_USABLE,
    );

    // Added to a second workspace before using the link: the link would open that workspace too, so it is void.
    const joined = dataOf(await add(t.owner, `joined-${t.slug}@acme.test`, 'viewer')).member.add;
    const elsewhere = await team();
    const there = dataOf(await add(elsewhere.owner, joined.member.email, 'viewer')).member.add;
    assert.equal(there.signInLink, null, 'no link for a user who is a member of another workspace');
    assert.equal(
      expectError(await postLink({ token: tokenOf(joined.signInLink), password: 'a good long password' }), 'UNAUTHENTICATED', 401)
        .message,
      LINK_NOT_USABLE,
    );

    // A user who has a password gets no link.
    const withPassword = `pw-${t.slug}@acme.test`;
    await server.createToken({ workspaceId: elsewhere.owner.workspaceId, email: withPassword, role: 'viewer' });
    await setPassword(server, withPassword, 'a good long password');
    const added = dataOf(await add(t.owner, withPassword, 'viewer')).member.add;
    assert.deepEqual([added.member.hasPassword, added.signInLink, added.signInLinkExpiresAt], [true, null, null]);

    assert.equal(expectError(await postLink({ token: 'not-a-link' }), 'UNAUTHENTICATED', 401).message, LINK_NOT_USABLE);
    assert.equal(expectError(await postLink({}), 'BAD_USER_INPUT', 400).message, 'token: must be the token of a sign-in link');
  });
}

const targets: (Target | { failure: string })[] = [sqliteTarget(), await postgresTarget()];

for (const target of targets) {
  if ('failure' in target) {
    test('members on PostgreSQL (CI=true requires PostgreSQL)', () => assert.fail(target.failure));
    continue;
  }
  describe(`members (${target.name})`, { skip: target.skip }, () => {
    before(async () => {
      server = await startServer({ databaseUrl: target.url('members') });
      await bootstrapAdmin(server);
    });
    after(async () => {
      await server?.dispose();
      await target.cleanup();
    });
    defineRules();
  });
}
