// The two storages behind one interface (src/media/storage.ts), with one suite: a directory (FileStorage) and an
// S3 bucket through the AWS SDK (S3Storage) against a real S3-protocol server on 127.0.0.1 (test/support/s3-server.ts).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { FileStorage } from '../../src/media/file-storage.js';
import { openStorage } from '../../src/media/open-storage.js';
import { parseS3Url } from '../../src/media/s3-storage.js';
import { contentKey, variantPrefix, type Storage } from '../../src/media/storage.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';

const scratch = await mkdtemp(join(tmpdir(), 'content-service-storage-'));
let s3: S3TestServer | undefined;
let prefixes = 0;

after(async () => {
  await s3?.close();
  await rm(scratch, { recursive: true, force: true });
});

async function bytesOf(stream: Readable | null): Promise<Buffer> {
  assert.ok(stream, 'expected a stream');
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function localFile(bytes: Buffer): Promise<string> {
  const path = join(scratch, `local-${randomBytes(6).toString('hex')}`);
  await writeFile(path, bytes);
  return path;
}

const SHA = 'a'.repeat(64);
const OTHER_SHA = 'b'.repeat(64);

interface Target {
  name: string;
  open(): Promise<Storage>;
}

const targets: Target[] = [
  { name: 'file storage', open: async () => new FileStorage(await mkdtemp(join(scratch, 'dir-'))) },
  {
    name: 'S3 storage',
    async open() {
      s3 ??= await startS3Server();
      return openStorage(s3.url(`run/${++prefixes}`));
    },
  },
];

for (const target of targets) {
  describe(`storage contract on ${target.name}`, () => {
    let storage: Storage;
    before(async () => {
      storage = await target.open();
    });
    after(() => storage.close());

    test('putBytes, head and read give back the bytes; a missing key is null', async () => {
      const key = contentKey('ws1', SHA);
      await storage.putBytes(key, Buffer.from('hello, storage'), 'text/plain');
      assert.deepEqual(await storage.head(key), { size: 14 });
      assert.equal((await bytesOf(await storage.read(key))).toString(), 'hello, storage');
      assert.equal(await storage.head('ws1/missing'), null);
      assert.equal(await storage.read('ws1/missing'), null);
      assert.equal(await storage.head('ws1'), null, 'a folder is not an object');
    });

    test('a range read gives the bytes of the range, both ends included', async () => {
      const key = 'ws-range/abc';
      await storage.putBytes(key, Buffer.from('0123456789'), 'application/octet-stream');
      assert.equal((await bytesOf(await storage.read(key, { start: 1, end: 3 }))).toString(), '123');
      assert.equal((await bytesOf(await storage.read(key, { start: 0, end: 1 }))).toString(), '01');
      // s3rver 3.7 reads `bytes=0-0` as the whole object (`end || Infinity`); S3 itself answers the one byte.
      if (target.name === 'file storage')
        assert.equal((await bytesOf(await storage.read(key, { start: 0, end: 0 }))).toString(), '0');
      assert.equal((await bytesOf(await storage.read(key, { start: 7, end: 9 }))).toString(), '789');
      assert.equal((await bytesOf(await storage.read(key, { start: 7, end: 100 }))).toString(), '789', 'an end past the end');
      assert.equal((await bytesOf(await storage.read(key, { start: 10, end: 12 }))).length, 0, 'a start past the end');
      assert.equal(await storage.read('ws-range/missing', { start: 1, end: 3 }), null);
      await assert.rejects(storage.read(key, { start: 3, end: 1 }), RangeError);
    });

    test('putFile streams a local file (a few MB) and leaves it where it was', async () => {
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      const path = await localFile(bytes);
      const key = contentKey('ws-file', SHA);
      await storage.putFile(key, path, 'application/octet-stream');
      assert.deepEqual(await storage.head(key), { size: bytes.length });
      assert.ok((await bytesOf(await storage.read(key))).equals(bytes));
      const tail = await bytesOf(await storage.read(key, { start: bytes.length - 5, end: bytes.length - 1 }));
      assert.ok(tail.equals(bytes.subarray(bytes.length - 5)));
      assert.ok((await readdir(scratch)).includes(path.slice(scratch.length + 1)), 'the caller still owns its file');
    });

    test('putFile and putBytes leave an object that is there already as it is', async () => {
      const key = contentKey('ws-twice', SHA);
      await storage.putFile(key, await localFile(Buffer.from('first')), 'text/plain');
      await storage.putFile(key, await localFile(Buffer.from('second, longer')), 'text/plain');
      assert.equal((await bytesOf(await storage.read(key))).toString(), 'first');
      await storage.putBytes(key, Buffer.from('third'), 'text/plain');
      assert.equal((await bytesOf(await storage.read(key))).toString(), 'first');
      assert.deepEqual(await storage.head(key), { size: 5 });
    });

    test('delete removes one object; deleting a missing one is nothing', async () => {
      const key = contentKey('ws-delete', SHA);
      const kept = contentKey('ws-delete', OTHER_SHA);
      await storage.putBytes(key, Buffer.from('gone'), 'text/plain');
      await storage.putBytes(kept, Buffer.from('kept'), 'text/plain');
      await storage.delete(key);
      assert.equal(await storage.head(key), null);
      assert.equal(await storage.read(key), null);
      assert.deepEqual(await storage.head(kept), { size: 4 });
      await storage.delete(key);
      await storage.delete('ws-never/there');
    });

    test('deletePrefix removes a variant folder and nothing beside it', async () => {
      const folder = variantPrefix('ws-variants', SHA);
      const otherFolder = variantPrefix('ws-variants', OTHER_SHA);
      const content = contentKey('ws-variants', SHA);
      for (const key of [`${folder}w100.webp`, `${folder}w200.avif`, `${otherFolder}w100.webp`, content])
        await storage.putBytes(key, Buffer.from(key), 'image/webp');
      await storage.deletePrefix(folder);
      assert.equal(await storage.head(`${folder}w100.webp`), null);
      assert.equal(await storage.head(`${folder}w200.avif`), null);
      assert.ok(await storage.head(`${otherFolder}w100.webp`));
      assert.ok(await storage.head(content));
      await storage.deletePrefix(folder); // again: nothing there
      await storage.deletePrefix(variantPrefix('ws-none', SHA));
      // A prefix that is not a folder: every key that starts with it.
      await storage.deletePrefix(`${otherFolder}w1`);
      assert.equal(await storage.head(`${otherFolder}w100.webp`), null);
      assert.ok(await storage.head(content));
    });

    test('keys the service could not have made are refused', async () => {
      for (const key of ['../escape', 'ws/../../escape', '/absolute', 'ws\\sha', 'ws/nul\0', '']) {
        await assert.rejects(storage.putBytes(key, Buffer.from('x'), 'text/plain'), /invalid key/, JSON.stringify(key));
        await assert.rejects(storage.head(key), /invalid key/);
        await assert.rejects(storage.read(key), /invalid key/);
        await assert.rejects(storage.delete(key), /invalid key/);
      }
      await assert.rejects(storage.deletePrefix('../'), /invalid prefix/);
      await assert.rejects(storage.deletePrefix(''), /invalid prefix/);
    });
  });
}

describe('file storage on disk', () => {
  test('keys are paths under the directory, written without temporary files left', async () => {
    const dir = await mkdtemp(join(scratch, 'disk-'));
    const storage = new FileStorage(dir);
    assert.equal(storage.description, `file:${dir}`);
    await storage.putFile(`ws/${SHA}`, await localFile(Buffer.from('abc')), 'text/plain');
    await storage.putBytes(`ws/variants/${SHA}/w10.webp`, Buffer.from('v'), 'image/webp');
    assert.deepEqual(await readdir(join(dir, 'ws')), [SHA, 'variants']);
    assert.deepEqual(await readdir(join(dir, 'ws', 'variants', SHA)), ['w10.webp']);
    await storage.deletePrefix(variantPrefix('ws', SHA));
    assert.deepEqual(await readdir(join(dir, 'ws', 'variants')), []);
  });

  test('concurrent puts of one key leave one whole object', async () => {
    const storage = new FileStorage(await mkdtemp(join(scratch, 'race-')));
    const bytes = randomBytes(256 * 1024);
    const paths = await Promise.all([1, 2, 3, 4].map(() => localFile(bytes)));
    await Promise.all(paths.map((path) => storage.putFile(`ws/${SHA}`, path, 'application/octet-stream')));
    assert.ok((await bytesOf(await storage.read(`ws/${SHA}`))).equals(bytes));
    assert.deepEqual(await readdir(join(storage.description.slice('file:'.length), 'ws')), [SHA]);
  });
});

describe('openStorage', () => {
  test('file: takes a relative directory from baseDir, an absolute one as it is', async () => {
    assert.equal((await openStorage('file:./data/assets', '/srv/service')).description, 'file:/srv/service/data/assets');
    assert.equal((await openStorage('file:/var/assets', '/srv')).description, 'file:/var/assets');
    assert.equal((await openStorage('file:///var/assets')).description, 'file:/var/assets');
    assert.equal((await openStorage('file:assets')).description, `file:${join(process.cwd(), 'assets')}`);
  });

  test('an unknown scheme or a bad s3 URL is refused naming STORAGE_URL and the accepted forms', async () => {
    for (const url of ['ftp://host/dir', 'assets', 'file:']) {
      await assert.rejects(openStorage(url), (error: Error) => {
        assert.match(error.message, /STORAGE_URL/);
        assert.match(error.message, /file:<dir>/);
        assert.match(error.message, /s3:\/\/<bucket>/);
        return true;
      });
    }
    for (const url of ['s3://ab/', 's3://bucket-name/p?color=red', 's3://bucket-name/p?forcePathStyle=yes'])
      await assert.rejects(openStorage(url), /STORAGE_URL.*s3:\/\/<bucket>/);
  });

  test('an s3 URL names the bucket, a prefix ending with a slash, and the client options', () => {
    assert.deepEqual(
      parseS3Url('s3://my-bucket/assets/prod?endpoint=http://127.0.0.1:9000&region=eu-west-1&forcePathStyle=true'),
      {
        bucket: 'my-bucket',
        prefix: 'assets/prod/',
        endpoint: 'http://127.0.0.1:9000',
        region: 'eu-west-1',
        forcePathStyle: true,
      },
    );
    assert.deepEqual(parseS3Url('s3://my-bucket'), {
      bucket: 'my-bucket',
      prefix: '',
      endpoint: undefined,
      region: undefined,
      forcePathStyle: false,
    });
  });

  test('two S3 storages under different prefixes of one bucket do not see each other', async () => {
    s3 ??= await startS3Server();
    const one = await openStorage(s3.url('tenant-one'));
    const two = await openStorage(s3.url('tenant-two'));
    try {
      await one.putBytes(`ws/${SHA}`, Buffer.from('one'), 'text/plain');
      assert.equal(await two.head(`ws/${SHA}`), null);
      await two.deletePrefix('ws/');
      assert.deepEqual(await one.head(`ws/${SHA}`), { size: 3 });
      assert.match(one.description, /^s3:\/\/content-service-test\/tenant-one\/ at http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});
