// Webhooks end to end (spec/webhooks.md): the admin API of the contract, every event type and its body, signatures
// checked with the reference verifier, retries, redelivery, rotation, ping, ordered start, and that a refused
// write has no event. A real server (the built CLI) and real receivers on 127.0.0.1.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Admin, bootstrapAdmin, dataOf, expectError, onlyError, uniqueSlug } from '../support/client.js';
import { execDirect } from '../support/direct-sql.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';
import { verify, WebhookReceiver, type Received } from '../support/webhook-receiver.js';

const WEBHOOK = 'id url events modelIds description active createdAt updatedAt';
const DELIVERY = 'id eventId eventType status attempts lastStatusCode lastError duration nextAttemptAt createdAt updatedAt';
const TIMEOUT_MS = 400;

let server: TestServer;
let admin: Admin;
const receivers: WebhookReceiver[] = [];

async function receiver(): Promise<WebhookReceiver> {
  const started = await WebhookReceiver.start();
  receivers.push(started);
  return started;
}

async function createWebhook(input: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const data = await admin.ok(
    `mutation($input: CreateWebhookInput!) { webhook { create(input: $input) { secret webhook { ${WEBHOOK} } } } }`,
    { input },
  );
  return { id: data.webhook.create.webhook.id, secret: data.webhook.create.secret };
}

async function deliveries(webhookId: string, args: Record<string, unknown> = {}): Promise<any> {
  const data = await admin.ok(
    `query($webhookId: ID!, $limit: Int, $offset: Int, $status: String) {
      webhook { deliveries(webhookId: $webhookId, limit: $limit, offset: $offset, status: $status) { total hasMore items { ${DELIVERY} } } }
    }`,
    { webhookId, ...args },
  );
  return data.webhook.deliveries;
}

async function waitForRequests(target: WebhookReceiver, count: number, what: string, timeoutMs = 30_000): Promise<Received[]> {
  await waitFor(() => target.received.length >= count, {
    timeoutMs,
    message: () => `${what}: ${count} requests awaited, ${target.received.length} came`,
  });
  return target.received;
}

before(async () => {
  server = await startServer({
    extraArgs: ['--webhook-allow-private'],
    env: {
      WEBHOOK_RETRY_DELAYS: '0.2,0.2',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK: '1',
      LOG_LEVEL: 'warn',
    },
  });
  admin = await bootstrapAdmin(server);
});

after(async () => {
  for (const started of receivers) await started.close();
  await server?.dispose();
});

describe('the webhook admin API', () => {
  test('the start banner says that private addresses are allowed', () => {
    assert.match(server.stdout, /Webhooks may go to loopback and private addresses/);
  });

  test('create answers the secret once; list and get never show it', async () => {
    const target = await receiver();
    const data = await admin.ok(
      `mutation($input: CreateWebhookInput!) { webhook { create(input: $input) { secret webhook { ${WEBHOOK} } } } }`,
      { input: { url: target.url, events: ['record.created'], description: 'site rebuild' } },
    );
    const { secret, webhook } = data.webhook.create;
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(webhook.url, target.url);
    assert.deepEqual(webhook.events, ['record.created']);
    assert.equal(webhook.modelIds, null);
    assert.equal(webhook.active, true);
    assert.equal(webhook.description, 'site rebuild');
    const listed = await admin.ok(`{ webhook { list { ${WEBHOOK} } get(id: "${webhook.id}") { id url } } }`);
    assert.ok(listed.webhook.list.some((item: any) => item.id === webhook.id));
    assert.equal(listed.webhook.get.url, target.url);
    const schema = await admin.ok(`{ __type(name: "Webhook") { fields { name } } }`);
    assert.ok(!schema.__type.fields.some((field: any) => /secret/i.test(field.name)), 'Webhook has no secret field');
  });

  test('bad input is refused naming the field', async () => {
    const create = (input: Record<string, unknown>) =>
      admin.q(`mutation($input: CreateWebhookInput!) { webhook { create(input: $input) { secret } } }`, { input });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ url: 'ftp://example.com/x', events: ['*'] }, 'url', /^url: /],
      [{ url: 'not a url', events: ['*'] }, 'url', /^url: /],
      [{ url: 'http://127.0.0.1:1/x', events: [] }, 'events', /^events: /],
      [{ url: 'http://127.0.0.1:1/x', events: ['record.created', 'record.exploded'] }, 'events', /"record\.exploded"/],
      [{ url: 'http://127.0.0.1:1/x', events: ['*'], modelIds: ['no-such-model'] }, 'modelIds', /"no-such-model"/],
    ];
    for (const [input, field, message] of cases) {
      const error = onlyError(await create(input));
      assert.equal(error.extensions?.code, 'BAD_USER_INPUT', JSON.stringify(input));
      assert.equal(error.extensions?.field, field, JSON.stringify(input));
      assert.match(error.message, message);
    }
    const badStatus = onlyError(await admin.q(`{ webhook { deliveries(webhookId: "x", status: "done") { total } } }`));
    assert.equal(badStatus.extensions?.code, 'NOT_FOUND');
    // The delivery log pages as every list does (the contract's Listing): above 100 clamped, negatives refused.
    const { id } = await createWebhook({ url: 'http://127.0.0.1:1/x', events: ['*'] });
    const page = (limit: number, offset = 0) =>
      admin.q(`{ webhook { deliveries(webhookId: "${id}", limit: ${limit}, offset: ${offset}) { total items { id } } } }`);
    assert.deepEqual(dataOf(await page(1000)).webhook.deliveries, { total: 0, items: [] });
    assert.deepEqual(dataOf(await page(0)).webhook.deliveries, { total: 0, items: [] });
    for (const [limit, offset, field] of [
      [-1, 0, 'limit'],
      [20, -1, 'offset'],
    ] as const) {
      const error = onlyError(await page(limit, offset));
      assert.equal(error.extensions?.code, 'BAD_USER_INPUT');
      assert.equal(error.extensions?.field, field);
      assert.equal(error.message, `${field}: must not be negative`);
    }
    await admin.ok(`mutation { webhook { delete(id: "${id}") { id } } }`);
  });

  test('unknown ids are NOT_FOUND', async () => {
    expectError(await admin.q(`mutation { webhook { delete(id: "nope") { id } } }`), 'NOT_FOUND');
    expectError(await admin.q(`mutation { webhook { rotateSecret(id: "nope") { secret } } }`), 'NOT_FOUND');
    expectError(await admin.q(`mutation { webhook { ping(id: "nope") { id } } }`), 'NOT_FOUND');
    expectError(await admin.q(`mutation { webhook { redeliver(deliveryId: "nope") { id } } }`), 'NOT_FOUND');
    expectError(await admin.q(`mutation { webhook { update(input: { id: "nope", active: false }) { id } } }`), 'NOT_FOUND');
    expectError(await admin.q(`{ webhook { deliveries(webhookId: "nope") { total } } }`), 'NOT_FOUND');
    const got = await admin.ok(`{ webhook { get(id: "nope") { id } } }`);
    assert.equal(got.webhook.get, null);
  });

  test('editors and viewers are FORBIDDEN, reading or writing', async () => {
    for (const role of ['editor', 'viewer'] as const) {
      const token = await server.createToken({ workspaceId: admin.workspaceId, email: `${role}@acme.test`, role });
      const other = new Admin(server, { token: token.token, workspaceId: admin.workspaceId });
      expectError(await other.q(`{ webhook { list { id } } }`), 'FORBIDDEN', 403);
      expectError(
        await other.q(`mutation { webhook { create(input: { url: "http://127.0.0.1:1/", events: ["*"] }) { secret } } }`),
        'FORBIDDEN',
        403,
      );
    }
  });

  test('update changes the settings given; delete removes the webhook', async () => {
    const { id } = await createWebhook({ url: 'http://127.0.0.1:9/a', events: ['*'] });
    const updated = await admin.ok(
      `mutation { webhook { update(input: { id: "${id}", events: ["model.created"], active: false, description: "paused" }) { ${WEBHOOK} } } }`,
    );
    assert.deepEqual(updated.webhook.update.events, ['model.created']);
    assert.equal(updated.webhook.update.active, false);
    assert.equal(updated.webhook.update.url, 'http://127.0.0.1:9/a');
    const deleted = await admin.ok(`mutation { webhook { delete(id: "${id}") { id deleted } } }`);
    assert.deepEqual(deleted.webhook.delete, { id, deleted: true });
    assert.equal((await admin.ok(`{ webhook { get(id: "${id}") { id } } }`)).webhook.get, null);
  });
});

describe('events and bodies', () => {
  test('every event type reaches a "*" webhook, signed, with the body of the contract', async () => {
    const target = await receiver();
    const { id: webhookId, secret } = await createWebhook({ url: target.url, events: ['*'] });
    const model = await admin.createProductModel();
    const record = await admin.createRecord(model.id, { sku: 'A-1', title: 'First' });
    await admin.ok(`mutation { record { patch(input: { id: "${record.id}", data: { price: 2.5 } }) { id } } }`);
    await admin.ok(
      `mutation { record { update(input: { id: "${record.id}", data: { sku: "A-1", title: "Replaced" } }) { id } } }`,
    );
    const imported = await admin.importRows(model.id, [
      { sku: 'B-2', title: 'Two' },
      { sku: 'A-1', title: 'taken SKU: skipped' },
      { sku: 'B-3', title: 'Three' },
    ]);
    assert.equal(imported.importedCount, 2);
    await admin.ok(`mutation { record { delete(id: "${record.id}") { id } } }`);
    await admin.ok(`mutation { model { update(input: { id: "${model.id}", name: "Renamed" }) { id } } }`);
    const plain = await admin.createSimpleModel();
    await admin.ok(`mutation { model { delete(id: "${plain.id}") { id } } }`);

    const all = await waitForRequests(target, 9, 'nine events');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(target.received.length, 9, 'nothing more than the nine events');
    for (const request of all) verify(request, secret);
    const types = all.map((request) => request.json.type);
    assert.deepEqual(types, [
      'model.created',
      'record.created',
      'record.updated',
      'record.updated',
      'records.imported',
      'record.deleted',
      'model.updated',
      'model.created',
      'model.deleted',
    ]);
    const sequences = all.map((request) => request.json.data.sequence);
    for (let index = 1; index < sequences.length; index++)
      assert.ok(sequences[index] > sequences[index - 1], 'sequence increases');
    for (const request of all) {
      assert.equal(request.json.data.workspaceId, admin.workspaceId);
      assert.equal(request.headers['content-type'], 'application/json');
      assert.ok(!Number.isNaN(Date.parse(request.json.timestamp)));
    }
    const [modelCreated, created, patched, updated, importedEvent, deleted, modelUpdated] = all as [
      Received,
      Received,
      ...Received[],
    ];
    assert.equal(modelCreated.json.data.model.slug, model.slug);
    assert.equal(modelCreated.json.data.modelId, model.id);
    assert.deepEqual(created.json.data.record, {
      id: record.id,
      data: { sku: 'A-1', title: 'First' },
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    });
    assert.equal(created.json.data.modelId, model.id);
    assert.equal(created.json.data.modelSlug, model.slug);
    assert.deepEqual(patched!.json.data.record.data, { sku: 'A-1', title: 'First', price: 2.5 });
    assert.deepEqual(updated!.json.data.record.data, { sku: 'A-1', title: 'Replaced' });
    const stored = await admin.listAll(model.id);
    assert.equal(importedEvent!.json.data.importedCount, 2);
    assert.deepEqual(
      importedEvent!.json.data.recordIds,
      ['B-2', 'B-3'].map((sku) => stored.find((item) => item.data.sku === sku)!.id),
    );
    assert.equal(importedEvent!.json.data.record, undefined);
    assert.deepEqual(deleted!.json.data.record, { id: record.id });
    assert.equal(modelUpdated!.json.data.model.name, 'Renamed');
    assert.deepEqual(all[8]!.json.data.model, { id: plain.id, slug: plain.slug });

    const log = await deliveries(webhookId, { limit: 5 });
    assert.equal(log.total, 9);
    assert.equal(log.hasMore, true);
    assert.equal(log.items.length, 5);
    for (const item of log.items) assert.equal(item.status, 'succeeded');
    assert.equal(log.items[0].eventType, 'model.deleted', 'newest first');
    assert.equal((await deliveries(webhookId, { status: 'failed' })).total, 0);
    await admin.ok(`mutation { webhook { delete(id: "${webhookId}") { id } } }`);
  });

  test('publish and unpublish send record.published (the published copy) and record.unpublished ({ id }), one per record', async () => {
    const target = await receiver();
    const { id: webhookId, secret } = await createWebhook({
      url: target.url,
      events: ['record.published', 'record.unpublished'],
    });
    const model = await admin.createModel({
      slug: uniqueSlug('drafted'),
      name: 'Drafted',
      drafts: true,
      fields: [{ key: 'title', label: 'Title', type: 'text', required: true }],
    });
    const one = await admin.createRecord(model.id, { title: 'One' });
    const two = await admin.createRecord(model.id, { title: 'Two' });
    await admin.ok('mutation ($ids: [ID!]!) { record { publish(ids: $ids) { unpublishedTargets } } }', { ids: [one.id, two.id] });
    await admin.ok('mutation ($ids: [ID!]!) { record { unpublish(ids: $ids) { unpublishedTargets } } }', { ids: [two.id] });
    const all = await waitForRequests(target, 3, 'three events');
    for (const request of all) verify(request, secret);
    assert.deepEqual(
      all.map((request) => [request.json.type, request.json.data.record.id]),
      [
        ['record.published', one.id],
        ['record.published', two.id],
        ['record.unpublished', two.id],
      ],
    );
    assert.deepEqual(all[0]!.json.data.record.data, { title: 'One' });
    assert.equal(all[0]!.json.data.modelSlug, model.slug);
    assert.deepEqual(all[2]!.json.data.record, { id: two.id });
    await admin.ok(`mutation { webhook { delete(id: "${webhookId}") { id } } }`);
  });

  test('a schedule that fails sends schedule.failed, with what it was to do and why it did nothing', async () => {
    const target = await receiver();
    const { id: webhookId } = await createWebhook({ url: target.url, events: ['schedule.failed'], modelIds: [] });
    const model = await admin.createModel({
      slug: uniqueSlug('scheduled'),
      name: 'Scheduled',
      drafts: true,
      fields: [{ key: 'title', label: 'Title', type: 'text', required: true }],
    });
    const kept = await admin.createRecord(model.id, { title: 'Kept' });
    const gone = await admin.createRecord(model.id, { title: 'Gone' });
    const at = new Date(Date.now() + 600).toISOString();
    const schedule = (
      await admin.ok('mutation ($input: ScheduleInput!) { record { schedule(input: $input) { id } } }', {
        input: { ids: [kept.id, gone.id], action: 'publish', at },
      })
    ).record.schedule;
    await admin.ok(`mutation { record { delete(id: "${gone.id}") { id } } }`);
    const [event] = await waitForRequests(target, 1, 'the schedule.failed event');
    assert.equal(event!.json.type, 'schedule.failed');
    assert.deepEqual(event!.json.data.schedule, {
      id: schedule.id,
      action: 'publish',
      at,
      ids: [kept.id, gone.id],
      error: `ids: record ${gone.id} no longer exists; nothing was changed`,
    });
    const state = await admin.ok(`query { record { get(id: "${kept.id}") { status } } }`);
    assert.equal(state.record.get.status, 'draft');
    await admin.ok(`mutation { webhook { delete(id: "${webhookId}") { id } } }`);
  });

  test('events and modelIds narrow what a webhook gets; a paused webhook gets nothing', async () => {
    const target = await receiver();
    const paused = await receiver();
    const one = await admin.createSimpleModel();
    const other = await admin.createSimpleModel();
    const { id } = await createWebhook({ url: target.url, events: ['record.created', 'model.updated'], modelIds: [one.id] });
    const { id: pausedId } = await createWebhook({ url: paused.url, events: ['*'], active: false });
    const noModel = await receiver();
    const { id: noModelId } = await createWebhook({ url: noModel.url, events: ['record.created'], modelIds: [] });
    await admin.createRecord(other.id, { title: 'not this model' });
    const wanted = await admin.createRecord(one.id, { title: 'this one' });
    await admin.ok(`mutation { record { patch(input: { id: "${wanted.id}", data: { note: "not this type" } }) { id } } }`);
    await admin.ok(`mutation { model { update(input: { id: "${other.id}", name: "model events ignore modelIds" }) { id } } }`);
    await waitForRequests(target, 2, 'the record.created of the model and the model.updated');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(
      target.received.map((request) => [request.json.type, request.json.data.modelId]),
      [
        ['record.created', one.id],
        ['model.updated', other.id],
      ],
    );
    assert.equal(paused.received.length, 0);
    assert.equal(noModel.received.length, 0, 'modelIds: [] narrows record events to no model');
    for (const webhookId of [id, pausedId, noModelId]) {
      await admin.ok(`mutation { webhook { delete(id: "${webhookId}") { id } } }`);
    }
  });

  test('a forced delete sends record.deleted, and record.updated for each record whose reference it removed', async () => {
    const target = await receiver();
    const author = await admin.createSimpleModel();
    const book = await admin.createModel({
      name: 'Book',
      slug: `book_${Date.now()}`,
      fields: [
        { key: 'title', label: 'Title', type: 'text' },
        { key: 'author', label: 'Author', type: 'relation', relationTo: `model:${author.slug}` },
        { key: 'editors', label: 'Editors', type: 'relation', relationTo: `model:${author.slug}`, relationType: 'hasMany' },
      ],
    });
    const gone = await admin.createRecord(author.id, { title: 'gone' });
    const stays = await admin.createRecord(author.id, { title: 'stays' });
    const first = await admin.createRecord(book.id, { title: 'B1', author: gone.id, editors: [gone.id, stays.id] });
    const second = await admin.createRecord(book.id, { title: 'B2', editors: [gone.id] });
    const untouched = await admin.createRecord(book.id, { title: 'B3', author: stays.id });
    const { id } = await createWebhook({ url: target.url, events: ['record.deleted', 'record.updated'] });
    await admin.ok(`mutation { record { delete(id: "${gone.id}", force: true) { id } } }`);
    await waitForRequests(target, 3, 'the delete and the two books it changed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [deleted, ...updated] = target.received.map((request) => request.json);
    assert.deepEqual([deleted.type, deleted.data.record], ['record.deleted', { id: gone.id }]);
    const byId = new Map(updated.map((event) => [event.data.record.id, event]));
    assert.deepEqual([...byId.keys()].sort(), [first.id, second.id].sort(), `not ${untouched.id}`);
    assert.deepEqual(
      updated.map((event) => event.type),
      ['record.updated', 'record.updated'],
    );
    for (const event of updated) {
      assert.equal(event.data.modelId, book.id);
      assert.ok(event.data.sequence > deleted.data.sequence);
      const stored = await admin.ok(`query { record { get(id: "${event.data.record.id}") { data updatedAt } } }`);
      assert.deepEqual(event.data.record.data, stored.record.get.data, 'the record as stored after the delete');
      assert.equal(event.data.record.updatedAt, stored.record.get.updatedAt);
    }
    assert.deepEqual(byId.get(first.id).data.record.data, { title: 'B1', editors: [stays.id] });
    assert.deepEqual(byId.get(second.id).data.record.data, { title: 'B2', editors: [] });
    await admin.ok(`mutation { webhook { delete(id: "${id}") { id } } }`);
  });

  test('a refused write has no event', async () => {
    const target = await receiver();
    const model = await admin.createProductModel();
    const notes = await admin.createModel({
      slug: `note${Date.now()}`,
      name: 'Note',
      displayField: 'title',
      fields: [
        { key: 'title', label: 'Title', type: 'text', required: true },
        { key: 'product', label: 'Product', type: 'relation', relationTo: `model:${model.slug}`, relationType: 'hasOne' },
      ],
    });
    const { id } = await createWebhook({ url: target.url, events: ['*'] });
    const first = await admin.createRecord(model.id, { sku: 'R-1', title: 'kept' });
    await admin.createRecord(notes.id, { title: 'refers', product: first.id });
    // Refused: a taken SKU (alone and in one turn with a good write), bad data, a delete with references, an import
    // whose every row is refused, a patch of a record that does not exist.
    const [taken, good] = await Promise.all([
      admin.createRecordRaw(model.id, { sku: 'R-1', title: 'taken' }),
      admin.createRecordRaw(model.id, { sku: 'R-2', title: 'good' }),
    ]);
    expectError(taken, 'CONFLICT');
    const goodId = dataOf(good).record.create.id;
    expectError(await admin.createRecordRaw(model.id, { title: 'no sku' }), 'BAD_USER_INPUT');
    expectError(await admin.deleteRaw(first.id), 'CONFLICT');
    const none = await admin.importRows(model.id, [{ sku: 'R-1', title: 'taken' }, { title: 'no sku' }]);
    assert.equal(none.importedCount, 0);
    expectError(await admin.patchRaw('no-such-record', { title: 'x' }), 'NOT_FOUND');
    await admin.createRecord(model.id, { sku: 'R-3', title: 'last' });
    await waitForRequests(target, 4, 'the events of the four stored writes');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(
      target.received.map((request) => [
        request.json.type,
        request.json.data.record?.data?.sku ?? request.json.data.record?.data?.title,
      ]),
      [
        ['record.created', 'R-1'],
        ['record.created', 'refers'],
        ['record.created', 'R-2'],
        ['record.created', 'R-3'],
      ],
    );
    assert.equal(target.received[2]!.json.data.record.id, goodId);
    assert.equal((await deliveries(id)).total, 4);
    await admin.ok(`mutation { webhook { delete(id: "${id}") { id } } }`);
  });
  test('a write that fails after its event was written leaves neither the write nor the event', async () => {
    // A trigger fails the write once its event row is in (on PostgreSQL at COMMIT): the event must go with it.
    const postgres = server.databaseUrl.startsWith('postgres');
    await execDirect(
      server.databaseUrl,
      postgres
        ? `CREATE FUNCTION test_fail_event() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN IF NEW.payload LIKE '%ROLLBACK-ME%' THEN RAISE EXCEPTION 'test: rolled back after the event'; END IF; RETURN NEW; END $$;
           CREATE CONSTRAINT TRIGGER test_fail_event AFTER INSERT ON webhook_events DEFERRABLE INITIALLY DEFERRED
           FOR EACH ROW EXECUTE FUNCTION test_fail_event();`
        : `CREATE TRIGGER test_fail_event AFTER INSERT ON webhook_events WHEN NEW.payload LIKE '%ROLLBACK-ME%'
           BEGIN SELECT RAISE(ABORT, 'test: rolled back after the event'); END;`,
    );
    try {
      const target = await receiver();
      const model = await admin.createSimpleModel();
      const { id } = await createWebhook({ url: target.url, events: ['record.created'], modelIds: [model.id] });
      const [failed, kept] = await Promise.all([
        admin.createRecordRaw(model.id, { title: 'ROLLBACK-ME' }),
        admin.createRecordRaw(model.id, { title: 'kept' }),
      ]);
      expectError(failed, 'INTERNAL');
      const keptId = dataOf(kept).record.create.id;
      await admin.createRecord(model.id, { title: 'after' });
      await waitForRequests(target, 2, 'the events of the two stored records');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(
        target.received.map((request) => request.json.data.record.data.title),
        ['kept', 'after'],
      );
      assert.equal(target.received[0]!.json.data.record.id, keptId);
      assert.deepEqual(
        (await admin.listAll(model.id)).map((record) => record.data.title),
        ['kept', 'after'],
      );
      assert.equal((await deliveries(id)).total, 2);
    } finally {
      await execDirect(
        server.databaseUrl,
        postgres
          ? 'DROP TRIGGER test_fail_event ON webhook_events; DROP FUNCTION test_fail_event();'
          : 'DROP TRIGGER test_fail_event;',
      );
    }
  });
});

describe('delivery', () => {
  async function oneEvent(target: WebhookReceiver): Promise<{ webhookId: string; secret: string; modelId: string }> {
    const model = await admin.createSimpleModel();
    const { id, secret } = await createWebhook({ url: target.url, events: ['record.created'], modelIds: [model.id] });
    await admin.createRecord(model.id, { title: 'an event' });
    return { webhookId: id, secret, modelId: model.id };
  }

  test('a 500 is retried with the same webhook-id until it succeeds', async () => {
    const target = await receiver();
    target.responder = (_request, index) => ({ status: index < 2 ? 500 : 204 });
    const { webhookId, secret } = await oneEvent(target);
    const requests = await waitForRequests(target, 3, 'two failures and a success');
    for (const request of requests) verify(request, secret);
    assert.equal(new Set(requests.map((request) => request.headers['webhook-id'])).size, 1);
    await waitFor(async () => (await deliveries(webhookId)).items[0].status === 'succeeded', {
      timeoutMs: 20_000,
      message: 'the delivery recorded as succeeded',
    });
    const [delivery] = (await deliveries(webhookId)).items;
    assert.equal(delivery.attempts, 3);
    assert.equal(delivery.lastStatusCode, 204);
    assert.equal(typeof delivery.duration, 'number', 'the duration of the last attempt');
    assert.equal(delivery.nextAttemptAt, null);
  });

  test('a timeout is retried; when the schedule runs out the delivery is failed and kept', async () => {
    const target = await receiver();
    target.responder = () => ({ status: 200, delayMs: TIMEOUT_MS * 3 });
    const { webhookId } = await oneEvent(target);
    await waitFor(async () => (await deliveries(webhookId)).items[0].status === 'failed', {
      timeoutMs: 30_000,
      message: 'three timed-out attempts, then failed',
    });
    const [delivery] = (await deliveries(webhookId, { status: 'failed' })).items;
    assert.equal(delivery.attempts, 3, 'one attempt and the two retries of WEBHOOK_RETRY_DELAYS');
    assert.equal(delivery.lastStatusCode, null);
    assert.match(delivery.lastError, /time/i);
    assert.ok(
      delivery.duration >= TIMEOUT_MS - 1,
      `the last attempt took ${delivery.duration} ms, its time limit ${TIMEOUT_MS} ms`,
    );
    assert.equal(target.received.length, 3);
  });

  test('connection refused is retried, then failed; redeliver sends the event again once the receiver is up', async () => {
    const gone = await WebhookReceiver.start();
    const port = gone.port;
    await gone.close();
    const model = await admin.createSimpleModel();
    const { id: webhookId, secret } = await createWebhook({
      url: `http://127.0.0.1:${port}/hooks`,
      events: ['record.created'],
      modelIds: [model.id],
    });
    await admin.createRecord(model.id, { title: 'nobody listens' });
    await waitFor(async () => (await deliveries(webhookId)).items[0]?.status === 'failed', {
      timeoutMs: 30_000,
      message: 'three refused attempts, then failed',
    });
    const [failed] = (await deliveries(webhookId)).items;
    assert.equal(failed.attempts, 3);
    assert.match(failed.lastError, /refused/);
    const back = await WebhookReceiver.start(port);
    receivers.push(back);
    const redelivered = await admin.ok(`mutation { webhook { redeliver(deliveryId: "${failed.id}") { ${DELIVERY} } } }`);
    assert.equal(redelivered.webhook.redeliver.status, 'pending');
    assert.equal(redelivered.webhook.redeliver.duration, null, 'no attempt of the new delivery yet');
    assert.equal(redelivered.webhook.redeliver.eventId, failed.eventId);
    assert.notEqual(redelivered.webhook.redeliver.id, failed.id);
    const [request] = await waitForRequests(back, 1, 'the redelivery');
    verify(request!, secret);
    assert.equal(request!.headers['webhook-id'], failed.eventId);
    await waitFor(async () => (await deliveries(webhookId, { status: 'succeeded' })).total === 1, {
      timeoutMs: 20_000,
      message: 'the redelivery recorded as succeeded',
    });
    assert.equal((await deliveries(webhookId)).total, 2, 'the failed delivery is kept');
  });

  test('a 400 fails at once, without retries', async () => {
    const target = await receiver();
    target.responder = () => ({ status: 400 });
    const { webhookId } = await oneEvent(target);
    await waitFor(async () => (await deliveries(webhookId)).items[0].status === 'failed', {
      timeoutMs: 20_000,
      message: 'the delivery failed',
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(target.received.length, 1);
    const [delivery] = (await deliveries(webhookId)).items;
    assert.equal(delivery.attempts, 1);
    assert.equal(delivery.lastStatusCode, 400);
  });

  test('a 429 waits for its Retry-After', async () => {
    const target = await receiver();
    target.responder = (_request, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 });
    await oneEvent(target);
    const [first, second] = await waitForRequests(target, 2, 'the 429 and the retry');
    const waited = second!.receivedAt - first!.receivedAt;
    assert.ok(waited >= 950, `the retry came ${waited} ms after the 429, not before the Retry-After second`);
  });

  test('after rotateSecret deliveries carry both signatures, each verifying', async () => {
    const target = await receiver();
    const { webhookId, secret: oldSecret, modelId } = await oneEvent(target);
    await waitForRequests(target, 1, 'the first event');
    assert.equal(String(target.received[0]!.headers['webhook-signature']).split(' ').length, 1);
    const rotated = await admin.ok(`mutation { webhook { rotateSecret(id: "${webhookId}") { secret webhook { id } } } }`);
    const newSecret = rotated.webhook.rotateSecret.secret;
    assert.notEqual(newSecret, oldSecret);
    await admin.createRecord(modelId, { title: 'after the rotation' });
    const [, request] = await waitForRequests(target, 2, 'the event after the rotation');
    const signatures = String(request!.headers['webhook-signature']).split(' ');
    assert.equal(signatures.length, 2);
    verify(request!, newSecret);
    verify(request!, oldSecret);
    // Each signature alone verifies with its own secret.
    const alone = (signature: string): Received => ({
      ...request!,
      headers: { ...request!.headers, 'webhook-signature': signature },
    });
    verify(alone(signatures[0]!), newSecret);
    verify(alone(signatures[1]!), oldSecret);
    assert.throws(() => verify(alone(signatures[0]!), oldSecret));
  });

  test('ping sends a webhook.ping event to that webhook', async () => {
    const target = await receiver();
    const { id, secret } = await createWebhook({ url: target.url, events: ['model.deleted'] });
    const pinged = await admin.ok(`mutation { webhook { ping(id: "${id}") { ${DELIVERY} } } }`);
    assert.equal(pinged.webhook.ping.eventType, 'webhook.ping');
    const [request] = await waitForRequests(target, 1, 'the ping');
    verify(request!, secret);
    assert.equal(request!.json.type, 'webhook.ping');
    assert.equal(request!.json.data.webhookId, id);
    assert.equal(request!.headers['webhook-id'], pinged.webhook.ping.eventId);
  });

  test('deliveries to one webhook start in event order; a retrying event does not hold back later ones', async () => {
    const target = await receiver();
    const model = await admin.createSimpleModel();
    target.responder = (request) => ({
      status:
        request.json.data.record.data.title === 't0' &&
        target.ofType('record.created').filter((r) => r.json.data.record.data.title === 't0').length === 1
          ? 503
          : 200,
    });
    await createWebhook({ url: target.url, events: ['record.created'], modelIds: [model.id] });
    for (let index = 0; index < 12; index++) await admin.createRecord(model.id, { title: `t${index}` });
    await waitForRequests(target, 13, 'twelve events and one retry');
    const titles = target.received.map((request) => request.json.data.record.data.title);
    const firstTries = titles.filter((title, index) => titles.indexOf(title) === index);
    assert.deepEqual(
      firstTries,
      Array.from({ length: 12 }, (_, index) => `t${index}`),
      'first attempts in event order',
    );
    assert.equal(titles[0], 't0');
    assert.notEqual(titles[1], 't0', 'the retry of t0 came after later events');
    const sequences = target.received.slice(1).filter((request) => request.json.data.record.data.title !== 't0');
    for (let index = 1; index < sequences.length; index++) {
      assert.ok(sequences[index]!.json.data.sequence > sequences[index - 1]!.json.data.sequence);
    }
  });
});
