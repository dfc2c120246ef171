// The workspace's default locale (a setting beyond the spec, used by reads with `locale`): `en` until changed,
// read from workspace.current, changed by owners and admins with workspace.update; a value that is not a locale
// code is refused naming it. Black-box over HTTP.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, bootstrapAdmin, dataOf, expectError, gql } from '../support/client.js';
import { runCli, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let owner: Admin;

const CURRENT = '{ workspace { current { id defaultLocale } } }';
const UPDATE = 'mutation($input: UpdateWorkspaceInput!) { workspace { update(input: $input) { id defaultLocale } } }';

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server, { org: 'acme', workspace: 'main', email: 'owner@acme.test' });
});

after(async () => {
  await server?.dispose();
});

async function memberWith(role: 'admin' | 'editor' | 'viewer'): Promise<Admin> {
  const result = await runCli([
    'token',
    'create',
    '--workspace-id',
    owner.workspaceId,
    '--email',
    `${role}@acme.test`,
    '--role',
    role,
    '--json',
    '--database',
    server.databaseUrl,
  ]);
  assert.equal(result.code, 0, result.stderr);
  return new Admin(server, { token: JSON.parse(result.stdout).token, workspaceId: owner.workspaceId });
}

test('workspace default locale: en until changed', async () => {
  assert.deepEqual((await owner.ok(CURRENT)).workspace.current, { id: owner.workspaceId, defaultLocale: 'en' });
});

test('workspace default locale: owners and admins change it; the change is kept and answered', async () => {
  assert.deepEqual((await owner.ok(UPDATE, { input: { defaultLocale: 'pt-BR' } })).workspace.update, {
    id: owner.workspaceId,
    defaultLocale: 'pt-BR',
  });
  assert.equal((await owner.ok(CURRENT)).workspace.current.defaultLocale, 'pt-BR');
  const admin = await memberWith('admin');
  assert.equal((await admin.ok(UPDATE, { input: { defaultLocale: 'de' } })).workspace.update.defaultLocale, 'de');
  assert.equal((await owner.ok(UPDATE, { input: {} })).workspace.update.defaultLocale, 'de', 'an empty input changes nothing');
  assert.equal(
    (await owner.ok(UPDATE, { input: { defaultLocale: null } })).workspace.update.defaultLocale,
    'en',
    'null: back to en',
  );
});

test('workspace default locale: editors and viewers may not change it', async () => {
  for (const role of ['editor', 'viewer'] as const) {
    const member = await memberWith(role);
    const response = await member.q(UPDATE, { input: { defaultLocale: 'fr' } });
    assert.equal(response.status, 403, response.text);
    assert.deepEqual(response.body.errors, [
      { message: `Forbidden: ${role} may not change workspace settings`, extensions: { code: 'FORBIDDEN' } },
    ]);
    assert.equal((await member.ok(CURRENT)).workspace.current.defaultLocale, 'en', 'they read it');
  }
});

test('workspace default locale: a value that is not a locale code is refused naming it, nothing changed', async () => {
  for (const defaultLocale of ['', 'English', 'en_GB', 'e', 'en-', `en-${'x'.repeat(40)}`]) {
    const error = expectError(await owner.q(UPDATE, { input: { defaultLocale } }), 'BAD_USER_INPUT');
    assert.equal(error.message, 'defaultLocale: is not a locale code (such as en, pl or pt-BR)', defaultLocale);
  }
  assert.equal((await owner.ok(CURRENT)).workspace.current.defaultLocale, 'en');
});

test('workspace default locale: a change in one workspace leaves the others as they are', async () => {
  const other = await bootstrapAdmin(server, { org: 'acme', workspace: 'other', email: 'other@acme.test' });
  await owner.ok(UPDATE, { input: { defaultLocale: 'pl' } });
  try {
    assert.equal((await other.ok(CURRENT)).workspace.current.defaultLocale, 'en');
  } finally {
    await owner.ok(UPDATE, { input: { defaultLocale: 'en' } });
  }
  const delivery = await gql(
    server.deliveryUrl('acme', 'main'),
    {},
    'mutation { workspace { update(input: {defaultLocale: "de"}) { id } } }',
  );
  assert.equal(delivery.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', 'not on the delivery route');
  assert.equal(dataOf(await owner.q(CURRENT)).workspace.current.defaultLocale, 'en');
});
