// record.created on both databases, end to end: the body is the record as the API shows it (its data as sent, large
// or with relations, its times), it goes only to the webhooks whose events and models take it, and a create refused
// for its SKU sends nothing. On PostgreSQL a create is one statement that decides all of this in SQL, so its answers
// are checked against what the service says here.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { bootstrapAdmin, type Admin } from '../support/client.js';
import { postgresTarget, sqliteTarget, type Target } from '../support/databases.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';
import { verify, WebhookReceiver } from '../support/webhook-receiver.js';

const postgres = await postgresTarget();
const targets: (Target | { failure: string })[] = [sqliteTarget(), postgres];

after(async () => {
  for (const target of targets) if (!('failure' in target) && target.skip === undefined) await target.cleanup();
});

async function subscribe(admin: Admin, receiver: WebhookReceiver, input: Record<string, unknown>): Promise<string> {
  const data = await admin.ok(`mutation($input: CreateWebhookInput!) { webhook { create(input: $input) { secret } } }`, {
    input: { url: receiver.url, ...input },
  });
  return data.webhook.create.secret;
}

/** The verified bodies the receiver got, as `type record-id`, with the record of each. */
function bodiesOf(receiver: WebhookReceiver, secret: string): { key: string; record: any }[] {
  return receiver.received.map((request) => {
    verify(request, secret);
    return { key: `${request.json.type} ${request.json.data.record?.id}`, record: request.json.data.record };
  });
}

for (const target of targets) {
  const name = 'failure' in target ? 'PostgreSQL' : target.name;
  describe(`record.created (${name})`, { skip: 'failure' in target ? undefined : target.skip }, () => {
    test('the body is the record as created; only the webhooks that take it get it; a refused create sends nothing', async (t) => {
      if ('failure' in target) assert.fail(target.failure);
      const receivers = await Promise.all([WebhookReceiver.start(), WebhookReceiver.start(), WebhookReceiver.start()]);
      t.after(() => Promise.all(receivers.map((receiver) => receiver.close())));
      const server: TestServer = await startServer({
        databaseUrl: target.url('created_event'),
        extraArgs: ['--webhook-allow-private'],
        env: { LOG_LEVEL: 'warn' },
      });
      t.after(() => server.dispose());
      const admin = await bootstrapAdmin(server);
      const products = await admin.createProductModel();
      const notes = await admin.createModel({
        slug: 'notes',
        name: 'Notes',
        displayField: 'title',
        fields: [
          { key: 'title', label: 'Title', type: 'text', required: true },
          { key: 'about', label: 'About', type: 'relation', relationTo: `model:${products.slug}` },
        ],
      });
      const [productsOnly, everything, deletesOnly] = receivers as [WebhookReceiver, WebhookReceiver, WebhookReceiver];
      const secrets = [
        await subscribe(admin, productsOnly, { events: ['record.created'], modelIds: [products.id] }),
        await subscribe(admin, everything, { events: ['*'] }),
        await subscribe(admin, deletesOnly, { events: ['record.deleted'] }),
      ];

      // Text that JSON escapes, and a record over the large-record size (16 KB of data).
      const product = await admin.createRecord(products.id, {
        sku: 'P-1',
        title: 'Füße "quoted" \\ back\nslash ✓',
        price: 12.5,
      });
      const large = await admin.createRecord(products.id, { sku: 'P-2', title: 'x'.repeat(20_000) });
      const refused = await admin.createRecordRaw(products.id, { sku: 'P-1', title: 'taken' });
      assert.equal(refused.body.errors?.[0]?.extensions?.code, 'CONFLICT');
      const note = await admin.createRecord(notes.id, { title: 'see', about: product.id });
      await admin.ok(`mutation($id: ID!) { record { delete(id: $id) { id } } }`, { id: large.id });

      await waitFor(() => everything.received.length >= 4 && deletesOnly.received.length >= 1, {
        timeoutMs: 20_000,
        message: () => `events: ${everything.received.length} of 4 and ${deletesOnly.received.length} of 1 came`,
      });
      // Time for anything that should not come to come.
      await new Promise((resolve) => setTimeout(resolve, 500));

      const [productsOnlyGot, everythingGot, deletesOnlyGot] = receivers.map((receiver, index) =>
        bodiesOf(receiver, secrets[index]!),
      ) as [{ key: string; record: any }[], { key: string; record: any }[], { key: string; record: any }[]];
      assert.deepEqual(
        productsOnlyGot.map((body) => body.key),
        [`record.created ${product.id}`, `record.created ${large.id}`],
      );
      assert.deepEqual(
        everythingGot.map((body) => body.key),
        [`record.created ${product.id}`, `record.created ${large.id}`, `record.created ${note.id}`, `record.deleted ${large.id}`],
      );
      assert.deepEqual(
        deletesOnlyGot.map((body) => body.key),
        [`record.deleted ${large.id}`],
      );
      const created = new Map(everythingGot.slice(0, 3).map((body) => [body.record.id, body.record]));
      for (const record of [product, large, note]) {
        assert.deepEqual(created.get(record.id), {
          id: record.id,
          data: record.data,
          createdAt: record.createdAt,
          updatedAt: record.updatedAt,
        });
      }
      assert.deepEqual(productsOnlyGot[0]!.record, created.get(product.id));

      // The writes themselves: the count, the link, the large record read back whole.
      assert.equal(await admin.total(products.id), 1);
      assert.equal((await admin.getRecord(note.id)).data.about, product.id);
      const refusedDelete = await admin.deleteRaw(product.id);
      assert.equal(refusedDelete.body.errors?.[0]?.extensions?.code, 'CONFLICT', 'the note refers to the product');
    });
  });
}
