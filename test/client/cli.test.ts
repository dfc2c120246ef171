// The client CLI (import, export, models, publish) as a user runs it, against a real server process.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { Admin, bootstrapAdmin, uniqueSlug } from '../support/client.js';
import { CLI, REPO_ROOT, runCli, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let admin: Admin;
let dir: string;
let env: Record<string, string>;

before(async () => {
  server = await startServer();
  admin = await bootstrapAdmin(server);
  dir = mkdtempSync(join(tmpdir(), 'content-service-client-'));
  env = { CONTENT_SERVICE_URL: server.url, CONTENT_SERVICE_TOKEN: admin.token, CONTENT_SERVICE_WORKSPACE_ID: admin.workspaceId };
});

after(async () => {
  await server?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const CSV_FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'csv');

interface CsvFixture {
  header: string[];
  rows: { line: number; cells: (string | null)[] }[];
}

function cli(args: string[], extraEnv: Record<string, string | undefined> = {}) {
  return runCli(args, { env: { ...env, ...extraEnv }, timeoutMs: 60_000 });
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function productModel(): Promise<any> {
  return admin.createProductModel({
    fields: [
      { key: 'sku', type: 'text', required: true },
      { key: 'title', type: 'text', required: true },
      { key: 'price', type: 'number' },
      { key: 'name', type: 'translatable' },
      { key: 'active', type: 'boolean' },
      { key: 'released', type: 'date' },
    ],
  });
}

describe('import', () => {
  test('a CSV with bad cells: each reported with line and column, not sent; the others land; --errors file; exit 1', async () => {
    const model = await productModel();
    const csv = [
      'sku,title,price,name.en,name.pl,active,released',
      'A-1,Ball,149.99,Ball,Piłka,true,2024-05-01',
      'A-2,Net,abc,Net,,yes,2024-02-30',
      'A-3,"Multi',
      'line",5,,,,',
      'A-4,Cone,3.5,Cone,,maybe,',
      'A-5,,1,,,,',
      '',
      'A-6,Whistle, 4.99 ,Whistle,Gwizdek,no,2024-05-01T12:00:00Z',
    ].join('\n');
    const errors = join(dir, 'errors.csv');
    const result = await cli(['import', file('bad-cells.csv', csv), '--model', model.slug, '--errors', errors]);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /created 3, failed 3/);
    assert.match(result.stdout, /line 3, column 3 \(price\): "abc" is not a number/);
    assert.match(result.stdout, /line 3, column 7 \(released\): "2024-02-30" is not an ISO 8601 date/);
    assert.match(result.stdout, /line 6, column 6 \(active\): "maybe" is not a boolean/);
    assert.match(result.stdout, /line 7: title: /);
    assert.match(result.stdout, /FAILED/);

    const stored = (await admin.listAll(model.id)).map((record) => record.data);
    assert.deepEqual(stored, [
      { sku: 'A-1', title: 'Ball', price: 149.99, name: { en: 'Ball', pl: 'Piłka' }, active: true, released: '2024-05-01' },
      { sku: 'A-3', title: 'Multi\nline', price: 5 },
      {
        sku: 'A-6',
        title: 'Whistle',
        price: 4.99,
        name: { en: 'Whistle', pl: 'Gwizdek' },
        active: false,
        released: '2024-05-01T12:00:00Z',
      },
    ]);

    const written = parse(readFileSync(errors, 'utf8'), { columns: true }) as Record<string, string>[];
    assert.deepEqual(
      written.map((row) => [row._line, row.sku]),
      [
        ['3', 'A-2'],
        ['6', 'A-4'],
        ['7', 'A-5'],
      ],
    );
    assert.match(written[0]!._error!, /price/);

    // The errors file, fixed, imports as it is (columns starting with "_" are ignored).
    const fixed = readFileSync(errors, 'utf8')
      .replace(',abc,', ',12,')
      .replace(',yes,2024-02-30', ',yes,2024-02-28')
      .replace(',maybe,', ',true,')
      .replace('A-5,,', 'A-5,Pump,');
    const again = await cli(['import', file('fixed.csv', fixed), '--model', model.slug]);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.equal(await admin.total(model.id), 6);
  });

  test('JSON Lines and JSON array input; a bad line is reported with its number', async () => {
    const model = await admin.createSimpleModel();
    const jsonl = await cli([
      'import',
      file('rows.jsonl', '{"title":"a"}\n\n{"title":"b","note":"n"}\n{oops\n'),
      '--model',
      model.slug,
    ]);
    assert.equal(jsonl.code, 1);
    assert.match(jsonl.stdout, /created 2, failed 1/);
    assert.match(jsonl.stdout, /line 4: not valid JSON/);
    const json = await cli([
      'import',
      file('rows.json', '[\n  {"title": "c, [x]"},\n  {"title": "d\\"}"},\n  42\n]\n'),
      '--model',
      model.slug,
    ]);
    assert.equal(json.code, 1);
    assert.match(json.stdout, /created 2, failed 1/);
    assert.match(json.stdout, /line 4: a row must be a JSON object/);
    assert.deepEqual(
      (await admin.listAll(model.id)).map((r) => r.data.title),
      ['a', 'b', 'c, [x]', 'd"}'],
    );
  });

  test('the shared CSV fixtures (test/fixtures/csv): `;` and tab detected from the header, BOM, quoted delimiters and line breaks', async () => {
    for (const name of ['semicolon-bom-quoted', 'semicolon', 'tab', 'mixed-line-ends', 'quoted-newlines', 'comma']) {
      const expected = JSON.parse(readFileSync(join(CSV_FIXTURES, `${name}.json`), 'utf8')) as CsvFixture;
      const model = await admin.createSimpleModel({ fields: expected.header.map((key) => ({ key, type: 'text' })) });
      const result = await cli(['import', join(CSV_FIXTURES, `${name}.csv`), '--model', model.slug]);
      assert.equal(result.code, 0, `${name}: ${result.stdout}${result.stderr}`);
      const stored = (await admin.listAll(model.id)).map((record) => record.data);
      const sent = expected.rows.map((row) =>
        Object.fromEntries(row.cells.flatMap((cell, column) => (cell === null ? [] : [[expected.header[column]!, cell]]))),
      );
      assert.deepEqual(stored, sent, name);
    }
  });

  test('usage errors exit 2: missing credentials, unknown model, unknown column', async () => {
    const model = await admin.createSimpleModel();
    const path = file('simple.csv', 'title,colour\nx,red\n');
    const missing = await cli(['import', path, '--model', model.slug], { CONTENT_SERVICE_TOKEN: undefined });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Missing --token \(or CONTENT_SERVICE_TOKEN\)/);
    const unknownModel = await cli(['import', path, '--model', 'nope']);
    assert.equal(unknownModel.code, 2);
    assert.match(unknownModel.stderr, /no model with slug "nope"/);
    const unknownColumn = await cli(['import', path, '--model', model.slug]);
    assert.equal(unknownColumn.code, 2);
    assert.match(unknownColumn.stderr, /line 1, column 2 \(colour\): unknown column/);
    assert.equal(await admin.total(model.id), 0);
  });

  test('--key twice: the second run changes nothing; --dry-run writes nothing', async () => {
    const model = await productModel();
    const rows = Array.from({ length: 120 }, (_, i) => `S-${i},Item ${i},${i}.5,Item ${i},,true,2024-01-01`);
    const path = file('keyed.csv', ['sku,title,price,name.en,name.pl,active,released', ...rows].join('\n'));
    const first = await cli(['import', path, '--model', model.slug, '--key', 'sku']);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.match(first.stdout, /created 120, updated 0, unchanged 0, deleted 0, failed 0/);
    const second = await cli(['import', path, '--model', model.slug, '--key', 'sku']);
    assert.equal(second.code, 0);
    assert.match(second.stdout, /created 0, updated 0, unchanged 120, deleted 0, failed 0/);
    const dry = await cli(['import', path.replace('keyed', 'keyed'), '--model', model.slug, '--key', 'sku', '--dry-run']);
    assert.match(dry.stdout, /Dry run/);
    assert.match(dry.stdout, /would be created 0, would be updated 0, unchanged 120/);
    assert.equal(await admin.total(model.id), 120);
  });

  test('--dry-run names the CSV line of each row the server would refuse: required field, number format, SKU twice in the file', async () => {
    const model = await productModel();
    const path = file(
      'dry.csv',
      [
        'sku,title,price,name.en,name.pl,active,released',
        'D-1,Fine,1.5,,,true,2024-01-01',
        'D-2,,2,,,,',
        'D-3,Bad price,12;5,,,,',
        'D-1,Same SKU,3,,,,',
        'D-4,Fine too,,,,false,',
      ].join('\n'),
    );
    const dry = await cli(['import', path, '--model', model.slug, '--dry-run']);
    assert.equal(dry.code, 1, dry.stdout + dry.stderr);
    assert.match(dry.stdout, /valid 2, failed 3/);
    assert.match(dry.stdout, /line 3: title: is required/);
    assert.match(dry.stdout, /line 4, column 3 \(price\): /);
    assert.match(dry.stdout, /line 5: sku: A record with this SKU already exists \(on line 2 of the file\)/);
    assert.equal(await admin.total(model.id), 0);
    // Loading by the SKU: a SKU twice is a key twice, in the words the load itself uses.
    const keyed = await cli(['import', path, '--model', model.slug, '--key', 'sku', '--dry-run']);
    assert.match(keyed.stdout, /line 5: sku: the key "D-1" is also on line 2; each key may appear once/, keyed.stdout);
    assert.equal(await admin.total(model.id), 0);
  });

  test('a plain import of a file already imported stops before writing and points to --key', async () => {
    const model = await productModel();
    const path = file('again.csv', ['sku,title', ...Array.from({ length: 5 }, (_, i) => `A-${i},Item ${i}`)].join('\n'));
    const first = await cli(['import', path, '--model', model.slug]);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    const again = await cli(['import', path, '--model', model.slug]);
    assert.equal(again.code, 1, again.stdout + again.stderr);
    assert.match(
      again.stderr,
      /5 of the first 5 rows of .*again\.csv are already stored \(sku "A-\d", "A-\d", "A-\d", …\): the file looks imported already.*run it again with --key sku; to insert the rows anyway, add --allow-existing\. Nothing was written\./,
    );
    const anyway = await cli(['import', path, '--model', model.slug, '--allow-existing']);
    assert.equal(anyway.code, 1);
    assert.match(anyway.stdout, /created 0, failed 5/);
    assert.equal(await admin.total(model.id), 5);

    const simple = await admin.createSimpleModel();
    const notes = file('notes.csv', 'title,note\nOne,x\nTwo,y\n');
    assert.equal((await cli(['import', notes, '--model', simple.slug])).code, 0);
    const byTitle = await cli(['import', notes, '--model', simple.slug, '--check-existing', 'title']);
    assert.equal(byTitle.code, 1);
    assert.match(byTitle.stderr, /2 of the first 2 rows .* \(title "One", "Two"\): .*it would store them twice/);
    assert.equal(await admin.total(simple.id), 2);
    const unknownField = await cli(['import', notes, '--model', simple.slug, '--check-existing', 'nope']);
    assert.equal(unknownField.code, 2);
    assert.match(unknownField.stderr, /--check-existing nope: the model ".*" has no field "nope"/);
  });

  test('--key: a key given twice names both CSV lines (the header is line 1)', async () => {
    const model = await productModel();
    const path = file('twice.csv', ['sku,title', 'K-1,First', 'K-2,Second', 'K-1,Again'].join('\n'));
    const result = await cli(['import', path, '--model', model.slug, '--key', 'sku']);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /created 2, updated 0, unchanged 0, deleted 0, failed 1/);
    assert.match(result.stdout, /line 4: sku: the key "K-1" is also on line 2; each key may appear once/);
  });

  test('crash: the CLI killed (SIGKILL) in the middle of an import with --key, run again: every row exactly once', async () => {
    const model = await admin.createSimpleModel({
      fields: [
        { key: 'code', type: 'text', required: true },
        { key: 'title', type: 'text', required: true },
      ],
    });
    const count = 4000;
    const path = file(
      'crash.jsonl',
      Array.from({ length: count }, (_, i) => JSON.stringify({ code: `K-${i}`, title: `Row ${i}` })).join('\n'),
    );
    const args = [CLI, 'import', path, '--model', model.slug, '--key', 'code', '--batch-size', '50'];
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    let atKill = 0;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
      atKill = await admin.total(model.id);
      if (atKill >= 400) break;
      await sleep(5);
    }
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    await sleep(200); // let the server finish the call that was in flight
    const partial = await admin.total(model.id);
    assert.ok(partial > 0 && partial < count, `killed in the middle (stored ${partial} of ${count})`);

    const rerun = await cli(['import', path, '--model', model.slug, '--key', 'code', '--batch-size', '50']);
    assert.equal(rerun.code, 0, rerun.stdout + rerun.stderr);
    assert.match(rerun.stdout, new RegExp(`created ${count - partial}, updated 0, unchanged ${partial}`));
    const codes = (await admin.listAll(model.id)).map((record) => record.data.code as string);
    assert.equal(codes.length, count);
    assert.equal(new Set(codes).size, count, 'no duplicates');
  });

  test('reads the file from stdin with "-" (the import runs in a worker thread with a bounded heap)', async () => {
    const model = await admin.createSimpleModel({ fields: [{ key: 'title', type: 'text', required: true }] });
    const child = spawn(process.execPath, [CLI, 'import', '-', '--format', 'jsonl', '--model', model.slug], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.stdin.end(Array.from({ length: 1500 }, (_, i) => JSON.stringify({ title: `Row ${i}` })).join('\n'));
    assert.equal(await exited, 0, stdout);
    assert.match(stdout, /1500 rows read/);
    assert.equal(await admin.total(model.id), 1500);
  });

  test('SIGINT: stops after the request in flight, reports what landed, exits 1', async () => {
    const model = await admin.createSimpleModel({ fields: [{ key: 'title', type: 'text', required: true }] });
    const path = file(
      'interrupt.jsonl',
      Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ title: `Row ${i}` })).join('\n'),
    );
    const child = spawn(process.execPath, [CLI, 'import', path, '--model', model.slug, '--batch-size', '20'], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    for (const deadline = Date.now() + 30_000; Date.now() < deadline && (await admin.total(model.id)) < 100;) await sleep(5);
    child.kill('SIGINT');
    assert.equal(await exited, 1, output);
    assert.match(output, /Interrupted: stopping after the request in flight/);
    const stored = await admin.total(model.id);
    assert.ok(stored >= 100 && stored < 20_000, `stopped in the middle (stored ${stored})`);
    assert.match(output, /FAILED: not every row landed/);
  });
});

describe('export', () => {
  async function roundTrip(format: 'csv' | 'jsonl') {
    const category = await admin.createSimpleModel();
    const cat = await admin.createRecord(category.id, { title: 'Balls' });
    const fields = [
      { key: 'title', type: 'text', required: true },
      { key: 'count', type: 'number' },
      { key: 'name', type: 'translatable' },
      { key: 'meta', type: 'object' },
      { key: 'active', type: 'boolean' },
      { key: 'released', type: 'date' },
      { key: 'category', type: 'relation', relationTo: `model:${category.slug}` },
      { key: 'related', type: 'relation', relationTo: `model:${category.slug}`, relationType: 'hasMany' },
    ];
    const source = await admin.createSimpleModel({ fields });
    const target = await admin.createSimpleModel({ fields });
    const rows = [
      { title: 'plain' },
      { title: '', count: 0.1 + 0.2, active: false },
      { title: 'comma, "quote"\nnewline', count: -1e21, name: { en: 'Ball', pl: 'Piłka', 'pt-BR': 'Bola' } },
      { title: '  spaced  ', name: { de: 'Ball' }, meta: { a: [1, { b: null }], c: 'x' }, released: '2024-05-01T10:00:00+02:00' },
      { title: 'rel', category: cat.id, related: [cat.id, cat.id], active: true },
      { title: 'rel-empty', related: [] },
    ];
    for (const row of rows) await admin.createRecord(source.id, row);
    const out = join(dir, `export.${format}`);
    const exported = await cli(['export', '--model', source.slug, '--out', out]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stderr, new RegExp(`Exported ${rows.length} records`));
    const imported = await cli(['import', out, '--model', target.slug]);
    assert.equal(imported.code, 0, imported.stdout + imported.stderr);
    const left = (await admin.listAll(source.id)).map((record) => record.data);
    const right = (await admin.listAll(target.id)).map((record) => record.data);
    assert.deepEqual(right, left);
    return readFileSync(out, 'utf8');
  }

  test('CSV export → import round trip gives equal data', async () => {
    const text = await roundTrip('csv');
    assert.equal(text.split('\n')[0], 'title,count,name.de,name.en,name.pl,name.pt-BR,meta,active,released,category,related');
  });

  test('JSON Lines export → import round trip gives equal data; stdout when no --out', async () => {
    await roundTrip('jsonl');
    const model = await admin.createSimpleModel();
    await admin.createRecord(model.id, { title: 'x' });
    const result = await cli(['export', '--model', model.slug]);
    assert.equal(result.code, 0);
    assert.equal(result.stdout, '{"title":"x"}\n');
  });
});

describe('models', () => {
  test('lists the models of the workspace', async () => {
    const model = await admin.createSimpleModel();
    const result = await cli(['models', '--url', server.url, '--token', admin.token, '--workspace-id', admin.workspaceId], {
      CONTENT_SERVICE_URL: undefined,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^SLUG\s+NAME\s+ID\s+RECORDS\s+FIELDS/);
    assert.match(result.stdout, new RegExp(`${model.slug}\\s+Simple\\s+${model.id}\\s+0\\s+title:text! note:text`));
    const denied = await cli(['models'], { CONTENT_SERVICE_TOKEN: 'cs_nope' });
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /Not authorized/);
  });
});

describe('publish', () => {
  /** A model with drafts (its records are drafts until published), with a title and an optional relation. */
  async function draftsModel(target?: string): Promise<{ id: string; slug: string }> {
    const fields: unknown[] = [{ key: 'title', type: 'text', required: true }];
    if (target) fields.push({ key: 'shelf', type: 'relation', relationTo: `model:${target}` });
    const input = { name: 'Drafted', slug: uniqueSlug('drafted'), drafts: true, fields };
    return (
      await admin.ok('mutation($input: CreateModelDefinitionInput!) { model { create(input: $input) { id slug } } }', {
        input,
      })
    ).model.create;
  }

  async function statuses(modelId: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (let offset = 0; ; offset += 100) {
      const page = (
        await admin.ok(
          'query($m: ID!, $o: Int) { record { list(modelId: $m, limit: 100, offset: $o) { hasMore items { status } } } }',
          {
            m: modelId,
            o: offset,
          },
        )
      ).record.list;
      for (const item of page.items) counts[item.status] = (counts[item.status] ?? 0) + 1;
      if (!page.hasMore) return counts;
    }
  }

  const publish = (ids: string[]) =>
    admin.ok('mutation($ids: [ID!]!) { record { publish(ids: $ids) { unpublishedTargets } } }', { ids });

  test('--all-changed publishes every record that is changed or draft, in calls of at most 1000, and says how many; again: none', async () => {
    const model = await draftsModel();
    const rows = Array.from({ length: 1203 }, (_, index) => ({ title: `Row ${index}` }));
    await admin.importRows(model.id, rows.slice(0, 1000));
    await admin.importRows(model.id, rows.slice(1000));
    const firstThree = (await admin.list(model.id, { limit: 3 })).items.map((item) => item.id);
    await publish(firstThree);
    await admin.patchRaw(firstThree[0]!, { title: 'Edited' });
    assert.deepEqual(await statuses(model.id), { changed: 1, published: 2, draft: 1200 });

    const result = await cli(['publish', '--model', model.slug, '--all-changed']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `Published 1201 records of model "${model.slug}"\n`);
    assert.match(result.stderr, /^publish: 1000 of 1201 records published\n/);
    assert.deepEqual(await statuses(model.id), { published: 1203 });
    const published = await admin.ok('query($id: ID!) { record { get(id: $id, published: true) { data } } }', {
      id: firstThree[0],
    });
    assert.deepEqual(published.record.get.data, { title: 'Edited' }, 'the changed record: its working copy is live');

    const again = await cli(['publish', '--model', model.slug, '--all-changed']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, `Published 0 records: every record of model "${model.slug}" is published as it is\n`);
  });

  test('--ids publishes those records, checked to be records of the model first; the targets left unpublished are named', async () => {
    const shelves = await draftsModel();
    const pages = await draftsModel(shelves.slug);
    const shelf = await admin.createRecord(shelves.id, { title: 'Top' });
    const first = await admin.createRecord(pages.id, { title: 'One', shelf: shelf.id });
    const second = await admin.createRecord(pages.id, { title: 'Two' });
    const third = await admin.createRecord(pages.id, { title: 'Three' });

    const json = await cli(['publish', '--model', pages.slug, '--ids', `${first.id}, ,${second.id}`, '--json']);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), {
      model: pages.slug,
      published: 2,
      ids: [first.id, second.id],
      unpublishedTargets: [shelf.id],
    });
    assert.deepEqual(await statuses(pages.id), { published: 2, draft: 1 });

    const text = await cli(['publish', '--model', pages.slug, '--ids', first.id]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^Published 1 record of model "${pages.slug}"\\n`));
    assert.match(text.stdout, new RegExp(`Not published, but pointed at by relations of these records .*: ${shelf.id};`));

    const otherModel = await cli(['publish', '--model', pages.slug, '--ids', `${third.id},${shelf.id}`]);
    assert.equal(otherModel.code, 1);
    assert.match(
      otherModel.stderr,
      new RegExp(`--ids: record "${shelf.id}" is not a record of model "${pages.slug}"; nothing was published`),
    );
    const unknown = await cli(['publish', '--model', pages.slug, '--ids', `${third.id},no-such-record`]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /--ids: no record "no-such-record" in this workspace; nothing was published/);
    assert.deepEqual(await statuses(pages.id), { published: 2, draft: 1 }, 'the third page is still a draft');
    assert.deepEqual(await statuses(shelves.id), { draft: 1 });
  });

  test('usage mistakes exit 2; a model without drafts has nothing to publish; a viewer is refused (exit 1), nothing published', async () => {
    const model = await draftsModel();
    const record = await admin.createRecord(model.id, { title: 'Kept a draft' });
    const mistakes: [string[], RegExp][] = [
      [['publish', '--model', model.slug], /give --all-changed or --ids a,b,c \(one of them\)/],
      [['publish', '--model', model.slug, '--all-changed', '--ids', record.id], /give --all-changed or --ids/],
      [['publish', '--model', model.slug, '--ids', ' , '], /--ids: give at least one record id/],
      [['publish', '--all-changed'], /required option '--model <slug>'/],
      [['publish', '--model', 'no-such-model', '--all-changed'], /model: no model with slug "no-such-model"/],
    ];
    for (const [args, message] of mistakes) {
      const result = await cli(args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '');
    }
    const live = await admin.createSimpleModel();
    await admin.createRecord(live.id, { title: 'live' });
    const none = await cli(['publish', '--model', live.slug, '--all-changed']);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, `Published 0 records: model "${live.slug}" has no drafts (every write is live)\n`);

    const viewer = await server.createToken({ workspaceId: admin.workspaceId, email: 'viewer@publish.test', role: 'viewer' });
    const denied = await cli(['publish', '--model', model.slug, '--all-changed'], { CONTENT_SERVICE_TOKEN: viewer.token });
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /^Error: Forbidden: viewer may not .*; nothing was published\n$/);
    assert.equal(denied.stdout, '');
    assert.deepEqual(await statuses(model.id), { draft: 1 });
  });
});
