// Media over HTTP (docs/media.md), on a real server with file storage and with S3 storage (a real S3-protocol
// server on 127.0.0.1): uploads typed from their content, the upload limit, serving (ranges, ETags, caching, the
// headers that keep uploads from running script), transforms, private assets, and the admin API's asset queries.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { Admin, bootstrapAdmin } from '../support/client.js';
import { upload } from '../support/assets.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { startServer, type TestServer } from '../support/server.js';

const ASSET = 'id filename mimeType type size width height blurhash sha256 alt tags focalPoint { x y } access url usage';

async function jpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .jpeg()
    .toBuffer();
}

const storages: { name: string; storage: () => Promise<{ url: string; files: () => string[] | null }> }[] = [
  {
    name: 'file storage',
    storage: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'content-service-assets-test-'));
      return { url: `file:${dir}`, files: () => readdirSync(dir, { recursive: true }) as string[] };
    },
  },
];
let s3: S3TestServer | null = null;
storages.push({
  name: 'S3 storage',
  storage: async () => {
    s3 ??= await startS3Server();
    return { url: s3.url(`t${Date.now()}`), files: () => null };
  },
});
after(async () => {
  await s3?.close();
});

for (const target of storages) {
  describe(`assets over HTTP, ${target.name}`, () => {
    let server: TestServer;
    let owner: Admin;
    let files: () => string[] | null;

    before(async () => {
      const storage = await target.storage();
      files = storage.files;
      server = await startServer({ storage: storage.url, maxUploadMb: 1 });
      owner = await bootstrapAdmin(server, { org: 'acme', workspace: 'main', email: 'owner@acme.test' });
    });
    after(async () => {
      await server.stop();
    });

    test('an upload is typed from its content, measured and hashed; the asset is listed and served', async () => {
      const bytes = await jpeg(64, 48);
      const { status, body } = await upload(owner, bytes, '../../etc/red.png', { alt: 'A red square', tags: '["red","test"]' });
      assert.equal(status, 201, JSON.stringify(body));
      const asset = body.asset;
      assert.equal(asset.filename, 'red.png', 'a filename is never a path');
      assert.equal(asset.mimeType, 'image/jpeg', 'the content decides, not the name');
      assert.deepEqual([asset.type, asset.size, asset.width, asset.height], ['image', bytes.length, 64, 48]);
      assert.match(asset.sha256, /^[0-9a-f]{64}$/);
      assert.ok(asset.blurhash.length > 6);
      assert.deepEqual(asset.alt, { en: 'A red square' });
      assert.deepEqual(asset.tags, ['red', 'test']);
      assert.ok(asset.url.startsWith(`${server.url}/assets/${owner.workspaceId}/${asset.id}/`), asset.url);

      const listed = await owner.ok(`{ asset { list(search: "RED") { total items { ${ASSET} } } } }`);
      assert.equal(listed.asset.list.total, 1);
      assert.equal(listed.asset.list.items[0].id, asset.id);

      const served = await fetch(asset.url);
      assert.equal(served.status, 200);
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), bytes);
      assert.equal(served.headers.get('content-type'), 'image/jpeg');
      assert.equal(served.headers.get('etag'), `"${asset.sha256}"`);
      assert.equal(served.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(served.headers.get('content-security-policy'), null);

      const again = await fetch(asset.url, { headers: { 'if-none-match': `"${asset.sha256}"` } });
      assert.equal(again.status, 304);
      const part = await fetch(asset.url, { headers: { range: 'bytes=2-9' } });
      assert.equal(part.status, 206);
      assert.equal(part.headers.get('content-range'), `bytes 2-9/${bytes.length}`);
      assert.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(2, 10));
      const beyond = await fetch(asset.url, { headers: { range: `bytes=${bytes.length + 5}-` } });
      assert.equal(beyond.status, 416);
      const head = await fetch(asset.url, { method: 'HEAD' });
      assert.equal(head.headers.get('content-length'), String(bytes.length));
    });

    test('the same bytes twice are two assets over one stored object', async () => {
      const bytes = await jpeg(20, 20);
      const first = (await upload(owner, bytes, 'a.jpg')).body.asset;
      const second = (await upload(owner, bytes, 'b.jpg')).body.asset;
      assert.notEqual(first.id, second.id);
      assert.equal(first.sha256, second.sha256);
      const stored = files();
      if (stored) assert.equal(stored.filter((name) => name.endsWith(first.sha256)).length, 1);
    });

    test('SVG and unknown files are downloads in a sandbox; an empty file and a broken image are refused', async () => {
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
      const asset = (await upload(owner, svg, 'x.svg')).body.asset;
      assert.equal(asset.mimeType, 'image/svg+xml');
      const served = await fetch(asset.url);
      assert.equal(served.headers.get('content-security-policy'), 'sandbox');
      assert.match(served.headers.get('content-disposition') ?? '', /^attachment/);
      const html = (await upload(owner, Buffer.from('<html><script>alert(1)</script></html>'), 'page.html')).body.asset;
      assert.equal(html.mimeType, 'application/octet-stream');
      assert.equal(html.type, 'other');
      assert.equal((await fetch(html.url)).headers.get('content-security-policy'), 'sandbox');

      const empty = await upload(owner, Buffer.alloc(0), 'empty.bin');
      assert.equal(empty.status, 400);
      assert.match(empty.body.errors[0].message, /^file: /);
      const broken = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]);
      const refused = await upload(owner, broken, 'broken.png');
      assert.equal(refused.status, 400);
      assert.match(refused.body.errors[0].message, /^file: /);
    });

    test('an upload over the limit is 413 and leaves nothing behind', async () => {
      const before = await owner.ok('{ asset { list { total } } }');
      const storedBefore = files()?.length;
      const big = await upload(owner, Buffer.alloc(1024 * 1024 + 10, 1), 'big.bin');
      assert.equal(big.status, 413);
      assert.equal(big.body.errors[0].extensions.code, 'PAYLOAD_TOO_LARGE');
      assert.equal((await owner.ok('{ asset { list { total } } }')).asset.list.total, before.asset.list.total);
      if (storedBefore !== undefined) assert.equal(files()?.length, storedBefore);
    });

    test('transforms: a width, a format by Accept, made once; a bad parameter is named', async () => {
      const asset = (await upload(owner, await jpeg(400, 300), 'wide.jpg')).body.asset;
      const small = await fetch(`${asset.url}?w=100`);
      assert.equal(small.status, 200);
      const meta = await sharp(Buffer.from(await small.arrayBuffer())).metadata();
      assert.deepEqual([meta.width, meta.height, meta.format], [100, 75, 'jpeg']);
      const auto = await fetch(`${asset.url}?w=120&h=120&format=auto`, { headers: { accept: 'image/avif,image/webp,*/*' } });
      assert.equal(auto.headers.get('content-type'), 'image/avif');
      assert.equal(auto.headers.get('vary'), 'Accept');
      const autoMeta = await sharp(Buffer.from(await auto.arrayBuffer())).metadata();
      assert.deepEqual([autoMeta.width, autoMeta.height], [120, 120]);
      const kept = await fetch(`${asset.url}?w=100`);
      assert.equal(kept.headers.get('etag'), small.headers.get('etag'));
      for (const [query, param] of [
        ['w=0', 'w'],
        ['h=5000', 'h'],
        ['fit=stretch', 'fit'],
        ['format=bmp', 'format'],
        ['q=101', 'q'],
        ['zoom=2', 'zoom'],
      ]) {
        const response = await fetch(`${asset.url}?${query}`);
        assert.equal(response.status, 400, query);
        const body = (await response.json()) as { errors: { message: string }[] };
        assert.ok(body.errors[0]!.message.startsWith(`${param}: `), body.errors[0]!.message);
      }
    });

    test('a private asset: 401 without a token, served with one or with a signed URL; altered or expired: 403', async () => {
      const asset = (await upload(owner, await jpeg(10, 10), 'secret.jpg')).body.asset;
      await owner.ok('mutation ($input: UpdateAssetInput!) { asset { update(input: $input) { access } } }', {
        input: { id: asset.id, access: 'private' },
      });
      assert.equal((await fetch(asset.url)).status, 401);
      const withToken = await fetch(asset.url, { headers: { authorization: `Bearer ${owner.token}` } });
      assert.equal(withToken.status, 200);
      assert.match(withToken.headers.get('cache-control') ?? '', /^private/);
      const signed = (await owner.ok('query ($id: ID!) { asset { signedUrl(id: $id, expiresIn: 60) } }', { id: asset.id })).asset
        .signedUrl as string;
      assert.equal((await fetch(signed)).status, 200);
      // Another first character of the signature (1 in 64 signatures starts with 'A' already).
      const altered = signed.replace(/sig=(.)/, (_, first: string) => `sig=${first === 'A' ? 'B' : 'A'}`);
      assert.equal((await fetch(altered)).status, 403);
      const expiry = Number(new URL(signed).searchParams.get('expires'));
      assert.equal((await fetch(signed.replace(`expires=${expiry}`, `expires=${expiry + 1}`))).status, 403);
      const stranger = await bootstrapAdmin(server, { org: 'acme', workspace: 'other', email: 'other@acme.test' });
      const theirs = await fetch(asset.url, { headers: { authorization: `Bearer ${stranger.token}` } });
      assert.equal(theirs.status, 401, "another workspace's token never reads a private asset");
      const elsewhere = asset.url.replace(`/assets/${owner.workspaceId}/`, `/assets/${stranger.workspaceId}/`);
      assert.equal((await fetch(elsewhere, { headers: { authorization: `Bearer ${stranger.token}` } })).status, 404);
      const foreign = await stranger.q('query ($id: ID!) { asset { get(id: $id) { id } } }', { id: asset.id });
      assert.equal(foreign.body.data.asset.get, null);
      const past = await owner.q('query ($id: ID!) { asset { signedUrl(id: $id, expiresIn: 0) } }', { id: asset.id });
      assert.match(past.body.errors[0].message, /^expiresIn: /);
    });

    test('media fields: ids checked and typed, populated on both routes, delete guarded by use', async () => {
      const photo = (await upload(owner, await jpeg(30, 20), 'photo.jpg', { alt: '{"en":"Ball","pl":"Piłka"}' })).body.asset;
      const manual = (
        await upload(owner, Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'), 'manual.pdf')
      ).body.asset;
      assert.equal(manual.type, 'document');
      const model = await owner.createModel({
        slug: `product-${target.name.split(' ')[0]!.toLowerCase()}`,
        name: 'Product',
        deliveryAccess: 'public',
        fields: [
          { key: 'title', label: 'Title', type: 'text', required: true },
          { key: 'photo', label: 'Photo', type: 'media', acceptedTypes: ['image'] },
          { key: 'files', label: 'Files', type: 'media', multiple: true },
        ],
      });
      const create = 'mutation ($input: CreateModelRecordInput!) { record { create(input: $input) { id data } } }';
      const wrongKind = await owner.q(create, { input: { modelId: model.id, data: { title: 'x', photo: manual.id } } });
      assert.equal(wrongKind.body.errors[0].message, 'photo: expected an image');
      const missing = await owner.q(create, { input: { modelId: model.id, data: { title: 'x', photo: 'no-such-asset' } } });
      assert.equal(missing.body.errors[0].message, 'photo: asset not found');
      const record = (
        await owner.ok(create, {
          input: { modelId: model.id, data: { title: 'Ball', photo: photo.id, files: [manual.id, photo.id] } },
        })
      ).record.create;

      const populated = await owner.ok(
        'query ($id: ID!) { record { get(id: $id, populate: ["photo", "files"], locale: "pl") { data } } }',
        { id: record.id },
      );
      const data = populated.record.get.data;
      assert.deepEqual(
        [data.photo.id, data.photo.width, data.photo.height, data.photo.alt, data.photo.mimeType],
        [photo.id, 30, 20, 'Piłka', 'image/jpeg'],
      );
      assert.equal(data.photo.url, photo.url);
      assert.deepEqual(
        data.files.map((file: { id: string }) => file.id),
        [manual.id, photo.id],
      );
      const servedQuery = encodeURIComponent(
        `{ public { model { records(modelSlug: "${model.slug}", populate: ["files"]) { items { data } } } } }`,
      );
      const etag = async () => (await fetch(`${server.deliveryUrl('acme', 'main')}?query=${servedQuery}`)).headers.get('etag');
      const before = await etag();
      await owner.ok('mutation ($input: UpdateAssetInput!) { asset { update(input: $input) { access } } }', {
        input: { id: manual.id, access: 'private' },
      });
      assert.notEqual(await etag(), before, 'a change of a populated asset moves the delivery ETag');
      const delivered = await fetch(server.deliveryUrl('acme', 'main'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `{ public { model { records(modelSlug: "${model.slug}", populate: ["files"]) { items { data } } } } }`,
        }),
      });
      const [item] = ((await delivered.json()) as any).data.public.model.records.items;
      assert.equal(item.data.files[0].url, undefined, 'a private asset populates without url on delivery');
      assert.equal(item.data.files[1].url, photo.url);

      const usage = await owner.ok(`query ($id: ID!) { asset { get(id: $id) { usage } } }`, { id: photo.id });
      assert.equal(usage.asset.get.usage, 1);
      const remove = 'mutation ($id: ID!, $force: Boolean) { asset { delete(id: $id, force: $force) { deleted } } }';
      const guarded = await owner.q(remove, { id: photo.id });
      assert.equal(guarded.body.errors[0].extensions.code, 'CONFLICT');
      assert.match(guarded.body.errors[0].message, new RegExp(`model "${model.slug}"`));
      await owner.ok(remove, { id: photo.id, force: true });
      const after = await owner.ok('query ($id: ID!) { record { get(id: $id) { data } } }', { id: record.id });
      assert.deepEqual(after.record.get.data, { title: 'Ball', files: [manual.id] });
      assert.equal((await fetch(photo.url)).status, 404);
    });
  });
}
