// The MCP server as an agent host drives it: the SDK's own Client over stdio (`content-service mcp`, a child
// process) and over Streamable HTTP (POST /mcp), against a real server. The same suite runs on both transports.
// The server counts the write budget over a 3-second window, so the budget test waits about 3 s, not a minute.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { Admin, bootstrapAdmin, uniqueSlug } from '../support/client.js';
import { runCli, startServer, type TestServer } from '../support/server.js';
import { call, connect, ok, refused, type McpSession, type Mode } from './support.js';

const WINDOW_SECONDS = 3;
const TOOLS = [
  'get_workspace_info',
  'list_models',
  'get_model',
  'create_model',
  'update_model',
  'delete_model',
  'list_records',
  'get_record',
  'create_record',
  'update_record',
  'patch_record',
  'delete_record',
  'import_records',
  'sync_records',
  'record_history',
  'restore_revision',
  'publish_records',
  'unpublish_records',
  'schedule',
  'list_schedules',
  'cancel_schedule',
  'upload_media',
  'list_media',
];

let server: TestServer;

before(async () => {
  server = await startServer({ extraArgs: ['--write-budget-window', String(WINDOW_SECONDS)] });
});

after(async () => {
  await server?.dispose();
});

const PRODUCT_FIELDS = [
  { key: 'sku', type: 'text', required: true },
  { key: 'title', type: 'text', required: true },
  { key: 'price', type: 'number' },
  { key: 'name', type: 'translatable' },
  { key: 'category', type: 'relation', relationTo: 'CATEGORY', relationType: 'hasOne' },
];

for (const mode of ['stdio', 'http'] as Mode[]) {
  describe(`MCP over ${mode}`, () => {
    let owner: Admin;
    let session: McpSession;

    before(async () => {
      owner = await bootstrapAdmin(server, { org: `org-${mode}`, workspace: 'main', email: `owner@${mode}.test`, role: 'owner' });
      session = await connect(mode, server, owner.credentials);
    });

    after(async () => {
      await session?.close();
    });

    test('lists every tool of the contract, each with a description and an input schema', async () => {
      const { tools } = await session.client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), [...TOOLS].sort());
      for (const tool of tools) {
        assert.ok((tool.description ?? '').length > 40, `${tool.name} has a description an agent can act on`);
        assert.equal(tool.inputSchema.type, 'object');
        assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name} refuses unknown arguments`);
      }
      const importTool = tools.find((tool) => tool.name === 'import_records')!;
      const rows = (importTool.inputSchema.properties as Record<string, any>).rows;
      assert.equal(rows.maxItems, 1000);
      assert.equal(rows.minItems, 1);
      assert.match(importTool.description!, /1000/);
      assert.match(importTool.description!, /row is the 1-based position/);
      const patch = tools.find((tool) => tool.name === 'patch_record')!;
      assert.match(patch.description!, /merge patch/);
      assert.match(patch.description!, /null is removed/);
      const list = tools.find((tool) => tool.name === 'list_records')!;
      assert.match((list.inputSchema.properties as Record<string, any>).filter.description, /\$gte.*\$in.*\$contains/s);
    });

    test('every tool, in the order an agent uses them', async () => {
      const info = await ok(session, 'get_workspace_info');
      assert.equal(info.id, owner.workspaceId);
      assert.equal(info.role, 'owner');
      assert.equal(info.slug, 'main');

      const categorySlug = uniqueSlug('category');
      const category = await ok(session, 'create_model', {
        name: 'Category',
        slug: categorySlug,
        fields: [{ key: 'title', type: 'text', required: true }],
      });
      assert.deepEqual(Object.keys(category), ['created']);
      assert.equal(category.created.slug, categorySlug);

      const slug = uniqueSlug('product');
      const full = await ok(session, 'create_model', {
        name: 'Product',
        slug,
        fields: PRODUCT_FIELDS.map((field) =>
          field.key === 'category' ? { ...field, relationTo: `model:${categorySlug}` } : field,
        ),
        product: { enabled: true, skuField: 'sku', priceField: 'price' },
        response: 'full',
      });
      assert.equal(full.slug, slug);
      assert.deepEqual(
        full.fields.map((field: any) => field.key),
        ['sku', 'title', 'price', 'name', 'category'],
      );

      const models = await ok(session, 'list_models');
      assert.deepEqual(models.map((model: any) => model.slug).sort(), [categorySlug, slug].sort());
      assert.equal((await ok(session, 'get_model', { idOrSlug: slug })).id, full.id);
      assert.equal((await ok(session, 'get_model', { idOrSlug: full.id })).slug, slug);

      const updated = await ok(session, 'update_model', { idOrSlug: slug, description: 'Things we sell' });
      assert.equal(updated.updated.slug, slug);
      assert.equal((await ok(session, 'get_model', { idOrSlug: slug })).description, 'Things we sell');

      const shoes = await ok(session, 'create_record', { modelSlug: categorySlug, data: { title: 'Shoes' } });
      const created = await ok(session, 'create_record', {
        modelSlug: slug,
        data: { sku: 'A-1', title: 'Runner', price: 90, name: { en: 'Runner', de: 'Läufer' }, category: shoes.created },
      });
      assert.equal(typeof created.created, 'string');
      assert.equal(created.modelId, full.id);
      const record = await ok(session, 'create_record', {
        modelId: full.id,
        data: { sku: 'A-2', title: 'Walker', price: 40 },
        response: 'full',
      });
      assert.deepEqual(record.data, { sku: 'A-2', title: 'Walker', price: 40 });

      const got = await ok(session, 'get_record', { id: created.created, locale: 'de', populate: ['category'] });
      assert.equal(got.data.name, 'Läufer');
      assert.equal(got.data.category.data.title, 'Shoes');

      const page = await ok(session, 'list_records', {
        modelSlug: slug,
        filter: { price: { $gte: 50 } },
        sort: '-price',
        limit: 10,
        offset: 0,
        locale: 'en',
        populate: ['category'],
      });
      assert.equal(page.total, 1);
      assert.equal(page.hasMore, false);
      assert.equal(page.items[0].data.name, 'Runner');
      assert.equal(page.items[0].data.category.id, shoes.created);
      const sorted = await ok(session, 'list_records', { modelId: full.id, sort: 'price_asc', limit: 1 });
      assert.equal(sorted.total, 2);
      assert.equal(sorted.hasMore, true);
      assert.equal(sorted.items[0].data.sku, 'A-2');

      // update replaces the whole data; patch merges.
      const replaced = await ok(session, 'update_record', { id: record.id, data: { sku: 'A-2', title: 'Walker 2' } });
      assert.equal(replaced.updated, record.id);
      assert.deepEqual((await ok(session, 'get_record', { id: record.id })).data, { sku: 'A-2', title: 'Walker 2' });
      const patched = await ok(session, 'patch_record', {
        id: created.created,
        data: { price: null, name: { de: null, pl: 'Biegacz' } },
        response: 'full',
      });
      assert.deepEqual(patched.data, {
        sku: 'A-1',
        title: 'Runner',
        name: { en: 'Runner', pl: 'Biegacz' },
        category: shoes.created,
      });
      const short = await ok(session, 'patch_record', { id: created.created, data: { price: 95 } });
      assert.deepEqual(Object.keys(short).sort(), ['modelId', 'patched', 'updatedAt']);

      const imported = await ok(session, 'import_records', {
        modelSlug: slug,
        rows: [
          { sku: 'B-1', title: 'Ball', price: 10 },
          { sku: 'B-2', title: 'Net', price: 'abc' },
          { sku: 'B-3', title: 'Cone' },
        ],
      });
      assert.equal(imported.importedCount, 2);
      assert.equal(imported.errors.length, 1);
      assert.equal(imported.errors[0].row, 2);
      assert.match(imported.errors[0].message, /^price: /);

      // delete_record refuses a referenced record unless force.
      const referenced = await refused(session, 'delete_record', { id: shoes.created });
      assert.match(referenced, /^id: record is referenced by field "category"/);
      assert.deepEqual(await ok(session, 'delete_record', { id: shoes.created, force: true }), {
        id: shoes.created,
        deleted: true,
      });
      assert.deepEqual(await ok(session, 'delete_record', { id: record.id }), { id: record.id, deleted: true });
      assert.match(await refused(session, 'get_record', { id: record.id }), /^id: no record with id/);

      // record_history keeps the deleted record's revisions; the patch between two; restore_revision brings it back.
      const history = await ok(session, 'record_history', { id: record.id });
      assert.deepEqual(
        history.items.map((item: { revision: number; operation: string }) => [item.revision, item.operation]),
        [
          [3, 'delete'],
          [2, 'update'],
          [1, 'create'],
        ],
      );
      const patch = await ok(session, 'record_history', { id: record.id, from: 1, to: 2 });
      assert.ok(patch.some((operation: { path: string }) => operation.path === '/title'));
      assert.deepEqual(await ok(session, 'restore_revision', { id: record.id, revision: 2 }), {
        restored: record.id,
        revision: 4,
      });
      assert.deepEqual((await ok(session, 'get_record', { id: record.id })).data, { sku: 'A-2', title: 'Walker 2' });
      assert.match(
        await refused(session, 'restore_revision', { id: record.id, revision: 0 }),
        /revision: expected a whole number/,
      );

      // delete_model: refused while records exist, then done once they are gone.
      assert.match(await refused(session, 'delete_model', { idOrSlug: slug }), /still has \d+ records/);
      const everything = await ok(session, 'list_records', { modelSlug: slug, limit: 100 });
      for (const item of everything.items) await ok(session, 'delete_record', { id: item.id });
      assert.deepEqual(await ok(session, 'delete_model', { idOrSlug: slug }), { id: full.id, deleted: true });
      assert.match(await refused(session, 'get_model', { idOrSlug: slug }), /^idOrSlug: no model with slug/);
    });

    test('publish_records and unpublish_records: a drafts model from create_model; ids and statuses, unpublishedTargets; all or nothing', async () => {
      const shelfSlug = uniqueSlug('shelf');
      await ok(session, 'create_model', {
        name: 'Shelf',
        slug: shelfSlug,
        drafts: true,
        fields: [{ key: 'title', type: 'text', required: true }],
      });
      const slug = uniqueSlug('page');
      const model = await ok(session, 'create_model', {
        name: 'Page',
        slug,
        drafts: true,
        fields: [
          { key: 'title', type: 'text', required: true },
          { key: 'shelf', type: 'relation', relationTo: `model:${shelfSlug}` },
        ],
        response: 'full',
      });
      assert.equal(model.drafts, true);
      const shelf = await ok(session, 'create_record', { modelSlug: shelfSlug, data: { title: 'Top' } });
      const first = await ok(session, 'create_record', { modelSlug: slug, data: { title: 'A', shelf: shelf.created } });
      const second = await ok(session, 'create_record', { modelSlug: slug, data: { title: 'B' } });
      assert.equal((await ok(session, 'get_record', { id: first.created })).status, 'draft');

      const ids = [second.created, first.created];
      assert.deepEqual(await ok(session, 'publish_records', { ids }), {
        records: [
          { id: second.created, status: 'published' },
          { id: first.created, status: 'published' },
        ],
        unpublishedTargets: [shelf.created],
      });
      const record = await ok(session, 'get_record', { id: first.created });
      assert.deepEqual([record.status, record.publishedRevision], ['published', 1]);
      await ok(session, 'patch_record', { id: first.created, data: { title: 'A2' } });
      const full = await ok(session, 'publish_records', { ids: [first.created, shelf.created], response: 'full' });
      assert.deepEqual(
        full.records.map((item: any) => [item.id, item.status, item.data.title, item.publishedRevision]),
        [
          [first.created, 'published', 'A2', 2],
          [shelf.created, 'published', 'Top', 1],
        ],
      );
      assert.deepEqual(full.unpublishedTargets, []);

      // All or nothing: an unknown id refuses the call and the other id stays published.
      assert.match(
        await refused(session, 'unpublish_records', { ids: [first.created, 'no-such-record'] }),
        /^ids\.1: record no-such-record not found/,
      );
      assert.equal((await ok(session, 'get_record', { id: first.created })).status, 'published');
      assert.deepEqual(await ok(session, 'unpublish_records', { ids: [first.created] }), {
        records: [{ id: first.created, status: 'draft' }],
        unpublishedTargets: [],
      });
      assert.equal((await ok(session, 'get_record', { id: first.created })).publishedAt, null);
      assert.equal((await ok(session, 'get_record', { id: second.created })).status, 'published');
    });

    test('sync_records: creates, then changes nothing when sent again; a changed row is patched; prune deletes', async () => {
      const model = await owner.createProductModel();
      const rows = [
        { sku: 'S-1', title: 'One', price: 1 },
        { sku: 'S-2', title: 'Two', price: 2 },
        { sku: 'S-3', title: 'Three', price: 3 },
      ];
      const first = await ok(session, 'sync_records', { modelSlug: model.slug, rows, key: 'sku' });
      assert.deepEqual(first, {
        total: 3,
        created: 3,
        updated: 0,
        unchanged: 0,
        deleted: 0,
        failed: 0,
        errors: [],
        duplicateKeysInStore: 0,
      });
      const before = await owner.list(model.id, { limit: 100 });
      const second = await ok(session, 'sync_records', { modelSlug: model.slug, rows, key: 'sku' });
      assert.equal(second.created, 0);
      assert.equal(second.updated, 0);
      assert.equal(second.unchanged, 3);
      const afterSecond = await owner.list(model.id, { limit: 100 });
      assert.deepEqual(afterSecond, before, 'nothing changed: same records, same updatedAt');

      const third = await ok(session, 'sync_records', {
        modelSlug: model.slug,
        rows: [rows[0], { ...rows[1], price: 20 }, { sku: 'S-4', title: 'Four', price: 'x' }],
        key: 'sku',
        prune: true,
      });
      assert.equal(third.updated, 1);
      assert.equal(third.unchanged, 1);
      assert.equal(third.deleted, 1);
      assert.equal(third.failed, 1);
      assert.equal(third.errors[0].row, 3);
      assert.match(third.errors[0].message, /^price: /);
    });

    test('a refused write is an isError result with the service message, and the server goes on serving', async () => {
      const model = await owner.createProductModel();
      const message = await refused(session, 'create_record', {
        modelSlug: model.slug,
        data: { sku: 'R-1', title: 'Refused', price: 'abc' },
      });
      assert.match(message, /^price: /);
      const duplicate = await ok(session, 'create_record', { modelSlug: model.slug, data: { sku: 'R-1', title: 'Kept' } });
      assert.match(
        await refused(session, 'create_record', { modelSlug: model.slug, data: { sku: 'R-1', title: 'Again' } }),
        /^sku: /,
      );
      assert.match(await refused(session, 'update_record', { id: duplicate.created, data: { title: 'No SKU' } }), /^sku: /);
      assert.match(await refused(session, 'patch_record', { id: duplicate.created, data: { unknown: 1 } }), /^unknown: /);
      const list = await ok(session, 'list_records', { modelSlug: model.slug });
      assert.equal(list.total, 1);
      assert.equal(list.items[0].data.title, 'Kept');
      if (mode === 'stdio') assert.ok(session.pid !== undefined && processAlive(session.pid));
    });

    test('a viewer token reads and nothing else: every write tool is refused with FORBIDDEN', async () => {
      const model = await owner.createProductModel();
      const record = await owner.createRecord(model.id, { sku: 'V-1', title: 'Seen' });
      const viewer = await server.createToken({ workspaceId: owner.workspaceId, email: `viewer@${mode}.test`, role: 'viewer' });
      const viewerSession = await connect(mode, server, { token: viewer.token, workspaceId: owner.workspaceId });
      try {
        assert.equal((await ok(viewerSession, 'get_workspace_info')).role, 'viewer');
        assert.ok((await ok(viewerSession, 'list_models')).some((m: any) => m.slug === model.slug));
        assert.equal((await ok(viewerSession, 'get_model', { idOrSlug: model.slug })).id, model.id);
        assert.equal((await ok(viewerSession, 'list_records', { modelSlug: model.slug })).total, 1);
        assert.equal((await ok(viewerSession, 'get_record', { id: record.id })).data.title, 'Seen');
        assert.equal(typeof (await ok(viewerSession, 'list_schedules')).total, 'number');
        const writes: [string, Record<string, unknown>][] = [
          ['create_model', { name: 'X', slug: uniqueSlug('x'), fields: [{ key: 'title', type: 'text' }] }],
          ['update_model', { idOrSlug: model.slug, description: 'no' }],
          ['delete_model', { idOrSlug: model.slug }],
          ['create_record', { modelSlug: model.slug, data: { sku: 'V-2', title: 'No' } }],
          ['update_record', { id: record.id, data: { sku: 'V-1', title: 'No' } }],
          ['patch_record', { id: record.id, data: { title: 'No' } }],
          ['delete_record', { id: record.id }],
          ['restore_revision', { id: record.id, revision: 1 }],
          ['publish_records', { ids: [record.id] }],
          ['unpublish_records', { ids: [record.id] }],
          ['schedule', { ids: [record.id], action: 'publish', at: new Date(Date.now() + 3_600_000).toISOString() }],
          ['cancel_schedule', { id: 'any-schedule' }],
          ['import_records', { modelSlug: model.slug, rows: [{ sku: 'V-3', title: 'No' }] }],
          ['sync_records', { modelSlug: model.slug, rows: [{ sku: 'V-4', title: 'No' }], key: 'sku' }],
        ];
        for (const [tool, args] of writes) {
          assert.match(await refused(viewerSession, tool, args), /^Forbidden: viewer may not /, tool);
        }
        const after = await owner.getRecord(record.id);
        assert.equal(after.data.title, 'Seen');
        assert.equal((await owner.list(model.id)).total, 1);
      } finally {
        await viewerSession.close();
      }
    });

    test(`over the write budget a write waits (progress says so), then succeeds (waits up to ${WINDOW_SECONDS} s)`, async () => {
      const budgeted = await bootstrapAdmin(server, { org: `budget-${mode}`, workspace: 'main', role: 'owner' });
      const set = await runCli([
        'workspace',
        'set-budget',
        '--workspace-id',
        budgeted.workspaceId,
        '--budget',
        '3',
        '--database',
        server.databaseUrl,
      ]);
      assert.equal(set.code, 0, set.stderr);
      const model = await budgeted.createProductModel();
      const budgetSession = await connect(mode, server, budgeted.credentials);
      try {
        const imported = await ok(budgetSession, 'import_records', {
          modelSlug: model.slug,
          rows: [1, 2, 3].map((n) => ({ sku: `W-${n}`, title: `Row ${n}` })),
        });
        assert.equal(imported.importedCount, 3);
        const progress: Progress[] = [];
        const started = Date.now();
        const result = await call(
          budgetSession,
          'create_record',
          { modelSlug: model.slug, data: { sku: 'W-4', title: 'After the wait' } },
          (p) => progress.push(p),
        );
        const waitedMs = Date.now() - started;
        assert.notEqual(result.isError, true, JSON.stringify(result));
        assert.ok(waitedMs >= 500, `the call waited for the budget (${waitedMs} ms)`);
        assert.ok(progress.length >= 1, 'a progress notification told about the wait');
        assert.match(progress[0]!.message ?? '', /write budget used up \(HTTP 429\): waiting \d+ s/);
        assert.equal((await budgeted.list(model.id, { limit: 100 })).total, 4);
        if (mode === 'stdio') assert.match(budgetSession.stderr(), /HTTP 429/);
      } finally {
        await budgetSession.close();
      }
    });

    test('bad input to every tool: a clear refusal naming the argument, nothing written', async () => {
      const model = await owner.createProductModel();
      const record = await owner.createRecord(model.id, { sku: 'X-1', title: 'Untouched', price: 5 });
      const later = new Date(Date.now() + 3_600_000).toISOString();
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ['get_workspace_info', { workspaceId: 'other' }, /workspaceId: unknown argument \(this tool takes none\)/],
        ['list_models', { slug: 'product' }, /slug: unknown argument/],
        ['get_model', {}, /idOrSlug: required/],
        ['get_model', { idOrSlug: 5 }, /idOrSlug: expected a string/],
        ['get_model', { idOrSlug: 'no-such-model' }, /^idOrSlug: no model with slug "no-such-model"/],
        ['create_model', { slug: 'x', fields: [] }, /name: required/],
        ['create_model', { name: 'X', slug: 'x', fields: 'title' }, /fields: expected an array/],
        ['create_model', { name: 'X', slug: 'x', fields: [{ key: 'a', type: 'colour' }] }, /type: expected text, number/],
        ['create_model', { name: 'X', slug: 'Not A Slug!', fields: [{ key: 'a', type: 'text' }] }, /^slug: /],
        [
          'create_model',
          { name: 'X', slug: 'x', fields: [{ key: 'a', type: 'text' }], response: 'all' },
          /response: expected "ack" or "full"/,
        ],
        ['update_model', { name: 'X' }, /idOrSlug: required/],
        ['update_model', { idOrSlug: 'no-such-model', name: 'X' }, /^idOrSlug: no model/],
        [
          'update_model',
          { idOrSlug: model.slug, descripton: 'typo' },
          /descripton: unknown argument \(this tool takes idOrSlug, name, /,
        ],
        [
          'update_model',
          {
            idOrSlug: model.slug,
            fields: [
              { key: 'sku', type: 'text', required: true },
              { key: 'title', type: 'number' },
              { key: 'price', type: 'number' },
            ],
          },
          /title/,
        ],
        ['delete_model', {}, /idOrSlug: required/],
        ['delete_model', { idOrSlug: 'no-such-model' }, /^idOrSlug: no model/],
        ['list_records', {}, /^modelSlug: required \(or modelId\)/],
        ['list_records', { modelSlug: 'no-such-model' }, /^modelSlug: no model with slug "no-such-model"/],
        ['list_records', { modelId: 'no-such-id' }, /modelId/],
        ['list_records', { modelId: model.id, modelSlug: model.slug }, /^modelId: give modelId or modelSlug, not both/],
        ['list_records', { modelSlug: model.slug, limit: 101 }, /limit: at most 100/],
        ['list_records', { modelSlug: model.slug, limit: 'ten' }, /limit: expected a whole number/],
        ['list_records', { modelSlug: model.slug, offset: -1 }, /offset: must be 0 or more/],
        ['list_records', { modelSlug: model.slug, filter: 'price > 5' }, /filter: expected a JSON object/],
        ['list_records', { modelSlug: model.slug, filter: { price: { $near: 5 } } }, /^filter.*\$near/],
        ['list_records', { modelSlug: model.slug, sort: 'colour_asc' }, /^sort: /],
        ['list_records', { modelSlug: model.slug, populate: 'category' }, /populate: expected an array/],
        ['get_record', {}, /id: required/],
        ['get_record', { id: 'no-such-record' }, /^id: no record with id "no-such-record"/],
        ['get_record', { id: record.id, locale: 7 }, /locale: expected a locale code/],
        ['create_record', { data: { sku: 'X-2', title: 'T' } }, /^modelSlug: required \(or modelId\)/],
        ['create_record', { modelSlug: model.slug }, /data: required/],
        ['create_record', { modelSlug: model.slug, data: 'sku=X-2' }, /data: expected a JSON object/],
        ['create_record', { modelSlug: model.slug, data: { title: 'No SKU' } }, /^sku: /],
        ['update_record', { id: record.id }, /data: required/],
        ['update_record', { data: { sku: 'X-1', title: 'T' } }, /id: required/],
        ['update_record', { id: 'no-such-record', data: { sku: 'X-1', title: 'T' } }, /id/],
        ['patch_record', { id: 5, data: {} }, /id: expected a string/],
        ['patch_record', { id: record.id, data: { price: 'abc' } }, /^price: /],
        ['patch_record', { id: 'no-such-record', data: { price: 1 } }, /id/],
        ['delete_record', {}, /id: required/],
        ['delete_record', { id: record.id, force: 'yes' }, /force: expected true or false/],
        ['delete_record', { id: 'no-such-record' }, /id/],
        ['import_records', { modelSlug: model.slug }, /rows: required/],
        ['import_records', { modelSlug: model.slug, rows: [] }, /rows: give at least 1 row/],
        [
          'import_records',
          { modelSlug: model.slug, rows: Array.from({ length: 1001 }, (_, i) => ({ sku: `M-${i}`, title: 'T' })) },
          /rows: at most 1000 rows per import_records call/,
        ],
        ['import_records', { modelSlug: model.slug, rows: ['sku,title'] }, /rows: every row must be a JSON object/],
        ['import_records', { modelSlug: 'no-such-model', rows: [{ sku: 'M', title: 'T' }] }, /^modelSlug: no model/],
        ['sync_records', { rows: [], key: 'sku' }, /modelSlug: required/],
        ['sync_records', { modelSlug: model.slug, rows: [] }, /key: required/],
        ['sync_records', { modelSlug: model.slug, rows: 'x', key: 'sku' }, /rows: expected an array/],
        ['sync_records', { modelSlug: model.slug, rows: [], key: 'colour' }, /^key: the model .* has no field "colour"/],
        ['sync_records', { modelSlug: model.slug, rows: [], key: 'sku', prune: 'yes' }, /prune: expected true or false/],
        ['sync_records', { modelSlug: 'no-such-model', rows: [], key: 'sku' }, /^modelSlug: no model/],
        ['record_history', {}, /id: required/],
        ['record_history', { id: 'no-such-record' }, /^id: record not found/],
        ['record_history', { id: record.id, from: 99 }, /^from: record .* has no revision 99/],
        ['record_history', { id: record.id, from: 'one' }, /from: expected a whole number/],
        ['restore_revision', { id: record.id }, /revision: /],
        ['restore_revision', { id: record.id, revision: 42 }, /^revision: record .* has no revision 42/],
        ['publish_records', {}, /ids: required \(an array of record ids\)/],
        ['publish_records', { ids: [] }, /ids: give at least 1 id/],
        [
          'publish_records',
          { ids: Array.from({ length: 1001 }, (_, i) => `id-${i}`) },
          /ids: at most 1000 ids per call \(one call is all or nothing\)/,
        ],
        ['publish_records', { ids: [record.id, 'no-such-record'] }, /^ids\.1: record no-such-record not found/],
        ['publish_records', { ids: [record.id], response: 'short' }, /response: expected "ack" or "full"/],
        ['unpublish_records', { ids: record.id }, /ids: expected an array of record ids/],
        ['unpublish_records', { ids: [7] }, /ids: every id must be a string/],
        ['unpublish_records', { id: record.id }, /id: unknown argument \(this tool takes ids, response\)/],
        ['list_records', { modelSlug: model.slug, status: 'draft' }, /status: expected an array of statuses/],
        ['list_records', { modelSlug: model.slug, status: ['live'] }, /status: each status is "draft", "published" or "changed"/],
        ['schedule', { ids: [record.id], action: 'publish' }, /at: required \(an ISO 8601 date-time/],
        ['schedule', { ids: [record.id], action: 'archive', at: later }, /action: expected "publish" or "unpublish"/],
        ['schedule', { action: 'publish', at: later }, /ids: required/],
        ['schedule', { ids: [record.id], action: 'publish', at: '2001-01-01T00:00:00Z' }, /^at: must be in the future/],
        ['schedule', { ids: [record.id], action: 'publish', at: 'next tuesday' }, /^at: expected an ISO 8601 date-time/],
        [
          'schedule',
          { ids: [record.id, 'no-such-record'], action: 'publish', at: later },
          /^ids\.1: record no-such-record not found/,
        ],
        ['list_schedules', { status: 'soon' }, /status: expected "pending", "done", "failed" or "cancelled"/],
        ['list_schedules', { limit: 101 }, /limit: at most 100 schedules per page/],
        ['cancel_schedule', {}, /id: required/],
        ['cancel_schedule', { id: 'no-such-schedule' }, /^id: schedule not found/],
        ['upload_media', {}, /^content: required \(the file as base64, with filename\)/],
        ['upload_media', { content: 'aGVsbG8=' }, /^filename: required with content/],
        ['upload_media', { content: 'not base64!', filename: 'a.txt' }, /^content: not base64/],
        ['upload_media', { content: 'aGVsbG8=', path: '/etc/hosts', filename: 'a' }, /^content: give content or path, not both/],
        ['upload_media', { content: 'aGVsbG8=', filename: 'a.txt', tags: 'red' }, /tags: expected an array of tags/],
        [
          'upload_media',
          { path: '/no/such/file.png' },
          mode === 'stdio'
            ? /^file: cannot read \/no\/such\/file\.png: no such file/
            : /^path: only when the MCP server runs over stdio/,
        ],
        ['list_media', { limit: 101 }, /limit: at most 100 assets per page/],
        ['list_media', { type: 'picture' }, /type: expected "image", "video", "audio", "document" or "other"/],
        ['list_media', { colour: 'red' }, /colour: unknown argument \(this tool takes search, type, tags, limit, offset\)/],
      ];
      const toolsCovered = new Set(cases.map(([tool]) => tool));
      for (const tool of TOOLS) {
        assert.ok(toolsCovered.has(tool), `bad input is tried on ${tool}`);
      }
      for (const [tool, args, expected] of cases) {
        const message = await refused(session, tool, args);
        assert.match(message, expected, `${tool} ${JSON.stringify(args).slice(0, 120)}`);
        assert.doesNotMatch(message, /\n\s+at |node_modules|SELECT /, 'no stack or SQL');
      }
      assert.deepEqual((await owner.getRecord(record.id)).data, { sku: 'X-1', title: 'Untouched', price: 5 });
      assert.equal((await owner.list(model.id)).total, 1);
      assert.ok((await owner.getModel(model.id)).fields.some((f: any) => f.key === 'title' && f.type === 'text'));
    });
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
