// Limits that keep one client from stalling the service: record and field size caps on every write, a cap on one
// answer's size, model size caps, and strings no database can store (NUL, lone surrogates) refused by name.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Admin, authHeaders, bootstrapAdmin, dataOf, expectError, expectFieldError, request } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

/** A refusal of part of a model definition: BAD_USER_INPUT, message `fields[…]…: <reason>`. */
function expectDefinitionError(response: Parameters<typeof expectError>[0], pattern: RegExp): void {
  assert.match(expectError(response, 'BAD_USER_INPUT').message, pattern);
}

const MAX_FIELD_BYTES = 4000;
const MAX_RECORD_BYTES = 6000;
const MAX_RESPONSE_BYTES = 100_000;
/** Over the size (16 KiB of JSON text) that marks a model as holding large records. */
const LARGE_TEXT = 'x'.repeat(17_000);

let server: TestServer;
let owner: Admin;
let modelId: string;

before(async () => {
  server = await startServer({
    env: {
      MAX_FIELD_BYTES: String(MAX_FIELD_BYTES),
      MAX_RECORD_BYTES: String(MAX_RECORD_BYTES),
      MAX_RESPONSE_BYTES: String(MAX_RESPONSE_BYTES),
    },
  });
  owner = await bootstrapAdmin(server);
  modelId = (
    await owner.createModel({
      fields: [
        { key: 'title', type: 'text', required: true },
        { key: 'body', type: 'text' },
        { key: 'name', type: 'translatable' },
        { key: 'meta', type: 'object' },
      ],
    })
  ).id;
});

after(async () => {
  await server?.dispose();
});

describe('record size caps', () => {
  test('a field value over MAX_FIELD_BYTES is refused on create, naming the field; nothing is stored', async () => {
    const message = expectFieldError(await owner.createRecordRaw(modelId, { title: 'a', body: 'é'.repeat(2001) }), 'body');
    assert.match(message, /^body: is 4004 bytes as JSON; one field value may be at most 4000 bytes$/);
    assert.equal(await owner.total(modelId), 0);
  });

  test('the size is counted in UTF-8 bytes of JSON, also inside object and translatable fields', async () => {
    expectFieldError(await owner.createRecordRaw(modelId, { title: 'a', meta: { text: 'y'.repeat(4000) } }), 'meta');
    expectFieldError(await owner.createRecordRaw(modelId, { title: 'a', name: { en: 'z'.repeat(3995) } }), 'name');
    dataOf(await owner.createRecordRaw(modelId, { title: 'a', body: 'w'.repeat(3990) }));
  });

  test('a record over MAX_RECORD_BYTES is refused naming its largest field, though each field fits', async () => {
    const message = expectFieldError(
      await owner.createRecordRaw(modelId, { title: 't'.repeat(2500), body: 'b'.repeat(3500) }),
      'body',
    );
    assert.match(message, /over the 6000 bytes one record may hold/);
  });

  test('patch and update that would grow a record past the caps are refused and change nothing', async () => {
    const record = await owner.createRecord(modelId, { title: 't'.repeat(2500) });
    expectFieldError(await owner.patchRaw(record.id, { body: 'b'.repeat(3500) }), 'body');
    expectFieldError(await owner.updateRaw(record.id, { title: 'c', body: 'b'.repeat(4001) }), 'body');
    expectFieldError(await owner.patchRaw(record.id, { meta: { deep: { text: 'd'.repeat(4000) } } }), 'meta');
    assert.deepEqual((await owner.getRecord(record.id)).data, { title: 't'.repeat(2500) });
  });

  test('each import row over a cap is a row error; the other rows are stored', async () => {
    const before = await owner.total(modelId);
    const result = await owner.importRows(modelId, [
      { title: 'ok 1' },
      { title: 'too big', body: 'b'.repeat(4001) },
      { title: 't'.repeat(3000), body: 'b'.repeat(3500) },
      { title: 'ok 2' },
    ]);
    assert.equal(result.importedCount, 2);
    assert.deepEqual(
      result.errors.map((error) => [error.row, error.message.split(':')[0]]),
      [
        [2, 'body'],
        [3, 'body'],
      ],
    );
    assert.equal(await owner.total(modelId), before + 2);
  });
});

describe('the default caps', () => {
  let defaults: TestServer;
  let admin: Admin;
  before(async () => {
    defaults = await startServer();
    admin = await bootstrapAdmin(defaults);
  });
  after(async () => {
    await defaults?.dispose();
  });

  test('a 9.9 MB text value is refused (512 KiB per field, 1 MiB per record)', async () => {
    const model = await admin.createSimpleModel();
    const message = expectFieldError(await admin.createRecordRaw(model.id, { title: 'x'.repeat(9_900_000) }), 'title');
    assert.match(message, /at most 524288 bytes/);
    const split = { title: 'x'.repeat(500_000), note: 'y'.repeat(600_000) };
    assert.match(expectFieldError(await admin.createRecordRaw(model.id, split), 'note'), /at most 524288 bytes/);
    const three = await admin.createModel({ fields: ['a', 'b', 'c'].map((key) => ({ key, type: 'text' })) });
    const large = { a: 'x'.repeat(400_000), b: 'y'.repeat(400_000), c: 'z'.repeat(300_000) };
    assert.match(
      expectFieldError(await admin.createRecordRaw(three.id, large), 'a'),
      /over the 1048576 bytes one record may hold/,
    );
  });
});

describe('response size cap', () => {
  let largeModel: { id: string; slug: string };

  before(async () => {
    largeModel = await owner.createModel({
      fields: [
        { key: 'title', type: 'text', required: true },
        { key: 'part1', type: 'text' },
        { key: 'part2', type: 'text' },
        { key: 'part3', type: 'text' },
        { key: 'part4', type: 'text' },
        { key: 'part5', type: 'text' },
      ],
      deliveryAccess: 'public',
    });
  });

  test('a page whose data is over MAX_RESPONSE_BYTES is refused with how many records fit; smaller pages answer', async () => {
    // Fields of 3,990 bytes: each record is about 20 KB, over the large-record mark, within the caps of this server.
    const server = await startServer({
      env: { MAX_FIELD_BYTES: '4000', MAX_RECORD_BYTES: '30000', MAX_RESPONSE_BYTES: '100000' },
    });
    try {
      const admin = await bootstrapAdmin(server);
      const model = await admin.createModel({
        fields: ['title', 'p1', 'p2', 'p3', 'p4', 'p5'].map((key) => ({ key, type: 'text' })),
        deliveryAccess: 'public',
      });
      const part = 'p'.repeat(3990);
      const rows = Array.from({ length: 8 }, (_, n) => ({ title: `r${n}`, p1: part, p2: part, p3: part, p4: part, p5: part }));
      assert.equal((await admin.importRows(model.id, rows)).importedCount, 8);

      const refused = expectError(await admin.listRaw(model.id, { limit: 8 }), 'PAYLOAD_TOO_LARGE');
      assert.match(refused.message, /^limit: .*100000 bytes.*ask for fewer records \(limit: 4 fit from this offset\)$/);
      assert.equal(refused.extensions?.fitting, 4);

      const fitting = await admin.list(model.id, { limit: 4 });
      assert.equal(fitting.items.length, 4);
      assert.equal(fitting.items[0]!.data.p1, part);

      // Without data the same page is small, and answers.
      const ids = await admin.ok(`query($m: ID!) { record { list(modelId: $m, limit: 8) { total items { id createdAt } } } }`, {
        m: model.id,
      });
      assert.equal(ids.record.list.items.length, 8);

      // The delivery route, anonymous, gets the same refusal.
      const delivery = await request(server.deliveryUrl('acme', 'main'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          query: `{ public { model { records(modelSlug: "${model.slug}", limit: 8) { items { data } } } } }`,
        }),
      });
      assert.match(expectError(delivery, 'PAYLOAD_TOO_LARGE').message, /limit: 4 fit/);

      // Hidden from the delivery route, the model is not there: not even its size shows.
      await admin.ok('mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id } } }', {
        input: { id: model.id, deliveryAccess: 'none' },
      });
      const hidden = await request(server.deliveryUrl('acme', 'main'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          query: `{ public { model { records(modelSlug: "${model.slug}", limit: 8) { items { data } } } } }`,
        }),
      });
      expectError(hidden, 'NOT_FOUND');
    } finally {
      await server.dispose();
    }
  });

  test('any answer over MAX_RESPONSE_BYTES is replaced whole by an error, never sent in part', async () => {
    // Records under the large-record mark (16 KiB), so the page is not measured first: the answer is.
    const model = await owner.createSimpleModel();
    const rows = Array.from({ length: 40 }, (_, n) => ({ title: `r${n}`, note: 'n'.repeat(3900) }));
    assert.equal((await owner.importRows(model.id, rows)).importedCount, 40);
    const response = await owner.listRaw(model.id, { limit: 40 });
    const error = expectError(response, 'PAYLOAD_TOO_LARGE');
    assert.match(
      error.message,
      /^The answer would be \d+ bytes, more than the 100000 one response may carry; ask for fewer records/,
    );
    assert.equal(response.body.data, undefined);
    assert.equal((await owner.list(model.id, { limit: 20 })).items.length, 20);
  });

  test('a model that holds only small records is listed as before', async () => {
    const page = await owner.list(modelId, { limit: 100 });
    assert.ok(page.items.length > 0);
    assert.equal(largeModel.slug.length > 0, true);
  });

  test('a model with one large record is bounded from then on', async () => {
    await owner.createRecord(largeModel.id, { title: 'big', part1: LARGE_TEXT.slice(0, 3990) });
    const page = await owner.list(largeModel.id, { limit: 10 });
    assert.equal(page.items.length, 1);
  });
});

describe('model size caps', () => {
  test('a model with more than 500 fields is refused', async () => {
    const fields = Array.from({ length: 501 }, (_, n) => ({ key: `f${n}`, type: 'text' }));
    const message = expectFieldError(await owner.createModelRaw({ fields }), 'fields');
    assert.match(message, /at most 500 fields/);
    const nested = [
      { key: 'o', type: 'object', fields: Array.from({ length: 500 }, (_, n) => ({ key: `f${n}`, type: 'text' })) },
    ];
    assert.match(
      expectFieldError(await owner.createModelRaw({ fields: nested }), 'fields'),
      /at most 500 fields, sub-fields included; got 501/,
    );
  });

  test('a model of 10,000 fields is refused without storing anything', async () => {
    const fields = Array.from({ length: 10_000 }, (_, n) => ({ key: `f${n}`, type: 'text' }));
    expectFieldError(await owner.createModelRaw({ fields }), 'fields');
  });

  test('names, labels and descriptions have length caps', async () => {
    assert.match(
      expectFieldError(await owner.createModelRaw({ name: 'n'.repeat(201), fields: [{ key: 'a', type: 'text' }] }), 'name'),
      /at most 200/,
    );
    expectDefinitionError(
      await owner.createModelRaw({ fields: [{ key: 'a', label: 'l'.repeat(201), type: 'text' }] }),
      /^fields\[0\]\.label: must be at most 200 characters$/,
    );
    const description = { description: 'd'.repeat(5001), fields: [{ key: 'a', type: 'text' }] } as never;
    assert.match(expectFieldError(await owner.createModelRaw(description), 'description'), /at most 5000/);
  });

  test('object fields nest at most 8 levels', async () => {
    let field: Record<string, unknown> = { key: 'leaf', type: 'text' };
    for (let level = 0; level < 9; level++) field = { key: `o${level}`, type: 'object', fields: [field] };
    expectDefinitionError(
      await owner.createModelRaw({ fields: [field as never] }),
      /^fields(\[0\]\.fields){8}: object fields may nest at most 8 levels deep$/,
    );
  });
});

describe('NUL and lone surrogates are refused by name, on every database alike', () => {
  const NUL = 'a\u0000b';
  const LONE = 'a\uD800b';

  for (const [what, bad] of [
    ['NUL', NUL],
    ['a lone surrogate', LONE],
  ] as const) {
    test(`${what} in record values and keys`, async () => {
      const reason = what === 'NUL' ? /must not contain the NUL character/ : /lone surrogate/;
      assert.match(expectFieldError(await owner.createRecordRaw(modelId, { title: bad }), 'title'), reason);
      assert.match(expectFieldError(await owner.createRecordRaw(modelId, { title: 'a', name: { en: bad } }), 'name'), reason);
      assert.match(expectFieldError(await owner.createRecordRaw(modelId, { title: 'a', meta: { list: [bad] } }), 'meta'), reason);
      expectFieldError(await owner.createRecordRaw(modelId, { title: 'a', meta: { [bad]: 1 } }), 'meta');
      expectError(await owner.createRecordRaw(modelId, { title: 'a', [bad]: 1 }), 'BAD_USER_INPUT');
      const record = await owner.createRecord(modelId, { title: 'fine' });
      assert.match(expectFieldError(await owner.patchRaw(record.id, { title: bad }), 'title'), reason);
      const imported = await owner.importRows(modelId, [{ title: bad }, { title: 'ok' }]);
      assert.equal(imported.importedCount, 1);
      assert.match(imported.errors[0]!.message, reason);
    });

    test(`${what} in ids, slugs and model definitions`, async () => {
      const reason = what === 'NUL' ? /must not contain the NUL character/ : /lone surrogate/;
      assert.match(
        expectFieldError(await owner.q(`query($id: ID!) { record { get(id: $id) { id } } }`, { id: bad }), 'id'),
        reason,
      );
      assert.match(expectFieldError(await owner.listRaw(bad), 'modelId'), reason);
      assert.match(expectFieldError(await owner.createRecordRaw(bad, { title: 'x' }), 'modelId'), reason);
      assert.match(expectFieldError(await owner.patchRaw(bad, { title: 'x' }), 'id'), reason);
      assert.match(expectFieldError(await owner.deleteRaw(bad), 'id'), reason);
      assert.match(
        expectFieldError(await owner.q(`query($id: ID!) { model { get(id: $id) { id } } }`, { id: bad }), 'id'),
        reason,
      );
      assert.match(
        expectFieldError(await owner.createModelRaw({ name: bad, fields: [{ key: 'a', type: 'text' }] }), 'name'),
        reason,
      );
      expectDefinitionError(
        await owner.createModelRaw({ fields: [{ key: 'a', label: bad, type: 'text' }] }),
        /^fields\[0\]\.label: /,
      );
      assert.match(
        expectFieldError(await owner.createModelRaw({ name: 'Fine', slug: bad, fields: [{ key: 'a', type: 'text' }] }), 'slug'),
        /slug/,
      );
      // Inline in the document rather than in variables: the same refusal.
      const inline = await owner.q(`{ record { get(id: "x\\u0000y") { id } } }`);
      assert.match(expectFieldError(inline, 'id'), /NUL/);
    });
  }

  test('a number JSON cannot hold (1e400) inside a free-form object field is refused by path, not stored as null', async () => {
    // JSON.stringify cannot write 1e400: the bodies are written as text.
    const send = (query: string, variables: string) =>
      request(server.adminUrl, {
        method: 'POST',
        headers: { ...authHeaders(owner.credentials), 'content-type': 'application/json', accept: 'application/json' },
        body: `{"query":${JSON.stringify(query)},"variables":${variables}}`,
      });
    const create = 'mutation ($input: CreateModelRecordInput!) { record { create(input: $input) { id data } } }';
    const created = await send(create, `{"input":{"modelId":"${modelId}","data":{"title":"a","meta":{"a":1e400}}}}`);
    assert.equal(expectFieldError(created, 'meta'), 'meta.a: expected a finite number');
    const record = await owner.createRecord(modelId, { title: 'finite' });
    const patch = 'mutation ($input: PatchModelRecordInput!) { record { patch(input: $input) { id data } } }';
    const patched = await send(patch, `{"input":{"id":"${record.id}","data":{"meta":{"b":[1,-1e400]}}}}`);
    assert.equal(expectFieldError(patched, 'meta'), 'meta.b[1]: expected a finite number');
    const importRows =
      'mutation ($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount errors { row message } } } }';
    const imported = await send(
      importRows,
      `{"input":{"modelId":"${modelId}","rows":[{"title":"b","meta":{"c":1e400}},{"title":"c"}]}}`,
    );
    assert.deepEqual(imported.body.data.record.import, {
      importedCount: 1,
      errors: [{ row: 1, message: 'meta.c: expected a finite number' }],
    });
  });

  test('NUL in the organisation or workspace of a delivery URL', async () => {
    for (const [url, field] of [
      [`${server.url}/public/ac%00me/main/graphql`, 'org'],
      [`${server.url}/public/acme/ma%00in/graphql`, 'workspace'],
    ] as const) {
      const response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: '{ public { model { definitions { slug } } } }' }),
      });
      const error = expectError(response, 'BAD_USER_INPUT', 400);
      assert.equal(error.message, `${field}: must not contain the NUL character`);
    }
  });

  test('NUL or a lone surrogate in the sign-in email or password', async () => {
    for (const [credentials, field] of [
      [{ email: 'owner\u0000@acme.test', password: 'long enough' }, 'email'],
      [{ email: 'owner@acme.test', password: 'long \uDC00enough' }, 'password'],
    ] as const) {
      const response = await request(`${server.url}/admin/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(credentials),
      });
      assert.match(expectError(response, 'BAD_USER_INPUT', 400).message, new RegExp(`^${field}: must not contain`));
    }
  });

  test('the server stays healthy and logs no unexpected error', async () => {
    const response = await fetch(`${server.url}/healthz`);
    assert.equal(response.status, 200);
    assert.doesNotMatch(server.logs(), /unexpected error/);
  });
});
