// The SDK's media calls against a real server: uploads from bytes, a Blob, a File, a stream and a path (progress,
// alt, tags, names), the asset queries and mutations, refusals as ContentServiceError (413, a viewer, a missing
// name), and the write budget: a 429 is waited out and the upload sent again; a stream, read once, is not.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { ContentClient, ContentServiceError, type WaitInfo } from '../../src/client/index.js';
import { Admin, bootstrapAdmin } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

async function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 10, g: 120, b: 200 } } })
    .png()
    .toBuffer();
}

function clientOf(server: TestServer, admin: Admin, extra: Partial<ConstructorParameters<typeof ContentClient>[0]> = {}) {
  return new ContentClient({ baseUrl: server.url, token: admin.token, workspaceId: admin.workspaceId, ...extra });
}

function streamOf(bytes: Uint8Array, chunk = 1024): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + chunk));
      at += chunk;
    },
  });
}

async function rejects(promise: Promise<unknown>, check: (error: ContentServiceError) => void): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ContentServiceError, String(error));
    check(error);
    return true;
  });
}

describe('SDK: the media library', () => {
  let server: TestServer;
  let owner: Admin;
  let client: ContentClient;
  let dir: string;

  before(async () => {
    server = await startServer({ maxUploadMb: 1 });
    owner = await bootstrapAdmin(server, { org: 'media-sdk', workspace: 'main', role: 'owner' });
    client = clientOf(server, owner);
    dir = mkdtempSync(join(tmpdir(), 'content-service-sdk-assets-'));
  });
  after(async () => {
    await server?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('uploads from bytes, a Blob, a File, a stream and a path: typed from the content, with alt, tags and progress', async () => {
    const bytes = await png(40, 30);
    const progress: { loaded: number; total: number | undefined }[] = [];
    const fromBytes = await client.uploadAsset(bytes, {
      filename: 'blue.png',
      alt: { en: 'A blue square' },
      tags: ['blue', 'test'],
      onProgress: (p) => progress.push(p),
    });
    assert.deepEqual(
      [fromBytes.filename, fromBytes.mimeType, fromBytes.type, fromBytes.size, fromBytes.width, fromBytes.height],
      ['blue.png', 'image/png', 'image', bytes.length, 40, 30],
    );
    assert.deepEqual(fromBytes.alt, { en: 'A blue square' });
    assert.deepEqual(fromBytes.tags, ['blue', 'test']);
    assert.ok(fromBytes.blurhash && fromBytes.url.startsWith(`${server.url}/assets/${owner.workspaceId}/${fromBytes.id}/`));
    assert.ok(progress.length >= 1, 'progress was told');
    assert.deepEqual(progress.at(-1), { loaded: bytes.length, total: bytes.length });

    const fromBlob = await client.uploadAsset(new Blob([new Uint8Array(bytes)]), { filename: 'blob.png', alt: 'Plain text alt' });
    assert.equal(fromBlob.sha256, fromBytes.sha256, 'the same bytes');
    assert.deepEqual(fromBlob.alt, { en: 'Plain text alt' }, 'a text is the default locale');
    const fromFile = await client.uploadAsset(new File([new Uint8Array(bytes)], 'named by the File.png'));
    assert.equal(fromFile.filename, 'named by the File.png');

    const text = new TextEncoder().encode('%PDF-1.4\n'.padEnd(5000, 'x'));
    const streamed = await client.uploadAsset(streamOf(text), { filename: 'Zürich "plan".pdf' });
    assert.equal(streamed.size, text.length);
    assert.equal(streamed.mimeType, 'application/pdf');
    assert.equal(streamed.type, 'document');
    assert.equal(streamed.filename, 'Zürich %22plan%22.pdf', 'quotes escaped as browsers do, UTF-8 kept');
    const sized = await client.uploadAsset(streamOf(text), { filename: 'sized.pdf', size: text.length });
    assert.equal(sized.size, text.length);

    const path = join(dir, 'on-disk.png');
    writeFileSync(path, bytes);
    const fromPath = await client.uploadAsset({ path });
    assert.equal(fromPath.filename, 'on-disk.png');
    assert.equal(fromPath.size, bytes.length);
    const renamed = await client.uploadAsset({ path }, { filename: 'renamed.png' });
    assert.equal(renamed.filename, 'renamed.png');
  });

  test('list, get, update, signed URL and delete; a used asset is CONFLICT until force', async () => {
    const asset = await client.uploadAsset(await png(8, 8), { filename: 'findme-red.png', tags: ['findme'] });
    const found = await client.listAssets({ search: 'FINDME-RED', type: 'image', tags: ['findme'], limit: 5 });
    assert.equal(found.total, 1);
    assert.equal(found.items[0]!.id, asset.id);
    assert.equal((await client.listAssets({ type: 'video' })).total, 0);
    const page = await client.listAssets({ limit: 2, offset: 0, sort: 'createdAt_asc' });
    assert.equal(page.items.length, 2);
    assert.equal(page.hasMore, true);

    assert.equal((await client.getAsset(asset.id))?.filename, 'findme-red.png');
    assert.equal(await client.getAsset('no-such-asset'), null);

    const updated = await client.updateAsset({
      id: asset.id,
      alt: { en: 'Red' },
      focalPoint: { x: 0.25, y: 0.75 },
      access: 'private',
    });
    assert.deepEqual(updated.alt, { en: 'Red' });
    assert.deepEqual(updated.focalPoint, { x: 0.25, y: 0.75 });
    assert.equal(updated.access, 'private');
    assert.equal((await fetch(updated.url)).status, 401);
    const signed = await client.signedAssetUrl(asset.id, 60);
    assert.equal((await fetch(signed)).status, 200);
    await rejects(client.signedAssetUrl(asset.id, 0), (error) => assert.equal(error.code, 'BAD_USER_INPUT'));

    const model = await client.createModel({
      name: 'Gallery',
      slug: 'gallery',
      fields: [
        { key: 'title', type: 'text', required: true },
        { key: 'photos', type: 'media', multiple: true, acceptedTypes: ['image'] },
      ],
    });
    const photos = model.fields.find((field) => field.key === 'photos')!;
    assert.deepEqual([photos.multiple, photos.acceptedTypes], [true, ['image']]);
    const record = await client.createRecord(model.id, { title: 'One', photos: [asset.id] });
    const populated = await client.getRecord(record.id, { populate: ['photos'], locale: 'en' });
    const first = (populated!.data.photos as { id: string; alt: unknown; width: number }[])[0]!;
    assert.deepEqual([first.id, first.alt, first.width], [asset.id, 'Red', 8]);
    assert.equal((await client.getAsset(asset.id))?.usage, 1);

    await rejects(client.deleteAsset(asset.id), (error) => {
      assert.equal(error.code, 'CONFLICT');
      assert.match(error.message, /gallery|photos/);
    });
    assert.deepEqual(await client.deleteAsset(asset.id, { force: true }), { id: asset.id, deleted: true });
    assert.deepEqual((await client.getRecord(record.id))?.data.photos, []);
    assert.equal(await client.getAsset(asset.id), null);
  });

  test('refusals: over the upload limit, an empty file, no name, a viewer, a missing path', async () => {
    await rejects(client.uploadAsset(new Uint8Array(1024 * 1024 + 10), { filename: 'big.bin' }), (error) => {
      assert.equal(error.code, 'PAYLOAD_TOO_LARGE');
      assert.equal(error.status, 413);
    });
    await rejects(client.uploadAsset(new Uint8Array(0), { filename: 'empty.bin' }), (error) => {
      assert.equal(error.code, 'BAD_USER_INPUT');
      assert.equal(error.field, 'file');
    });
    await rejects(client.uploadAsset(new Uint8Array([1, 2, 3])), (error) => assert.equal(error.field, 'filename'));
    await rejects(client.uploadAsset({ path: join(dir, 'missing.png') }), (error) =>
      assert.match(error.message, /^file: cannot read .*missing\.png: no such file/),
    );
    const viewer = await bootstrapAdmin(server, { org: 'media-sdk-viewer', workspace: 'main', role: 'viewer' });
    await rejects(clientOf(server, viewer).uploadAsset(new Uint8Array([1, 2, 3]), { filename: 'x.bin' }), (error) =>
      assert.equal(error.code, 'FORBIDDEN'),
    );
  });
});

describe('SDK: uploads and the write budget', () => {
  const WINDOW_SECONDS = 3;
  let server: TestServer;

  before(async () => {
    server = await startServer({ writeBudget: 2, extraArgs: ['--write-budget-window', String(WINDOW_SECONDS)] });
  });
  after(async () => {
    await server?.dispose();
  });

  test(
    `a 429 is waited out and the upload sent again; a stream is not sent twice (waits up to ${WINDOW_SECONDS} s)`,
    { timeout: 30_000 },
    async () => {
      const admin = await bootstrapAdmin(server, { org: 'media-budget', workspace: 'main', role: 'owner' });
      const waits: WaitInfo[] = [];
      const client = clientOf(server, admin, { onWait: (info) => waits.push(info) });
      const bytes = await png(4, 4);
      await client.uploadAsset(bytes, { filename: 'one.png' });
      await client.uploadAsset(bytes, { filename: 'two.png' });
      await rejects(client.uploadAsset(streamOf(bytes), { filename: 'stream.png' }), (error) => {
        assert.equal(error.code, 'RATE_LIMITED');
        assert.equal(error.status, 429);
      });
      assert.equal(waits.length, 0, 'a stream cannot be sent again: no wait');
      const third = await client.uploadAsset(bytes, { filename: 'three.png' });
      assert.equal(third.filename, 'three.png');
      assert.ok(waits.length >= 1, 'waited for the budget');
      assert.equal(waits[0]!.operation, 'uploadAsset');
      assert.equal((await client.listAssets()).total, 3);
    },
  );
});
