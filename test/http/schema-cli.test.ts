// content-service schema pull | diff | apply between workspaces of one real server, through the CLI; and the
// dryRun argument of model.create/model.update that apply checks its changes with.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Admin, dataOf, expectError } from '../support/client.js';
import { freePort, runCli } from '../support/server.js';
import { schemaCli } from '../support/schema-cli.js';

const { server, path, workspace, schema, file, pull } = schemaCli('schema');

/** Every model of the workspace as stored (ids and update times included), read over HTTP without a CLI process. */
async function snapshot(admin: Admin): Promise<string> {
  const field = 'key label type required indexed relationTo relationType';
  const list = (
    await admin.ok(
      `{ model { list { id slug name description icon color displayField deliveryAccess drafts updatedAt recordCount
        product { enabled skuField priceField } fields { ${field} fields { ${field} fields { ${field} } } } } } }`,
    )
  ).model.list;
  return JSON.stringify(list);
}

async function modelsBySlug(admin: Admin): Promise<Map<string, any>> {
  const list = (await admin.ok('{ model { list { id slug name updatedAt recordCount } } }')).model.list;
  return new Map(list.map((model: any) => [model.slug, model]));
}

/** Models with every property a schema file holds: icon, colour, description, product, public, indexed, sub-fields. */
async function seedRichModels(admin: Admin): Promise<void> {
  await admin.createModel({
    slug: 'author',
    name: 'Author',
    description: 'Who writes',
    fields: [
      { key: 'name', label: 'Name', type: 'text', required: true, indexed: true },
      { key: 'bio', type: 'translatable' },
    ],
  });
  await admin.createModel({
    slug: 'post',
    name: 'Post',
    displayField: 'title',
    deliveryAccess: 'public',
    fields: [
      { key: 'title', label: 'Title', type: 'text', required: true },
      { key: 'author', type: 'relation', relationTo: 'model:author', indexed: true },
      { key: 'related', type: 'relation', relationTo: 'model:post', relationType: 'hasMany' },
      {
        key: 'meta',
        type: 'object',
        fields: [
          { key: 'words', type: 'number' },
          { key: 'published', type: 'date', indexed: true },
          { key: 'editor', type: 'relation', relationTo: 'model:author' },
        ],
      },
      { key: 'extra', type: 'object' },
      { key: 'featured', type: 'boolean' },
    ],
  });
  await admin.ok(`mutation($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }`, {
    input: {
      slug: 'product',
      name: 'Product',
      icon: '🛒',
      color: '#1e90ff',
      product: { enabled: true, skuField: 'sku', priceField: 'price' },
      fields: [
        { key: 'sku', type: 'text', required: true },
        { key: 'price', type: 'number' },
      ],
    },
  });
}

describe('schema pull, diff, apply', { concurrency: 3 }, () => {
  test('schema: pull is stable JSON; diff shows the changes (exit 2); apply makes another workspace match; a second apply changes nothing', async () => {
    const source = await workspace();
    const target = await workspace();
    await seedRichModels(source);

    const pulled = await pull(source);
    assert.ok(pulled.endsWith('}\n'), 'a final line break');
    assert.equal(await pull(source), pulled, 'the same text every time');
    assert.doesNotMatch(pulled, /"id"|createdAt|updatedAt|recordCount|workspaceId/);
    const document = JSON.parse(pulled);
    assert.deepEqual(Object.keys(document), ['version', 'models']);
    assert.deepEqual(
      document.models.map((model: any) => model.slug),
      ['author', 'post', 'product'],
    );
    const post = document.models[1];
    assert.deepEqual(Object.keys(post), [
      'slug',
      'name',
      'description',
      'icon',
      'color',
      'displayField',
      'deliveryAccess',
      'drafts',
      'product',
      'fields',
    ]);
    assert.equal(post.deliveryAccess, 'public');
    assert.equal(post.drafts, false, 'a model without drafts says so');
    assert.deepEqual(
      post.fields.map((field: any) => field.key),
      ['title', 'author', 'related', 'meta', 'extra', 'featured'],
    );
    assert.deepEqual(post.fields[1], {
      key: 'author',
      label: 'author',
      type: 'relation',
      required: false,
      indexed: true,
      relationTo: 'model:author',
      relationType: 'hasOne',
    });
    assert.equal(post.fields[3].fields[2].relationTo, 'model:author');
    assert.equal(post.fields[4].fields, undefined, 'an object field without sub-fields');
    assert.deepEqual(document.models[2].product, { enabled: true, skuField: 'sku', priceField: 'price' });
    assert.equal(document.models[2].icon, '🛒');
    assert.equal(document.models[2].color, '#1e90ff');

    const path = file(pulled);
    const diff = await schema(target, 'diff', path);
    assert.equal(diff.code, 2, diff.stderr);
    assert.deepEqual(
      diff.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(':')[0]),
      ['+ model author', '+ model post', '+ model product'],
    );

    const applied = await schema(target, 'apply', path);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /Applied: 3 created, 0 updated, 0 deleted/);
    assert.equal(await pull(target), pulled, 'the target now pulls the same file');

    const before = await modelsBySlug(target);
    const again = await schema(target, 'apply', path);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^No changes: the workspace already matches /);
    assert.deepEqual(await modelsBySlug(target), before, 'not one model written again');
    const clean = await schema(target, 'diff', path);
    assert.equal(clean.code, 0, clean.stderr);
    assert.equal(clean.stdout, '');
  });

  test('schema diff: one line per change, what changed named; apply updates to match', async () => {
    const admin = await workspace();
    await seedRichModels(admin);
    const document = JSON.parse(await pull(admin));
    const post = document.models.find((model: any) => model.slug === 'post');
    post.name = 'Article';
    post.fields[0].required = false;
    post.fields[0].indexed = true;
    post.fields.splice(5, 1);
    post.fields.push({ key: 'summary', label: 'summary', type: 'text', required: false, indexed: false });
    post.fields[3].fields[0].type = 'text';
    const path = file(document);
    const diff = await schema(admin, 'diff', path);
    assert.equal(diff.code, 2, diff.stderr);
    assert.deepEqual(diff.stdout.trim().split('\n'), [
      '~ model post: name "Post" → "Article"',
      '~ field post.title: required true → false, indexed false → true',
      '~ field post.meta.words: type "number" → "text"',
      '+ field post.summary: text',
      '- field post.featured: boolean',
    ]);
    const applied = await schema(admin, 'apply', path);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /Applied: 0 created, 1 updated, 0 deleted/);
    assert.equal(JSON.stringify(JSON.parse(await pull(admin))), JSON.stringify(JSON.parse(readFileSync(path, 'utf8'))));
  });

  test('schema apply: relation order, a cycle and a self relation, into an empty workspace', async () => {
    const admin = await workspace();
    const rel = (key: string, slug: string, extra: object = {}) => ({
      key,
      type: 'relation',
      relationTo: `model:${slug}`,
      ...extra,
    });
    const document = {
      version: 1,
      models: [
        // a → b → c → a is a cycle; d points into it; c points at itself, with a required relation to b deep in an object.
        {
          slug: 'a',
          name: 'A',
          displayField: 'next',
          fields: [rel('next', 'b', { required: true }), { key: 'title', type: 'text' }],
        },
        { slug: 'b', name: 'B', fields: [rel('next', 'c', { relationType: 'hasMany', indexed: true })] },
        {
          slug: 'c',
          name: 'C',
          fields: [rel('next', 'a'), rel('parent', 'c'), { key: 'box', type: 'object', fields: [rel('deep', 'b')] }],
        },
        { slug: 'd', name: 'D', fields: [rel('into', 'a')] },
      ],
    };
    const path = file(document);
    const applied = await schema(admin, 'apply', path);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /Applied: 4 created/);
    const created = applied.stderr.split('\n').filter((line) => line.startsWith('created model '));
    const order = created.map((line) => line.split(' ')[2]);
    assert.equal(order.length, 4);
    assert.ok(order.indexOf('a') < order.indexOf('d'), `d after a: ${order}`);
    const pulled = JSON.parse(await pull(admin));
    assert.deepEqual(
      pulled.models.map((model: any) => model.fields.map((field: any) => field.relationTo ?? field.fields?.[0]?.relationTo)),
      [['model:b', undefined], ['model:c'], ['model:a', 'model:c', 'model:b'], ['model:a']],
    );
    assert.equal(pulled.models[0].displayField, 'next');
    const again = await schema(admin, 'apply', path);
    assert.match(again.stdout, /^No changes/);
  });

  test('schema apply: a change stored records would violate is refused as a whole, before anything is changed', async () => {
    const admin = await workspace();
    await seedRichModels(admin);
    const models = await modelsBySlug(admin);
    await admin.createRecord(models.get('post').id, { title: 'Hello' });
    const before = await pull(admin);
    const stored = await snapshot(admin);
    const document = JSON.parse(before);
    const post = document.models.find((model: any) => model.slug === 'post');
    post.fields[0].type = 'number'; // title has a stored value
    const author = document.models.find((model: any) => model.slug === 'author');
    author.name = 'Writer'; // would be fine alone
    document.models.push({ slug: 'tag', name: 'Tag', fields: [{ key: 'label', type: 'text' }] });
    const product = document.models.find((model: any) => model.slug === 'product');
    product.fields.push({ key: 'stock', type: 'number' });
    const path = file(document);

    const refused = await schema(admin, 'apply', path);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /model post: title: cannot change the type or its settings while 1 records have a value/);
    assert.match(refused.stderr, /Nothing was changed/);
    assert.equal(await snapshot(admin), stored, 'no model created, updated or deleted');

    // Required on a field some stored record lacks: refused the same way.
    const required = JSON.parse(before);
    required.models.find((model: any) => model.slug === 'post').fields[5].required = true;
    const second = await schema(admin, 'apply', file(required));
    assert.equal(second.code, 1);
    assert.match(second.stderr, /model post: featured: cannot become required: 1 stored records have no value/);
    assert.equal(await snapshot(admin), stored);
  });

  test("schema: a model's drafts is pulled, diffed and applied; turning it off while a record is not published is refused before anything is changed", async () => {
    const admin = await workspace();
    await seedRichModels(admin);
    const models = await modelsBySlug(admin);
    await admin.createRecord(models.get('author').id, { name: 'Ann' });
    const document = JSON.parse(await pull(admin));
    const author = document.models.find((model: any) => model.slug === 'author');
    author.drafts = true;
    const on = file(document);
    const diff = await schema(admin, 'diff', on);
    assert.equal(diff.code, 2, diff.stderr);
    assert.deepEqual(diff.stdout.trim().split('\n'), ['~ model author: drafts false → true (publishes every record as it is)']);
    const applied = await schema(admin, 'apply', on);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /Applied: 0 created, 1 updated, 0 deleted/);
    assert.equal(JSON.parse(await pull(admin)).models.find((model: any) => model.slug === 'author').drafts, true);
    assert.match((await schema(admin, 'apply', on)).stdout, /^No changes/);
    const statuses = async () =>
      (
        await admin.ok('query($m: ID!) { record { list(modelId: $m) { items { status } } } }', { m: models.get('author').id })
      ).record.list.items.map((item: { status: string }) => item.status);
    assert.deepEqual(await statuses(), ['published'], 'turning drafts on published the record as it was');

    // A draft (never published): turning drafts off is refused, the other change of the file not made either.
    const draft = await admin.createRecord(models.get('author').id, { name: 'Bob' });
    assert.deepEqual(await statuses(), ['published', 'draft']);
    const offDocument = JSON.parse(await pull(admin));
    offDocument.models.find((model: any) => model.slug === 'author').drafts = false;
    offDocument.models.find((model: any) => model.slug === 'product').name = 'Goods';
    const off = file(offDocument);
    const stored = await snapshot(admin);
    const refused = await schema(admin, 'apply', off);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /model author: drafts cannot be turned off while 1 record is not published/);
    assert.match(refused.stderr, /Nothing was changed/);
    assert.equal(await snapshot(admin), stored, 'no model updated');

    // Once everything is published, off applies.
    await admin.ok('mutation($ids: [ID!]!) { record { publish(ids: $ids) { unpublishedTargets } } }', { ids: [draft.id] });
    const done = await schema(admin, 'apply', off);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /Applied: 0 created, 2 updated, 0 deleted/);
    assert.equal(JSON.parse(await pull(admin)).models.find((model: any) => model.slug === 'author').drafts, false);

    // A file without drafts reads as false; a value that is not a boolean is named by its path.
    const bad = JSON.parse(await pull(admin));
    delete bad.models[0].drafts;
    bad.models[1].drafts = 'yes';
    const checked = await schema(admin, 'diff', file(bad));
    assert.equal(checked.code, 1);
    assert.match(checked.stderr, /\$\.models\[1\]\.drafts: must be true or false/);
    assert.doesNotMatch(checked.stderr, /models\[0\]\.drafts/);
  });

  test('schema apply --prune: asks for --yes without a terminal; deletes models not in the file, a cycle among them too; refuses models with records', async () => {
    const admin = await workspace();
    await admin.createModel({ slug: 'keep', name: 'Keep', fields: [{ key: 'title', type: 'text' }] });
    const keepOnly = file(JSON.parse(await pull(admin)));
    await admin.createModel({ slug: 'old-a', name: 'Old A', fields: [{ key: 'title', type: 'text' }] });
    await admin.createModel({
      slug: 'old-b',
      name: 'Old B',
      fields: [{ key: 'a', type: 'relation', relationTo: 'model:old-a' }],
    });
    const oldA = (await modelsBySlug(admin)).get('old-a');
    await admin.ok(`mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id } } }`, {
      input: {
        id: oldA.id,
        fields: [
          { key: 'title', type: 'text' },
          { key: 'b', type: 'relation', relationTo: 'model:old-b' },
        ],
      },
    });

    const withoutPrune = await schema(admin, 'apply', keepOnly);
    assert.equal(withoutPrune.code, 0, withoutPrune.stderr);
    assert.match(withoutPrune.stdout, /^No changes/);
    assert.match(withoutPrune.stderr, /not in .*--prune deletes them\): old-a, old-b/);
    const diff = await schema(admin, 'diff', keepOnly, '--prune');
    assert.equal(diff.code, 2);
    assert.deepEqual(diff.stdout.trim().split('\n'), ['- model old-a', '- model old-b']);

    const unconfirmed = await schema(admin, 'apply', keepOnly, '--prune');
    assert.equal(unconfirmed.code, 2, unconfirmed.stderr);
    assert.match(unconfirmed.stderr, /--prune would delete 2 models \(old-a, old-b\); there is no terminal to ask on: add --yes/);
    assert.equal((await modelsBySlug(admin)).size, 3, 'nothing deleted');

    const oldB = (await modelsBySlug(admin)).get('old-b');
    const record = await admin.createRecord(oldB.id, {});
    const withRecords = await schema(admin, 'apply', keepOnly, '--prune', '--yes');
    assert.equal(withRecords.code, 1, withRecords.stderr);
    assert.match(withRecords.stderr, /model old-b: has 1 records; --prune deletes only models without records/);
    assert.equal((await modelsBySlug(admin)).size, 3, 'nothing deleted');

    assert.equal(dataOf(await admin.deleteRaw(record.id)).record.delete.deleted, true);
    const pruned = await schema(admin, 'apply', keepOnly, '--prune', '--yes');
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.match(pruned.stdout, /Applied: 0 created, 0 updated, 2 deleted/);
    assert.deepEqual([...(await modelsBySlug(admin)).keys()], ['keep']);
  });

  test('schema: a file with mistakes names each by its JSON path, exits 1 and changes nothing', async () => {
    const admin = await workspace();
    await admin.createModel({ slug: 'existing', name: 'Existing', fields: [{ key: 'title', type: 'text' }] });
    const before = await snapshot(admin);
    const path = file({
      models: [
        { slug: 'fine', name: 'Fine', fields: [{ key: 'title', type: 'text' }] },
        { slug: 'also-fine', name: 'Also', fields: [{ key: 'ref', type: 'relation', relationTo: 'model:existing' }] },
        {
          slug: 'Bad Slug',
          name: 'Bad',
          colour: '#fff',
          displayField: 'nope',
          fields: [
            { key: 'title', type: 'strng' },
            { key: 'ref', type: 'relation', relationTo: 'model:missing' },
            { key: 'count', type: 'number', requird: true },
            { key: 'count', type: 'object', indexed: true },
          ],
        },
      ],
    });
    for (const command of ['diff', 'apply']) {
      const result = await schema(admin, command, path);
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stdout, '');
      const lines = result.stderr.split('\n').map((line) => line.trim());
      for (const expected of [
        '$.models[2].colour: unknown property (did you mean "color"?)',
        '$.models[2].slug: must be 1-64 characters',
        '$.models[2].fields[0].type: unknown field type "strng"',
        '$.models[2].fields[1].relationTo: no model "missing" in the file or the workspace',
        '$.models[2].fields[2].requird: unknown property (did you mean "required"?)',
        '$.models[2].fields[3].indexed: only text, number, boolean, date, relation fields can be indexed',
        '$.models[2].fields[3].key: "count" is the key of another field',
        "$.models[2].displayField: must be the key of one of the model's fields",
      ]) {
        assert.ok(
          lines.some((line) => line.startsWith(expected)),
          `${command}: ${expected}\n${result.stderr}`,
        );
      }
      assert.match(result.stderr, /Nothing was changed/);
    }
    assert.equal(await snapshot(admin), before);

    const notJson = await schema(admin, 'apply', file('{ "models": [ '));
    assert.equal(notJson.code, 1);
    assert.match(notJson.stderr, /\$: not valid JSON/);
    // With --prune a relation may not point at a model the file leaves out: it would be deleted.
    const pruneTarget = await schema(
      admin,
      'diff',
      file({ models: [{ slug: 'x', name: 'X', fields: [{ key: 'r', type: 'relation', relationTo: 'model:existing' }] }] }),
      '--prune',
    );
    assert.equal(pruneTarget.code, 1);
    assert.match(pruneTarget.stderr, /\$\.models\[0\]\.fields\[0\]\.relationTo: no model "existing"/);
  });

  test('schema: usage mistakes exit 2 with nothing on stdout; an unreachable server is a clear error (exit 1)', async () => {
    const admin = await workspace();
    const noFile = await schema(admin, 'diff');
    assert.equal(noFile.code, 2);
    assert.equal(noFile.stdout, '');
    const missing = await schema(admin, 'apply', path('does-not-exist.json'));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read .*does-not-exist\.json: no such file or directory/);
    const noToken = await runCli(['schema', 'pull', '--url', server().url], {
      env: { CONTENT_SERVICE_TOKEN: undefined, CONTENT_SERVICE_WORKSPACE_ID: undefined },
    });
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /Missing --token/);
    const closedPort = await freePort();
    const unreachable = await runCli([
      'schema',
      'pull',
      '--url',
      `http://127.0.0.1:${closedPort}`,
      '--token',
      admin.token,
      '--workspace-id',
      admin.workspaceId,
    ]);
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.stderr, /^Error: Could not connect to http:\/\/127\.0\.0\.1:\d+\/graphql \(connection refused\)/);
    assert.equal(unreachable.stdout, '');
  });
});

describe('model.create and model.update with dryRun', () => {
  const UPDATE = `mutation($input: UpdateModelDefinitionInput!, $dryRun: Boolean) { model { update(input: $input, dryRun: $dryRun) { id name fields { key type required } } } }`;
  const CREATE = `mutation($input: CreateModelDefinitionInput!, $dryRun: Boolean) { model { create(input: $input, dryRun: $dryRun) { id slug name } } }`;

  test('model.update dryRun: answers as the update would, stores nothing; refusals are the same', async () => {
    const admin = await workspace();
    const model = await admin.createModel({ slug: 'dry', name: 'Dry', fields: [{ key: 'title', type: 'text' }] });
    await admin.createRecord(model.id, { title: 'x' });
    const answer = dataOf(
      await admin.q(UPDATE, {
        input: {
          id: model.id,
          name: 'Wet',
          fields: [
            { key: 'title', type: 'text' },
            { key: 'n', type: 'number' },
          ],
        },
        dryRun: true,
      }),
    ).model.update;
    assert.equal(answer.name, 'Wet');
    assert.deepEqual(
      answer.fields.map((field: any) => field.key),
      ['title', 'n'],
    );
    const stored = await admin.getModel(model.id);
    assert.equal(stored.name, 'Dry');
    assert.equal(stored.fields.length, 1);
    assert.equal(stored.updatedAt, model.updatedAt);

    for (const dryRun of [true, false]) {
      const refused = await admin.q(UPDATE, { input: { id: model.id, fields: [{ key: 'title', type: 'number' }] }, dryRun });
      assert.equal(
        expectError(refused, 'CONFLICT').message,
        'title: cannot change the type or its settings while 1 records have a value',
      );
    }
    const invalid = await admin.q(UPDATE, { input: { id: model.id, fields: [{ key: 'title', type: 'strng' }] }, dryRun: true });
    assert.equal(invalid.body.errors[0].extensions.code, 'BAD_USER_INPUT');
  });

  test('model.create dryRun: stores nothing; a slug in use is refused', async () => {
    const admin = await workspace();
    const answer = dataOf(
      await admin.q(CREATE, { input: { slug: 'ghost', name: 'Ghost', fields: [{ key: 'title', type: 'text' }] }, dryRun: true }),
    ).model.create;
    assert.equal(answer.slug, 'ghost');
    assert.equal((await modelsBySlug(admin)).size, 0);
    await admin.createModel({ slug: 'taken', name: 'Taken', fields: [{ key: 'title', type: 'text' }] });
    const conflict = await admin.q(CREATE, {
      input: { slug: 'taken', name: 'Again', fields: [{ key: 'title', type: 'text' }] },
      dryRun: true,
    });
    expectError(conflict, 'CONFLICT');
  });
});
