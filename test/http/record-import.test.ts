// record.import: at most 1000 rows, 1-based row errors, failing rows do not stop others, SKU checks, no ids.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Admin, bootstrapAdmin, expectError } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let owner: Admin;

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server);
});

after(async () => {
  await server?.dispose();
});

const SKU_MESSAGE = 'sku: A record with this SKU already exists';

function rows(count: number, make: (i: number) => Record<string, unknown>): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => make(i));
}

describe('record.import', () => {
  test('record.import: imports valid rows and reports importedCount, with an empty errors array', async () => {
    const model = await owner.createProductModel();
    const result = await owner.importRows(model.id, [
      { sku: 'I-1', title: 'One', price: 1 },
      { sku: 'I-2', title: 'Two', price: 149.99 },
      { sku: 'I-3', title: 'Three' },
    ]);
    assert.deepEqual(result, { importedCount: 3, errors: [] });
    const stored = await owner.listAll(model.id);
    assert.deepEqual(
      stored.map((r) => r.data),
      [
        { sku: 'I-1', title: 'One', price: 1 },
        { sku: 'I-2', title: 'Two', price: 149.99 },
        { sku: 'I-3', title: 'Three' },
      ],
    );
  });

  test('record.import: an empty rows array imports nothing and reports no errors', async () => {
    const model = await owner.createSimpleModel();
    assert.deepEqual(await owner.importRows(model.id, []), { importedCount: 0, errors: [] });
    assert.equal(await owner.total(model.id), 0);
  });

  test('record.import: 1000 rows per call are accepted', async () => {
    const model = await owner.createProductModel();
    const result = await owner.importRows(
      model.id,
      rows(1000, (i) => ({ sku: `K-${i}`, title: `Row ${i}`, price: i / 100 })),
    );
    assert.deepEqual(result, { importedCount: 1000, errors: [] });
    assert.equal(await owner.total(model.id), 1000);
  });

  test('record.import: 1001 rows are refused with BAD_USER_INPUT (rows: at most 1000 rows per import, got 1001), nothing written', async () => {
    const model = await owner.createSimpleModel();
    const response = await owner.importRaw(
      model.id,
      rows(1001, (i) => ({ title: `Row ${i}` })),
    );
    const error = expectError(response, 'BAD_USER_INPUT', 400);
    assert.equal(error.message, 'rows: at most 1000 rows per import, got 1001');
    assert.equal(await owner.total(model.id), 0);
  });

  test('record.import: a failing row does not stop the others', async () => {
    const model = await owner.createProductModel();
    const result = await owner.importRows(model.id, [
      { sku: 'F-1', title: 'ok first' },
      { sku: 'F-2' }, // missing title
      { sku: 'F-3', title: 'ok third' },
      { sku: 'F-4', title: 'bad price', price: '149.99' },
      { sku: 'F-5', title: 'ok fifth' },
    ]);
    assert.equal(result.importedCount, 3);
    assert.deepEqual(
      result.errors.map((e) => e.row),
      [2, 4],
    );
    const titles = (await owner.listAll(model.id)).map((r) => r.data.title);
    assert.deepEqual(titles, ['ok first', 'ok third', 'ok fifth']);
  });

  test('record.import: row numbers are 1-based positions in the submitted batch', async () => {
    const model = await owner.createSimpleModel();
    const result = await owner.importRows(model.id, [{ note: 'no title' }, { title: 'ok' }, { title: 'ok' }, { title: 7 }]);
    assert.deepEqual(
      result.errors.map((e) => e.row),
      [1, 4],
    );
    assert.equal(result.importedCount, 2);
  });

  test('record.import: each row is validated like record.create, messages in the form `<field key>: <reason>`', async () => {
    const model = await owner.createProductModel();
    const result = await owner.importRows(model.id, [
      { sku: 'V-1' },
      { sku: 'V-2', title: 'x', price: '149.99' },
      { sku: 'V-3', title: 'x', colour: 'red' },
      { sku: 'V-4', title: 'nul\u0000' },
      { sku: 'V-5', title: null },
      { sku: 'V-6', title: 'fine', price: 149.99 },
    ]);
    assert.equal(result.importedCount, 1);
    assert.equal(result.errors.length, 5);
    const byRow = new Map(result.errors.map((e) => [e.row, e.message]));
    assert.match(byRow.get(1) ?? '', /^title: \S/);
    assert.match(byRow.get(2) ?? '', /^price: \S/);
    assert.equal(byRow.get(3), 'colour: unknown field');
    assert.match(byRow.get(4) ?? '', /^title: \S/);
    assert.match(byRow.get(5) ?? '', /^title: \S/);
    // The same data through record.create gives the same message.
    const single = expectError(await owner.createRecordRaw(model.id, { sku: 'V-1b' }), 'BAD_USER_INPUT');
    assert.equal(single.message, byRow.get(1));
    const stored = await owner.listAll(model.id);
    assert.deepEqual(
      stored.map((r) => r.data),
      [{ sku: 'V-6', title: 'fine', price: 149.99 }],
    );
  });

  test('record.import: a row that is not a JSON object is a row error, the others are imported', async () => {
    const model = await owner.createSimpleModel();
    const result = await owner.importRows(model.id, [{ title: 'a' }, 'just a string', [1, 2], 42, { title: 'b' }]);
    assert.equal(result.importedCount, 2);
    assert.deepEqual(
      result.errors.map((e) => e.row),
      [2, 3, 4],
    );
    for (const error of result.errors) assert.ok(error.message.length > 0);
  });

  test('record.import: a SKU already stored is reported as `sku: A record with this SKU already exists`', async () => {
    const model = await owner.createProductModel();
    await owner.createRecord(model.id, { sku: 'S-1', title: 'stored' });
    const result = await owner.importRows(model.id, [
      { sku: 'S-0', title: 'new' },
      { sku: 'S-1', title: 'duplicate of stored' },
    ]);
    assert.deepEqual(result, { importedCount: 1, errors: [{ row: 2, message: SKU_MESSAGE }] });
    assert.equal(await owner.total(model.id), 2);
  });

  test('record.import: a SKU repeated from an earlier row of the same batch is reported as a row error', async () => {
    const model = await owner.createProductModel();
    const result = await owner.importRows(model.id, [
      { sku: 'R-1', title: 'first' },
      { sku: 'R-2', title: 'other' },
      { sku: 'R-1', title: 'repeat' },
      { sku: 'R-1', title: 'repeat again' },
    ]);
    assert.deepEqual(result, {
      importedCount: 2,
      errors: [
        { row: 3, message: SKU_MESSAGE },
        { row: 4, message: SKU_MESSAGE },
      ],
    });
    const stored = await owner.listAll(model.id);
    assert.deepEqual(
      stored.map((r) => r.data.title),
      ['first', 'other'],
    );
  });

  test('record.import: a SKU whose earlier row failed validation is not a duplicate', async () => {
    const model = await owner.createProductModel();
    const result = await owner.importRows(model.id, [
      { sku: 'E-1' }, // fails: no title, so not stored
      { sku: 'E-1', title: 'stored' },
    ]);
    assert.equal(result.importedCount, 1);
    assert.deepEqual(
      result.errors.map((e) => e.row),
      [1],
    );
    assert.match(result.errors[0]!.message, /^title: /);
  });

  test('record.import: the result carries no ids — the type has only importedCount and errors', async () => {
    const data = await owner.ok('{ __type(name: "ImportModelRecordsResult") { fields { name } } }');
    const names = data.__type.fields.map((f: any) => f.name).sort();
    assert.deepEqual(names, ['errors', 'importedCount']);
    const errorFields = (await owner.ok('{ __type(name: "ImportError") { fields { name } } }')).__type.fields
      .map((f: any) => f.name)
      .sort();
    assert.deepEqual(errorFields, ['message', 'row']);
    // Asking for ids is a GraphQL validation error.
    const model = await owner.createSimpleModel();
    const response = await owner.q(
      'mutation($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount ids } } }',
      { input: { modelId: model.id, rows: [{ title: 'x' }] } },
    );
    // GraphQL over HTTP: a request error (parse, validation, variables) is 200 with errors for application/json.
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.errors[0].extensions?.code, 'BAD_USER_INPUT', response.text);
    assert.equal(response.body.data, undefined);
    assert.equal(await owner.total(model.id), 0);
  });

  test('record.import: importing the same rows twice into a non-product model creates every row again', async () => {
    const model = await owner.createSimpleModel();
    const batch = [{ title: 'a' }, { title: 'b' }, { title: 'c' }];
    assert.deepEqual(await owner.importRows(model.id, batch), { importedCount: 3, errors: [] });
    assert.deepEqual(await owner.importRows(model.id, batch), { importedCount: 3, errors: [] });
    const stored = await owner.listAll(model.id);
    assert.equal(stored.length, 6);
    assert.equal(new Set(stored.map((r) => r.id)).size, 6);
    assert.deepEqual(
      stored.map((r) => r.data.title),
      ['a', 'b', 'c', 'a', 'b', 'c'],
    );
  });

  test('record.import: importing the same rows twice into a product model refuses every repeated SKU row by row', async () => {
    const model = await owner.createProductModel();
    const batch = [
      { sku: 'T-1', title: 'a' },
      { sku: 'T-2', title: 'b' },
    ];
    assert.deepEqual(await owner.importRows(model.id, batch), { importedCount: 2, errors: [] });
    assert.deepEqual(await owner.importRows(model.id, batch), {
      importedCount: 0,
      errors: [
        { row: 1, message: SKU_MESSAGE },
        { row: 2, message: SKU_MESSAGE },
      ],
    });
    assert.equal(await owner.total(model.id), 2);
  });

  test('record.import: rows are stored with price in major units', async () => {
    const model = await owner.createProductModel();
    await owner.importRows(model.id, [{ sku: 'P-1', title: 'Ball', price: 149.99 }]);
    const [record] = await owner.listAll(model.id);
    assert.equal(record?.data.price, 149.99);
  });

  test('record.import: a field set to null in a row is the same as leaving it out', async () => {
    const model = await owner.createSimpleModel();
    const result = await owner.importRows(model.id, [
      { title: 'x', note: null },
      { title: null, note: 'n' },
    ]);
    assert.equal(result.importedCount, 1);
    assert.deepEqual(
      result.errors.map((e) => e.row),
      [2],
    );
    assert.match(result.errors[0]!.message, /^title: /);
    assert.deepEqual(
      (await owner.listAll(model.id)).map((r) => r.data),
      [{ title: 'x' }],
    );
  });

  test('record.import: an unknown modelId is NOT_FOUND, nothing written', async () => {
    const error = expectError(await owner.importRaw(randomUUID(), [{ title: 'x' }]), 'NOT_FOUND');
    assert.equal(error.message, 'modelId: model not found');
  });

  test('record.import: the 5 MB browser CSV limit does not apply — 1000 large rows (about 8 MB) fit in one call', async () => {
    const model = await owner.createSimpleModel();
    const note = 'n'.repeat(8000);
    const result = await owner.importRows(
      model.id,
      rows(1000, (i) => ({ title: `Large ${i}`, note })),
    );
    assert.deepEqual(result, { importedCount: 1000, errors: [] });
    const page = await owner.list(model.id, { limit: 1, offset: 999 });
    assert.equal(page.total, 1000);
    assert.equal(page.items[0]?.data.title, 'Large 999');
    assert.equal(page.items[0]?.data.note.length, 8000);
  });
});
