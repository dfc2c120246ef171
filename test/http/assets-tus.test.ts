// Resumable uploads over HTTP (docs/media.md, "Resumable uploads (tus)"), with tus-js-client against a real server,
// on file storage and on S3 storage (a real S3-protocol server on 127.0.0.1): an upload in chunks becomes an asset
// at once, an interrupted one resumes from the offset the server reports, the size limit at creation, auth on every
// request, uploads kept to their workspace, termination, and content refused with nothing left behind.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import * as tus from 'tus-js-client';
import { Admin, bootstrapAdmin } from '../support/client.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { startServer, type TestServer } from '../support/server.js';

const CHUNK = 256 * 1024;
const ASSET = 'id filename mimeType type size width height sha256 alt tags';

/** A PNG of noise, a little under 1 MB (the servers' limit is 1 MB): four chunks. */
async function noisePng(): Promise<Buffer> {
  const side = 560;
  return sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function credentials(admin: Admin): Record<string, string> {
  return { authorization: `Bearer ${admin.token}`, 'x-workspace-id': admin.workspaceId };
}

interface Finished {
  url: string;
  assetId: string | undefined;
  /** Each request the client made: its method and, for a PATCH, the Upload-Offset it sent. */
  requests: string[];
}

/** Runs a tus-js-client upload to its end (or its error). */
function tusUpload(admin: Admin, bytes: Buffer, options: Partial<tus.UploadOptions> = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const requests: string[] = [];
    const upload = new tus.Upload(bytes, {
      endpoint: `${admin.server.url}/assets/tus`,
      headers: credentials(admin),
      chunkSize: CHUNK,
      retryDelays: null,
      onBeforeRequest(request) {
        const offset = request.getHeader('Upload-Offset');
        requests.push(offset === undefined ? request.getMethod() : `${request.getMethod()} ${offset}`);
      },
      onSuccess: ({ lastResponse }) => resolve({ url: upload.url!, assetId: lastResponse.getHeader('x-asset-id'), requests }),
      onError: reject,
      ...options,
    });
    upload.start();
  });
}

async function tusFetch(url: string, method: string, headers: Record<string, string>, body?: Buffer) {
  const response = await fetch(url, {
    method,
    headers: { 'tus-resumable': '1.0.0', ...headers },
    body: body === undefined ? undefined : new Uint8Array(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? null : JSON.parse(text) };
}

interface Target {
  url: string;
  /** What is left in the area of unfinished uploads. */
  leftovers: () => Promise<string[]>;
}

let s3: S3TestServer | null = null;
const targets: { name: string; start: () => Promise<Target> }[] = [
  {
    name: 'file storage',
    start: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'content-service-tus-test-'));
      return { url: `file:${dir}`, leftovers: async () => readdirSync(join(dir, '.tus')) };
    },
  },
  {
    name: 'S3 storage',
    start: async () => {
      s3 ??= await startS3Server();
      const prefix = `tus${Date.now()}`;
      const url = s3.url(prefix);
      const endpoint = new URL(url).searchParams.get('endpoint')!;
      const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true });
      const bucket = s3.bucket;
      return {
        url,
        leftovers: async () => {
          const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/.tus/` }));
          return (page.Contents ?? []).map((object) => object.Key!);
        },
      };
    },
  },
];
after(async () => {
  await s3?.close();
});

for (const target of targets) {
  describe(`resumable uploads (tus), ${target.name}`, () => {
    let server: TestServer;
    let owner: Admin;
    let other: Admin;
    let leftovers: () => Promise<string[]>;
    let png: Buffer;

    before(async () => {
      const storage = await target.start();
      leftovers = storage.leftovers;
      server = await startServer({ storage: storage.url, maxUploadMb: 1 });
      owner = await bootstrapAdmin(server, { org: 'acme', workspace: 'main', email: 'owner@acme.test' });
      other = await bootstrapAdmin(server, { org: 'globex', workspace: 'main', email: 'owner@globex.test' });
      png = await noisePng();
      assert.ok(png.length > 3 * CHUNK && png.length < 1024 * 1024, String(png.length));
    });
    after(async () => {
      await server.stop();
    });

    const total = async () => (await owner.ok('{ asset { list { total } } }')).asset.list.total as number;

    test('an upload in chunks becomes an asset at once; the last answer names it', async () => {
      const done = await tusUpload(owner, png, {
        metadata: { filename: 'noise.png', alt: 'Noise', tags: '["tus","noise"]' },
      });
      assert.deepEqual(done.requests, ['POST', 'PATCH 0', `PATCH ${CHUNK}`, `PATCH ${2 * CHUNK}`, `PATCH ${3 * CHUNK}`]);
      assert.ok(done.assetId, 'x-asset-id on the last PATCH');
      assert.match(done.url, new RegExp(`^${server.url}/assets/tus/${owner.workspaceId}_[0-9a-f]{32}$`));
      const listed = await owner.ok(`{ asset { list(search: "noise") { items { ${ASSET} } } } }`);
      const [asset] = listed.asset.list.items;
      assert.equal(asset.id, done.assetId);
      assert.deepEqual(
        [asset.filename, asset.mimeType, asset.type, asset.size, asset.width, asset.height, asset.sha256],
        ['noise.png', 'image/png', 'image', png.length, 560, 560, sha256(png)],
      );
      assert.deepEqual([asset.alt, asset.tags], [{ en: 'Noise' }, ['tus', 'noise']]);
      assert.deepEqual(await leftovers(), [], 'the finished upload is removed');
      const gone = await tusFetch(done.url, 'HEAD', credentials(owner));
      assert.equal(gone.status, 404);
    });

    test('an interrupted upload resumes from the offset the server reports', async () => {
      const bytes = await noisePng();
      const started = await new Promise<string>((resolve, reject) => {
        const upload: tus.Upload = new tus.Upload(bytes, {
          endpoint: `${server.url}/assets/tus`,
          headers: credentials(owner),
          chunkSize: CHUNK,
          retryDelays: null,
          onChunkComplete: (_size, accepted) => {
            if (accepted >= CHUNK) upload.abort().then(() => resolve(upload.url!), reject);
          },
          onError: reject,
        });
        upload.start();
      });
      const head = await tusFetch(started, 'HEAD', credentials(owner));
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('upload-offset'), String(CHUNK));
      assert.equal(head.headers.get('upload-length'), String(bytes.length));

      const resumed = await tusUpload(owner, bytes, { endpoint: null, uploadUrl: started });
      assert.deepEqual(resumed.requests.slice(0, 2), ['HEAD', `PATCH ${CHUNK}`], 'no new upload, no byte sent twice');
      assert.equal(resumed.url, started);
      const asset = (await owner.ok('query ($id: ID!) { asset { get(id: $id) { sha256 size } } }', { id: resumed.assetId })).asset
        .get;
      assert.deepEqual([asset.sha256, asset.size], [sha256(bytes), bytes.length]);
      assert.deepEqual(await leftovers(), []);
    });

    test('an upload over the limit is 413 at creation, with the JSON errors body, and nothing stays', async () => {
      const before = await total();
      const big = await tusFetch(`${server.url}/assets/tus`, 'POST', {
        ...credentials(owner),
        'upload-length': String(1024 * 1024 + 1),
      });
      assert.equal(big.status, 413);
      assert.equal(big.body.errors[0].extensions.code, 'PAYLOAD_TOO_LARGE');
      assert.match(big.body.errors[0].message, /^file: larger than the 1 MB upload limit/);
      const client = await tusUpload(owner, Buffer.alloc(1024 * 1024 + 1, 1)).then(
        () => assert.fail('the upload should be refused'),
        (error: tus.DetailedError) => error.originalResponse,
      );
      assert.equal(client?.getStatus(), 413);
      assert.equal(JSON.parse(client!.getBody()).errors[0].extensions.code, 'PAYLOAD_TOO_LARGE');
      assert.equal(await total(), before);
      assert.deepEqual(await leftovers(), []);
    });

    test('every request but the preflight needs a token of the workspace (401 without one)', async () => {
      const preflight = await fetch(`${server.url}/assets/tus`, { method: 'OPTIONS' });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('tus-version'), '1.0.0');
      const anonymous = await tusFetch(`${server.url}/assets/tus`, 'POST', { 'upload-length': '10' });
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.body.errors[0].extensions.code, 'UNAUTHENTICATED');
      const created = await tusFetch(`${server.url}/assets/tus`, 'POST', { ...credentials(owner), 'upload-length': '10' });
      assert.equal(created.status, 201);
      assert.match(created.headers.get('access-control-expose-headers') ?? '', /x-asset-id/);
      assert.equal(created.headers.get('access-control-allow-origin'), null, 'no other site may drive uploads');
      const url = created.headers.get('location')!;
      const patch = await tusFetch(
        url,
        'PATCH',
        { 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
        Buffer.alloc(10, 1),
      );
      assert.equal(patch.status, 401);
      assert.equal(patch.body.errors[0].extensions.code, 'UNAUTHENTICATED');
      assert.equal((await tusFetch(url, 'HEAD', credentials(owner))).headers.get('upload-offset'), '0');
      assert.equal((await tusFetch(url, 'DELETE', credentials(owner))).status, 204);
    });

    test("another workspace's upload is 404 to HEAD and PATCH; tus's own refusals have the JSON body", async () => {
      const created = await tusFetch(`${server.url}/assets/tus`, 'POST', { ...credentials(owner), 'upload-length': '10' });
      const url = created.headers.get('location')!;
      assert.equal((await tusFetch(url, 'HEAD', credentials(other))).status, 404);
      const patch = await tusFetch(
        url,
        'PATCH',
        { ...credentials(other), 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
        Buffer.alloc(10, 1),
      );
      assert.equal(patch.status, 404);
      assert.equal(patch.body.errors[0].extensions.code, 'NOT_FOUND');
      assert.equal((await tusFetch(url, 'DELETE', credentials(other))).status, 404);
      const conflict = await tusFetch(
        url,
        'PATCH',
        { ...credentials(owner), 'upload-offset': '5', 'content-type': 'application/offset+octet-stream' },
        Buffer.alloc(5, 1),
      );
      assert.equal(conflict.status, 409);
      assert.equal(conflict.body.errors[0].extensions.code, 'CONFLICT');
      const noVersion = await fetch(url, { method: 'HEAD', headers: credentials(owner) });
      assert.equal(noVersion.status, 412);
      assert.equal((await tusFetch(url, 'HEAD', credentials(owner))).headers.get('upload-offset'), '0');
      assert.equal((await tusFetch(url, 'DELETE', credentials(owner))).status, 204);
    });

    test('DELETE (termination) removes an unfinished upload', async () => {
      const created = await tusFetch(`${server.url}/assets/tus`, 'POST', {
        ...credentials(owner),
        'upload-length': String(png.length),
      });
      const url = created.headers.get('location')!;
      const patch = await tusFetch(
        url,
        'PATCH',
        { ...credentials(owner), 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
        png.subarray(0, CHUNK),
      );
      assert.equal(patch.status, 204);
      assert.equal(patch.headers.get('upload-offset'), String(CHUNK));
      assert.notDeepEqual(await leftovers(), []);
      const removed = await tusFetch(url, 'DELETE', credentials(owner));
      assert.equal(removed.status, 204);
      assert.equal((await tusFetch(url, 'HEAD', credentials(owner))).status, 404);
      assert.deepEqual(await leftovers(), []);
    });

    test('an empty file or a broken image is 400 naming file, and nothing stays', async () => {
      const before = await total();
      const empty = await tusFetch(`${server.url}/assets/tus`, 'POST', { ...credentials(owner), 'upload-length': '0' });
      assert.equal(empty.status, 400);
      assert.equal(empty.body.errors[0].message, 'file: the file is empty');
      const broken = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]);
      const refused = await tusUpload(owner, broken).then(
        () => assert.fail('the upload should be refused'),
        (error: tus.DetailedError) => error.originalResponse,
      );
      assert.equal(refused?.getStatus(), 400);
      assert.match(JSON.parse(refused!.getBody()).errors[0].message, /^file: /);
      const badTags = await tusFetch(`${server.url}/assets/tus`, 'POST', {
        ...credentials(owner),
        'upload-length': '10',
        'upload-metadata': `tags ${Buffer.from('red').toString('base64')}`,
      });
      assert.equal(badTags.status, 400);
      assert.match(badTags.body.errors[0].message, /^tags: /);
      assert.equal(await total(), before);
      assert.deepEqual(await leftovers(), []);
    });

    test('an unfinished upload says when it expires (Upload-Expires) and is removed once past it', async () => {
      const storage = await target.start();
      const expiring = await startServer({ storage: storage.url, maxUploadMb: 1, uploadExpiryHours: 0.001 }); // 3.6 s
      try {
        const admin = await bootstrapAdmin(expiring, { org: 'acme', workspace: 'main', email: 'owner@acme.test' });
        const headers = credentials(admin);
        const created = await tusFetch(`${expiring.url}/assets/tus`, 'POST', { ...headers, 'upload-length': '1000' });
        assert.equal(created.status, 201);
        const expires = Date.parse(created.headers.get('upload-expires') ?? '');
        assert.ok(Math.abs(expires - (Date.now() + 3_600)) < 3_000, created.headers.get('upload-expires') ?? 'no header');
        const url = created.headers.get('location')!;
        const patch = { ...headers, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' };
        assert.equal((await tusFetch(url, 'PATCH', patch, randomBytes(100))).status, 204);
        assert.notDeepEqual(await storage.leftovers(), []);
        const deadline = Date.now() + 10_000;
        while ((await storage.leftovers()).length > 0) {
          assert.ok(Date.now() < deadline, `still kept: ${(await storage.leftovers()).join(', ')}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.ok([404, 410].includes((await tusFetch(url, 'HEAD', headers)).status));
      } finally {
        await expiring.stop();
      }
    });

    test('the server logged no error and no warning', () => {
      const logged = server.logs();
      assert.doesNotMatch(logged, /"level":(40|50|60)/, logged.slice(-2000));
    });
  });
}
