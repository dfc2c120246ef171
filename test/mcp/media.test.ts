// The media tools as an agent uses them, with the SDK's own MCP client over stdio and over Streamable HTTP against a
// real server: upload_media from base64 (and from a path over stdio only), the asset id put into a media field,
// list_media by search, type and tags.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { bootstrapAdmin, uniqueSlug, type Admin } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';
import { connect, ok, refused, type McpSession, type Mode } from './support.js';

let server: TestServer;
let dir: string;
let image: Buffer;

before(async () => {
  server = await startServer();
  dir = mkdtempSync(join(tmpdir(), 'content-service-mcp-media-'));
  image = await sharp({ create: { width: 12, height: 9, channels: 3, background: { r: 250, g: 200, b: 0 } } })
    .png()
    .toBuffer();
});

after(async () => {
  await server?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

for (const mode of ['stdio', 'http'] as Mode[]) {
  describe(`media tools over ${mode}`, () => {
    let owner: Admin;
    let session: McpSession;

    before(async () => {
      owner = await bootstrapAdmin(server, { org: `media-${mode}`, workspace: 'main', role: 'owner' });
      session = await connect(mode, server, owner.credentials);
    });

    after(async () => {
      await session?.close();
    });

    test('upload_media from base64 answers the asset; its id goes into a media field; list_media finds it', async () => {
      const asset = await ok(session, 'upload_media', {
        content: image.toString('base64'),
        filename: 'yellow.png',
        alt: { en: 'A yellow square' },
        tags: ['yellow', mode],
      });
      assert.deepEqual(
        [asset.filename, asset.mimeType, asset.type, asset.width, asset.height, asset.size],
        ['yellow.png', 'image/png', 'image', 12, 9, image.length],
      );
      assert.deepEqual(asset.alt, { en: 'A yellow square' });
      assert.deepEqual(asset.tags, ['yellow', mode]);
      assert.ok(asset.url.startsWith(`${server.url}/assets/`), `${asset.url} is on the server the client reached`);
      const dataUrl = await ok(session, 'upload_media', {
        content: `data:image/png;base64,${image.toString('base64')}`,
        filename: 'again.png',
      });
      assert.equal(dataUrl.sha256, asset.sha256, 'a data: URL is the same bytes');

      const slug = uniqueSlug('poster');
      await ok(session, 'create_model', {
        name: 'Poster',
        slug,
        fields: [
          { key: 'title', type: 'text', required: true },
          { key: 'image', type: 'media', acceptedTypes: ['image'] },
        ],
      });
      const created = await ok(session, 'create_record', { modelSlug: slug, data: { title: 'Sun', image: asset.id } });
      const read = await ok(session, 'get_record', { id: created.created, populate: ['image'], locale: 'en' });
      assert.equal(read.data.image.id, asset.id);
      assert.equal(read.data.image.alt, 'A yellow square');
      assert.match(await refused(session, 'create_record', { modelSlug: slug, data: { title: 'X', image: 'nope' } }), /^image: /);

      const page = await ok(session, 'list_media', { search: 'YELLOW', type: 'image', tags: [mode], limit: 10 });
      assert.equal(page.total, 1);
      assert.equal(page.items[0].id, asset.id);
      assert.equal(page.items[0].usage, 1);
      const all = await ok(session, 'list_media', { limit: 1, offset: 1 });
      assert.equal(all.total, 2);
      assert.equal(all.items.length, 1);
      assert.equal((await ok(session, 'list_media', { type: 'video' })).total, 0);
    });

    test(`upload_media with a path: ${mode === 'stdio' ? 'read from this machine' : 'refused over HTTP'}`, async () => {
      const path = join(dir, `local-${mode}.png`);
      writeFileSync(path, image);
      if (mode === 'stdio') {
        const asset = await ok(session, 'upload_media', { path, tags: ['local'] });
        assert.equal(asset.filename, `local-${mode}.png`);
        assert.equal(asset.size, image.length);
        const named = await ok(session, 'upload_media', { path, filename: 'chosen.png' });
        assert.equal(named.filename, 'chosen.png');
      } else {
        assert.match(await refused(session, 'upload_media', { path }), /^path: only when the MCP server runs over stdio/);
        const { tools } = await session.client.listTools();
        const upload = tools.find((tool) => tool.name === 'upload_media')!;
        assert.doesNotMatch(upload.description!, /a file on this machine/);
      }
    });

    test('a viewer may list but not upload', async () => {
      const viewer = await bootstrapAdmin(server, { org: `media-viewer-${mode}`, workspace: 'main', role: 'viewer' });
      const viewerSession = await connect(mode, server, viewer.credentials);
      try {
        assert.match(
          await refused(viewerSession, 'upload_media', { content: image.toString('base64'), filename: 'x.png' }),
          /^Forbidden: viewer may not upload assets/,
        );
        assert.equal((await ok(viewerSession, 'list_media')).total, 0);
      } finally {
        await viewerSession.close();
      }
    });
  });
}
