// Connectivity check, authentication (401 in every bad-credential case) and roles (403).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Admin, bootstrapAdmin, gql, NOT_AUTHORIZED_BODY, request, uniqueSlug, type GqlResponse } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

const CONNECTIVITY = '{ model { list { id slug name } } }';

let server: TestServer;
let owner: Admin;
let other: Admin; // a second workspace of the same organisation
let otherOrg: Admin; // a workspace of another organisation

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server, { org: 'acme', workspace: 'main', email: 'owner@acme.test', role: 'owner' });
  other = await bootstrapAdmin(server, { org: 'acme', workspace: 'second', email: 'owner2@acme.test', role: 'owner' });
  otherOrg = await bootstrapAdmin(server, { org: 'globex', workspace: 'main', email: 'owner@globex.test', role: 'owner' });
});

after(async () => {
  await server?.dispose();
});

function assertNotAuthorized(response: GqlResponse): void {
  assert.equal(response.status, 401, `expected 401, got ${response.status}: ${response.text}`);
  assert.deepEqual(response.body, NOT_AUTHORIZED_BODY);
  assert.equal(response.text.trim(), JSON.stringify(NOT_AUTHORIZED_BODY));
  assert.ok(response.headers.get('x-request-id'), 'x-request-id on a 401');
}

describe('connectivity check', () => {
  test('connectivity: model.list with no arguments returns a list (empty in a new workspace)', async () => {
    const fresh = await bootstrapAdmin(server, { org: 'acme', workspace: 'empty-ws', email: 'e@acme.test' });
    const response = await fresh.q(CONNECTIVITY);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { data: { model: { list: [] } } });
  });

  test('connectivity: model.list exposes id, slug and name of the models of the workspace', async () => {
    const slug = uniqueSlug('conn');
    const model = await owner.createSimpleModel({ slug, name: 'Connectivity' });
    const data = await owner.ok(CONNECTIVITY);
    assert.ok(Array.isArray(data.model.list));
    const found = data.model.list.find((m: any) => m.id === model.id);
    assert.deepEqual(found, { id: model.id, slug, name: 'Connectivity' });
    // Models of another workspace are not listed.
    const otherList = (await other.ok(CONNECTIVITY)).model.list;
    assert.equal(
      otherList.find((m: any) => m.id === model.id),
      undefined,
    );
  });
});

describe('authentication: Not authorized, HTTP 401, same body in every case', () => {
  test('auth: no Authorization header is 401 Not authorized', async () => {
    assertNotAuthorized(await gql(server.adminUrl, { workspaceId: owner.workspaceId }, CONNECTIVITY));
  });

  test('auth: no headers at all is 401 Not authorized', async () => {
    assertNotAuthorized(await gql(server.adminUrl, {}, CONNECTIVITY));
  });

  test('auth: no x-workspace-id header is 401 Not authorized', async () => {
    assertNotAuthorized(await gql(server.adminUrl, { token: owner.token }, CONNECTIVITY));
  });

  test('auth: a wrong token is 401 Not authorized', async () => {
    assertNotAuthorized(
      await gql(
        server.adminUrl,
        { token: 'cs_thisTokenDoesNotExist0000000000000000000', workspaceId: owner.workspaceId },
        CONNECTIVITY,
      ),
    );
    // A valid token with one character changed.
    const last = owner.token.slice(-1) === 'A' ? 'B' : 'A';
    assertNotAuthorized(
      await gql(server.adminUrl, { token: owner.token.slice(0, -1) + last, workspaceId: owner.workspaceId }, CONNECTIVITY),
    );
  });

  test('auth: a malformed Authorization header is 401 Not authorized', async () => {
    for (const authorization of [owner.token, `Basic ${owner.token}`, 'Bearer', 'Bearer ', `Bearer  ${owner.token}x`]) {
      const response = await request(server.adminUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization, 'x-workspace-id': owner.workspaceId },
        body: JSON.stringify({ query: CONNECTIVITY }),
      });
      assertNotAuthorized(response);
    }
  });

  test('auth: an unknown workspace id is 401 Not authorized', async () => {
    assertNotAuthorized(await gql(server.adminUrl, { token: owner.token, workspaceId: randomUUID() }, CONNECTIVITY));
    assertNotAuthorized(await gql(server.adminUrl, { token: owner.token, workspaceId: 'not-an-id' }, CONNECTIVITY));
  });

  test('auth: a token of another workspace of the same organisation is 401 Not authorized', async () => {
    assertNotAuthorized(await gql(server.adminUrl, { token: other.token, workspaceId: owner.workspaceId }, CONNECTIVITY));
    assertNotAuthorized(await gql(server.adminUrl, { token: owner.token, workspaceId: other.workspaceId }, CONNECTIVITY));
  });

  test('auth: a token of a workspace of another organisation is 401 Not authorized', async () => {
    assertNotAuthorized(await gql(server.adminUrl, { token: otherOrg.token, workspaceId: owner.workspaceId }, CONNECTIVITY));
  });

  test('auth: a token of the same user in another workspace does not open this one', async () => {
    // Same email, bootstrapped into a second workspace: that token is bound to the second workspace only.
    const sameUserElsewhere = await bootstrapAdmin(server, {
      org: 'acme',
      workspace: 'third',
      email: 'owner@acme.test',
      role: 'owner',
    });
    assertNotAuthorized(
      await gql(server.adminUrl, { token: sameUserElsewhere.token, workspaceId: owner.workspaceId }, CONNECTIVITY),
    );
    // While the token works for its own workspace.
    assert.equal((await sameUserElsewhere.q(CONNECTIVITY)).status, 200);
  });

  test('auth: a write with bad credentials is 401 and writes nothing', async () => {
    const model = await owner.createSimpleModel();
    const response = await gql(
      server.adminUrl,
      { token: other.token, workspaceId: owner.workspaceId },
      'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }',
      { input: { modelId: model.id, data: { title: 'sneaky' } } },
    );
    assertNotAuthorized(response);
    const modelResponse = await gql(
      server.adminUrl,
      { token: 'cs_wrong', workspaceId: owner.workspaceId },
      'mutation($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }',
      { input: { name: 'X', slug: uniqueSlug('sneaky'), fields: [{ key: 'title', type: 'text' }] } },
    );
    assertNotAuthorized(modelResponse);
    assert.equal(await owner.total(model.id), 0);
    const slugs = (await owner.ok(CONNECTIVITY)).model.list.map((m: any) => m.slug);
    assert.ok(!slugs.some((s: string) => s.startsWith('sneaky')));
  });

  test('auth: every bad-credential answer is byte-for-byte the same', async () => {
    const answers = await Promise.all([
      gql(server.adminUrl, {}, CONNECTIVITY),
      gql(server.adminUrl, { token: 'cs_nope', workspaceId: owner.workspaceId }, CONNECTIVITY),
      gql(server.adminUrl, { token: owner.token, workspaceId: randomUUID() }, CONNECTIVITY),
      gql(server.adminUrl, { token: other.token, workspaceId: owner.workspaceId }, CONNECTIVITY),
    ]);
    const texts = new Set(answers.map((a) => `${a.status} ${a.text}`));
    assert.equal(texts.size, 1, [...texts].join('\n'));
  });
});

describe('roles', () => {
  let modelId: string;
  let recordId: string;
  let viewer: Admin;
  let editor: Admin;
  let admin: Admin;

  before(async () => {
    const model = await owner.createSimpleModel();
    modelId = model.id;
    recordId = (await owner.createRecord(modelId, { title: 'existing' })).id;
    const v = await server.createToken({ workspaceId: owner.workspaceId, email: 'viewer@acme.test', role: 'viewer' });
    const e = await server.createToken({ workspaceId: owner.workspaceId, email: 'editor@acme.test', role: 'editor' });
    const a = await server.createToken({ workspaceId: owner.workspaceId, email: 'admin@acme.test', role: 'admin' });
    viewer = new Admin(server, { token: v.token, workspaceId: owner.workspaceId });
    editor = new Admin(server, { token: e.token, workspaceId: owner.workspaceId });
    admin = new Admin(server, { token: a.token, workspaceId: owner.workspaceId });
  });

  function assertForbidden(response: GqlResponse, message: string): void {
    assert.equal(response.status, 403, `expected 403, got ${response.status}: ${response.text}`);
    assert.ok(Array.isArray(response.body?.errors), response.text);
    assert.equal(response.body.errors.length, 1, response.text);
    assert.equal(response.body.errors[0].message, message);
    assert.equal(response.body.errors[0].extensions?.code, 'FORBIDDEN');
  }

  test('roles: a viewer reads records', async () => {
    assert.ok((await viewer.ok(CONNECTIVITY)).model.list.some((m: any) => m.id === modelId));
    const list = await viewer.list(modelId);
    assert.ok(list.items.some((r) => r.id === recordId));
    assert.equal((await viewer.getRecord(recordId)).id, recordId);
  });

  test('roles: a viewer may not write records (create) — 403 Forbidden: viewer may not write records, nothing written', async () => {
    const before = await owner.total(modelId);
    assertForbidden(await viewer.createRecordRaw(modelId, { title: 'by viewer' }), 'Forbidden: viewer may not write records');
    assert.equal(await owner.total(modelId), before);
  });

  test('roles: a viewer may not import, patch, update or delete records, nothing written', async () => {
    const before = await owner.total(modelId);
    assertForbidden(await viewer.importRaw(modelId, [{ title: 'a' }, { title: 'b' }]), 'Forbidden: viewer may not write records');
    assertForbidden(await viewer.patchRaw(recordId, { note: 'viewer' }), 'Forbidden: viewer may not write records');
    assertForbidden(await viewer.updateRaw(recordId, { title: 'viewer' }), 'Forbidden: viewer may not write records');
    assertForbidden(await viewer.deleteRaw(recordId), 'Forbidden: viewer may not write records');
    assert.equal(await owner.total(modelId), before);
    const record = await owner.getRecord(recordId);
    assert.deepEqual(record.data, { title: 'existing' });
  });

  test('roles: a viewer may not change models', async () => {
    assertForbidden(
      await viewer.createModelRaw({ slug: uniqueSlug('viewer-model'), fields: [{ key: 'title', type: 'text' }] }),
      'Forbidden: viewer may not change models',
    );
  });

  test('roles: an editor writes records', async () => {
    const record = await editor.createRecord(modelId, { title: 'by editor' });
    assert.equal(record.data.title, 'by editor');
    const patched = dataOfPatch(await editor.patchRaw(record.id, { note: 'edited' }));
    assert.deepEqual(patched.data, { title: 'by editor', note: 'edited' });
  });

  test('roles: an editor may not create models — 403 Forbidden: editor may not change models, nothing written', async () => {
    const slug = uniqueSlug('editor-model');
    assertForbidden(
      await editor.createModelRaw({ slug, fields: [{ key: 'title', type: 'text' }] }),
      'Forbidden: editor may not change models',
    );
    const slugs = (await owner.ok(CONNECTIVITY)).model.list.map((m: any) => m.slug);
    assert.ok(!slugs.includes(slug));
  });

  test('roles: an editor may not update or delete models, nothing changed', async () => {
    const model = await owner.createSimpleModel({ name: 'Before' });
    assertForbidden(
      await editor.q('mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id name } } }', {
        input: { id: model.id, name: 'After' },
      }),
      'Forbidden: editor may not change models',
    );
    assertForbidden(
      await editor.q('mutation($id: ID!) { model { delete(id: $id) { id deleted } } }', { id: model.id }),
      'Forbidden: editor may not change models',
    );
    const stored = await owner.getModel(model.id);
    assert.equal(stored.name, 'Before');
  });

  test('roles: an admin creates models', async () => {
    const model = await admin.createSimpleModel();
    assert.ok(model.id);
  });

  test('roles: a request mixing a permitted and a forbidden operation is refused whole, nothing written', async () => {
    const slug = uniqueSlug('mixed');
    const response = await editor.q(
      `mutation($r: CreateModelRecordInput!, $m: CreateModelDefinitionInput!) {
        a: record { create(input: $r) { id } }
        b: model { create(input: $m) { id } }
      }`,
      { r: { modelId, data: { title: 'mixed' } }, m: { name: 'M', slug, fields: [{ key: 'title', type: 'text' }] } },
    );
    assertForbidden(response, 'Forbidden: editor may not change models');
    const items = await owner.listAll(modelId);
    assert.ok(!items.some((r) => r.data.title === 'mixed'));
  });
});

function dataOfPatch(response: GqlResponse): any {
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.errors, undefined, response.text);
  return response.body.data.record.patch;
}
