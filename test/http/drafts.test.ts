// Drafts over HTTP (docs/lifecycle.md): the admin API's publish, unpublish, discardChanges, get(published) and the
// status fields; the delivery route serving published copies, preview with a token (401 without, never cached), and
// ETags that move when a publish changes what is served.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Admin, bootstrapAdmin, expectError, gql, request, uniqueSlug } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let owner: Admin;
let viewer: Admin;
let deliveryUrl: string;
let article: any;

const STATE = 'id status publishedAt publishedRevision hasUnpublishedChanges revision data';
const PUBLISH = `mutation ($ids: [ID!]!) { record { publish(ids: $ids) { records { ${STATE} } unpublishedTargets } } }`;
const UNPUBLISH = `mutation ($ids: [ID!]!) { record { unpublish(ids: $ids) { records { ${STATE} } unpublishedTargets } } }`;
const DISCARD = `mutation ($id: ID!) { record { discardChanges(id: $id) { ${STATE} } } }`;
const GET = `query ($id: ID!, $published: Boolean) { record { get(id: $id, published: $published) { ${STATE} } } }`;
const SERVED = `query ($slug: String!, $preview: Boolean) { public { model {
  records(modelSlug: $slug, preview: $preview, sort: "createdAt_asc") { total items { id status data } }
  definitions { slug recordCount } } } }`;

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server, { org: 'acme', workspace: 'main', email: 'owner@acme.test' });
  const { token } = await server.createToken({ workspaceId: owner.workspaceId, email: 'viewer@acme.test', role: 'viewer' });
  viewer = new Admin(server, { token, workspaceId: owner.workspaceId });
  deliveryUrl = server.deliveryUrl('acme', 'main');
  article = await owner.createModel({
    slug: uniqueSlug('article'),
    name: 'Article',
    deliveryAccess: 'public',
    fields: [{ key: 'title', label: 'Title', type: 'text', required: true }],
  });
  const turnedOn = await owner.ok(
    'mutation ($input: UpdateModelDefinitionInput!) { model { update(input: $input) { drafts } } }',
    { input: { id: article.id, drafts: true } },
  );
  assert.equal(turnedOn.model.update.drafts, true);
});

after(async () => {
  await server?.dispose();
});

const served = (preview?: boolean, headers: Record<string, string> = {}) =>
  gql(deliveryUrl, {}, SERVED, { slug: article.slug, ...(preview === undefined ? {} : { preview }) }, headers);

describe('drafts over HTTP', () => {
  test('publish, edit, discard and unpublish: the status fields follow, the delivery route serves the published copy', async () => {
    const created = await owner.createRecord(article.id, { title: 'Draft title' });
    let record = (await owner.ok(GET, { id: created.id })).record.get;
    assert.deepEqual(
      [record.status, record.publishedAt, record.publishedRevision, record.hasUnpublishedChanges],
      ['draft', null, null, false],
    );
    assert.equal((await owner.ok(GET, { id: created.id, published: true })).record.get, null);
    const before = await served();
    assert.ok(!before.body.data.public.model.records.items.some((item: any) => item.id === created.id));

    const published = (await owner.ok(PUBLISH, { ids: [created.id] })).record.publish;
    assert.deepEqual(published.unpublishedTargets, []);
    assert.equal(published.records[0].status, 'published');
    assert.equal(published.records[0].publishedRevision, 1);
    await owner.ok('mutation ($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }', {
      input: { id: created.id, data: { title: 'Edited title' } },
    });
    record = (await owner.ok(GET, { id: created.id })).record.get;
    assert.deepEqual([record.status, record.hasUnpublishedChanges, record.revision], ['changed', true, 2]);
    assert.deepEqual((await owner.ok(GET, { id: created.id, published: true })).record.get.data, { title: 'Draft title' });
    const live = (await served()).body.data.public.model;
    const item = live.records.items.find((candidate: any) => candidate.id === created.id);
    assert.deepEqual([item.status, item.data], ['published', { title: 'Draft title' }]);
    assert.equal(live.definitions.find((model: any) => model.slug === article.slug).recordCount, live.records.total);

    const discarded = (await owner.ok(DISCARD, { id: created.id })).record.discardChanges;
    assert.deepEqual([discarded.status, discarded.revision, discarded.data], ['published', 3, { title: 'Draft title' }]);
    const unpublished = (await owner.ok(UNPUBLISH, { ids: [created.id] })).record.unpublish;
    assert.deepEqual([unpublished.records[0].status, unpublished.records[0].publishedAt], ['draft', null]);
    const after = await served();
    assert.ok(!after.body.data.public.model.records.items.some((candidate: any) => candidate.id === created.id));
  });

  test('publish is all or nothing, naming the unknown id by its position; a viewer may not publish', async () => {
    const one = await owner.createRecord(article.id, { title: 'One' });
    const error = expectError(await owner.q(PUBLISH, { ids: [one.id, 'no-such-record'] }), 'NOT_FOUND');
    assert.equal(error.message, 'ids.1: record no-such-record not found');
    assert.equal((await owner.ok(GET, { id: one.id })).record.get.status, 'draft');
    expectError(await viewer.q(PUBLISH, { ids: [one.id] }), 'FORBIDDEN', 403);
    assert.equal((await viewer.ok(GET, { id: one.id })).record.get.status, 'draft', 'a viewer reads the status');
  });

  test('preview answers working copies to a token of the workspace, never cached; without a token it is 401', async () => {
    const draft = await owner.createRecord(article.id, { title: 'Only in preview' });
    const anonymous = await served(true);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.errors[0].message, 'Not authorized');
    const previewed = await served(true, { authorization: `Bearer ${viewer.token}` });
    assert.equal(previewed.status, 200, previewed.text);
    assert.equal(previewed.headers.get('cache-control'), 'private, no-store');
    const item = previewed.body.data.public.model.records.items.find((candidate: any) => candidate.id === draft.id);
    assert.deepEqual([item.status, item.data], ['draft', { title: 'Only in preview' }]);
    const plain = await served(false);
    assert.equal(plain.status, 200);
    assert.ok(!plain.body.data.public.model.records.items.some((candidate: any) => candidate.id === draft.id));
  });

  test('a browser on another origin may send a preview token: the preflight allows Authorization', async () => {
    const preflight = await fetch(deliveryUrl, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://preview.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization',
      },
    });
    await preflight.arrayBuffer();
    assert.ok(preflight.status >= 200 && preflight.status < 300, `preflight ${preflight.status}`);
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    assert.ok(allowed.includes('authorization'), allowed.join());
  });

  test('the delivery ETag moves when a publish changes what is served', async () => {
    const record = await owner.createRecord(article.id, { title: 'Tagged' });
    const url = `${deliveryUrl}?query=${encodeURIComponent(SERVED)}&variables=${encodeURIComponent(JSON.stringify({ slug: article.slug }))}`;
    const first = await request(url);
    const etag = first.headers.get('etag');
    assert.ok(etag);
    assert.equal((await request(url, { headers: { 'if-none-match': etag } })).status, 304);
    await owner.ok(PUBLISH, { ids: [record.id] });
    const afterPublish = await request(url, { headers: { 'if-none-match': etag } });
    assert.equal(afterPublish.status, 200);
    assert.ok(afterPublish.body.data.public.model.records.items.some((item: any) => item.id === record.id));
  });

  test('drafts cannot be turned off while a record is not published as it is', async () => {
    const response = await owner.q(
      'mutation ($input: UpdateModelDefinitionInput!) { model { update(input: $input) { drafts } } }',
      {
        input: { id: article.id, drafts: false },
      },
    );
    const error = expectError(response, 'CONFLICT');
    assert.match(
      error.message,
      /^drafts: \d+ records? (is|are) not published as (it is|they are); publish them or discard their changes first$/,
    );
  });
});
