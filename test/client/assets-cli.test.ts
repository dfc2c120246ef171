// `content-service assets upload` and `content-service import --assets-dir` as a user runs them, against a real
// server: ids and URLs printed, a failed file named with its reason (exit 1); media cells of a CSV uploaded once per
// distinct file, a path leaving the directory refused naming its line and column.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { ContentClient } from '../../src/client/index.js';
import { Admin, bootstrapAdmin, uniqueSlug } from '../support/client.js';
import { REPO_ROOT, runCli, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let dir: string;
let red: Buffer;
let blue: Buffer;
let workspaces = 0;

before(async () => {
  server = await startServer();
  dir = mkdtempSync(join(tmpdir(), 'content-service-assets-cli-'));
  const square = (r: number, b: number) =>
    sharp({ create: { width: 6, height: 6, channels: 3, background: { r, g: 0, b } } })
      .png()
      .toBuffer();
  [red, blue] = await Promise.all([square(255, 0), square(0, 255)]);
});

after(async () => {
  await server?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function setup(): Promise<{ admin: Admin; client: ContentClient; env: Record<string, string> }> {
  workspaces += 1;
  const admin = await bootstrapAdmin(server, { org: `assets-cli-${workspaces}`, workspace: 'main', role: 'owner' });
  const client = new ContentClient({ baseUrl: server.url, token: admin.token, workspaceId: admin.workspaceId });
  const env = {
    CONTENT_SERVICE_URL: server.url,
    CONTENT_SERVICE_TOKEN: admin.token,
    CONTENT_SERVICE_WORKSPACE_ID: admin.workspaceId,
  };
  return { admin, client, env };
}

function write(path: string, content: string | Buffer): string {
  writeFileSync(path, content);
  return path;
}

describe('assets upload', () => {
  test('prints each file with its asset id and URL; a missing file is named on stderr and the exit code is 1', async () => {
    const { client, env } = await setup();
    const a = write(join(dir, 'red.png'), red);
    const b = write(join(dir, 'notes.pdf'), '%PDF-1.4\nhello');
    const missing = join(dir, 'missing.png');
    const result = await runCli(['assets', 'upload', a, missing, b, dir, '--tags', 'cli, red', '--alt', 'From the CLI'], { env });
    assert.equal(result.code, 1, result.stderr);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    assert.deepEqual(
      lines.map(([file]) => file),
      [a, b],
    );
    for (const [, id, url] of lines) assert.ok(url!.includes(`/${id}/`), url);
    assert.match(result.stderr, new RegExp(`failed: ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: no such file`));
    assert.match(result.stderr, /failed: .*: not a file/);
    assert.match(result.stderr, /FAILED: 2 of 4 files not uploaded/);
    const listed = await client.listAssets({ sort: 'filename_asc' });
    assert.deepEqual(
      listed.items.map((asset) => [asset.filename, asset.type, asset.tags, asset.alt]),
      [
        ['notes.pdf', 'document', ['cli', 'red'], { en: 'From the CLI' }],
        ['red.png', 'image', ['cli', 'red'], { en: 'From the CLI' }],
      ],
    );
    assert.equal(await (await fetch(lines[0]![2]!)).arrayBuffer().then((bytes) => bytes.byteLength), red.length);
  });

  test('--json prints one asset per line; all uploaded is exit 0; usage mistakes are exit 2', async () => {
    const { env } = await setup();
    const a = write(join(dir, 'blue.png'), blue);
    const result = await runCli(['assets', 'upload', a, '--json', '--alt', '{"en":"Blue","de":"Blau"}'], { env });
    assert.equal(result.code, 0, result.stderr);
    const asset = JSON.parse(result.stdout.trim());
    assert.equal(asset.file, a);
    assert.deepEqual([asset.filename, asset.width, asset.alt], ['blue.png', 6, { en: 'Blue', de: 'Blau' }]);
    assert.match(result.stderr, /Uploaded 1 file /);
    const badAlt = await runCli(['assets', 'upload', a, '--alt', '{"en":'], { env });
    assert.equal(badAlt.code, 2);
    assert.match(badAlt.stderr, /--alt: expected a text, or a JSON object/);
    const noToken = await runCli(['assets', 'upload', a], { env: { ...env, CONTENT_SERVICE_TOKEN: '' } });
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /Missing --token/);
    const none = await runCli(['assets', 'upload'], { env });
    assert.equal(none.code, 2);
  });

  test('a progress bar of the bytes on a terminal', async () => {
    const { env } = await setup();
    const a = write(join(dir, 'tty.png'), red);
    // `script` gives the command a terminal; its output is what the terminal showed.
    const command = `${process.execPath} bin/content-service.js assets upload ${a}`;
    const output = await new Promise<string>((resolveRun) =>
      execFile('script', ['-qec', command, '/dev/null'], { env: { ...process.env, ...env }, cwd: REPO_ROOT }, (_e, stdout) =>
        resolveRun(String(stdout)),
      ),
    );
    assert.match(output, /upload \[.*\] 100% \| .* of .* \|/);
    assert.match(output, new RegExp(`tty\\.png\\t\\S+\\thttp`));
  });
});

describe('import --assets-dir', () => {
  test('media cells name files: each distinct one uploaded once; a path leaving the directory, or missing, fails its row', async () => {
    const { client, env } = await setup();
    const assets = join(dir, `assets-${workspaces}`);
    mkdirSync(join(assets, 'img'), { recursive: true });
    write(join(assets, 'img', 'red.png'), red);
    write(join(assets, 'img', 'blue.png'), blue);
    write(join(dir, 'outside.png'), red);
    symlinkSync(join(dir, 'outside.png'), join(assets, 'link.png'));
    const slug = uniqueSlug('poster');
    const model = await client.createModel({
      name: 'Poster',
      slug,
      fields: [
        { key: 'title', type: 'text', required: true },
        { key: 'photo', type: 'media', acceptedTypes: ['image'] },
        { key: 'gallery', type: 'media', multiple: true },
      ],
    });
    const csv = write(
      join(dir, `posters-${workspaces}.csv`),
      [
        'title,photo,gallery',
        'One,img/red.png,img/red.png|img/blue.png',
        'Two,./img/red.png,"[""img/blue.png""]"',
        'Three,../outside.png,',
        'Four,img/none.png,',
        'Five,link.png,',
        'Six,,',
      ].join('\n') + '\n',
    );
    const dry = await runCli(['import', csv, '--model', slug, '--assets-dir', assets, '--dry-run'], { env });
    assert.equal(dry.code, 1, dry.stderr);
    assert.match(dry.stdout, /files of --assets-dir found: 2/);
    assert.equal((await client.listAssets()).total, 0, 'a dry run uploads nothing');

    const result = await runCli(['import', csv, '--model', slug, '--assets-dir', assets], { env });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /created 3, failed 3/);
    assert.match(result.stdout, /files of --assets-dir uploaded: 2/);
    assert.match(result.stdout, /line 4, column 2 \(photo\): "\.\.\/outside\.png": refused, the path leaves --assets-dir/);
    assert.match(result.stdout, /line 5, column 2 \(photo\): "img\/none\.png": no such file in --assets-dir/);
    assert.match(result.stdout, /line 6, column 2 \(photo\): "link\.png": refused, the path leads out of --assets-dir/);
    const uploaded = await client.listAssets({ sort: 'filename_asc' });
    assert.deepEqual(
      uploaded.items.map((asset) => asset.filename),
      ['blue.png', 'red.png'],
      'once per distinct file',
    );
    const [blueId, redId] = uploaded.items.map((asset) => asset.id);
    const records = (await client.listRecords(model.id, { sort: 'createdAt_asc' })).items.map((record) => record.data);
    assert.deepEqual(records, [
      { title: 'One', photo: redId, gallery: [redId, blueId] },
      { title: 'Two', photo: redId, gallery: [blueId] },
      { title: 'Six' },
    ]);
  });

  test('usage: --assets-dir must be a directory, of CSV input, with a media column', async () => {
    const { client, env } = await setup();
    const slug = uniqueSlug('plain');
    await client.createModel({ name: 'Plain', slug, fields: [{ key: 'title', type: 'text', required: true }] });
    const csv = write(join(dir, `plain-${workspaces}.csv`), 'title\nA\n');
    const jsonl = write(join(dir, `plain-${workspaces}.jsonl`), '{"title":"A"}\n');
    const cases: [string[], RegExp][] = [
      [[csv, '--assets-dir', join(dir, 'no-such-dir')], /--assets-dir .*no-such-dir: no such directory/],
      [[csv, '--assets-dir', csv], /--assets-dir .*: not a directory/],
      [[jsonl, '--assets-dir', dir], /--assets-dir .*: only for CSV input/],
      [[csv, '--assets-dir', dir], /the file has no column of a media field of model/],
    ];
    for (const [args, expected] of cases) {
      const result = await runCli(['import', ...args, '--model', slug], { env });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, expected);
    }
  });
});
