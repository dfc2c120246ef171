// An upload's way in (src/media/ingest.ts): hashing and counting while streaming to a temporary file, the type from
// the content, an image's size and blurhash, and the refusals (empty, too large, undecodable, a pixel bomb), each
// leaving no temporary file behind. Every file is made here, with sharp or by hand.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import { isBlurhashValid } from 'blurhash';
import sharp from 'sharp';
import { detectType, looksLikeSvg } from '../../src/media/detect-type.js';
import { MediaInputError, UploadTooLarge } from '../../src/media/errors.js';
import { discard, discardIngested, ingestStream, type IngestedFile } from '../../src/media/ingest.js';

const scratch = await mkdtemp(join(tmpdir(), 'content-service-ingest-'));
after(() => rm(scratch, { recursive: true, force: true }));

const MB = 1024 * 1024;

async function tempDir(): Promise<string> {
  return mkdtemp(join(scratch, 'temp-'));
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Ingests `bytes` (in chunks of 1000 bytes, as a network would hand them) and checks what every upload shares. */
async function ingest(bytes: Buffer, maxBytes = 10 * MB): Promise<IngestedFile> {
  const dir = await tempDir();
  const chunks = Array.from({ length: Math.ceil(bytes.length / 1000) }, (_, i) => bytes.subarray(i * 1000, (i + 1) * 1000));
  const file = await ingestStream(Readable.from(chunks), { tempDir: dir, maxBytes });
  assert.equal(file.sha256, sha256(bytes));
  assert.equal(file.size, bytes.length);
  assert.ok(file.path.startsWith(dir));
  assert.ok((await readFile(file.path)).equals(bytes), 'the temporary file holds the bytes');
  await discardIngested(file);
  assert.deepEqual(await readdir(dir), []);
  return file;
}

/** Expects ingesting `source` to fail with `check`, leaving the temporary directory empty. */
async function refused(source: Readable, maxBytes: number, check: (error: unknown) => boolean): Promise<void> {
  const dir = await tempDir();
  await assert.rejects(ingestStream(source, { tempDir: dir, maxBytes }), check);
  assert.deepEqual(await readdir(dir), [], 'no temporary file is left');
}

const inputError = (reason: string) => (error: unknown) =>
  error instanceof MediaInputError && error.field === 'file' && error.reason === reason && error.message === `file: ${reason}`;

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A valid PNG header claiming a grey image of `width` x `height`, with a few rows of pixels (a "pixel bomb"). */
function claimedPng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  const rows = deflateSync(Buffer.alloc((width + 1) * 4));
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', header), pngChunk('IDAT', rows), pngChunk('IEND', Buffer.alloc(0))]);
}

const frames = (width: number, height: number) =>
  Promise.all(
    ['#ff0000', '#00ff00', '#0000ff'].map((background) =>
      sharp({ create: { width, height, channels: 4, background } })
        .png()
        .toBuffer(),
    ),
  );

describe('ingesting images', () => {
  test('a JPEG: its hash, size, type, dimensions and a blurhash', async () => {
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
      .composite([{ input: { create: { width: 32, height: 24, channels: 3, background: '#ffcc00' } } }])
      .jpeg()
      .toBuffer();
    const file = await ingest(jpeg);
    assert.equal(file.mimeType, 'image/jpeg');
    assert.equal(file.type, 'image');
    assert.equal(file.width, 64);
    assert.equal(file.height, 48);
    assert.equal(file.animated, false);
    assert.ok(file.blurhash && file.blurhash.length > 0);
    assert.equal(isBlurhashValid(file.blurhash).result, true);
  });

  test('a JPEG turned by its EXIF orientation has the size it is shown at', async () => {
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const file = await ingest(jpeg);
    assert.deepEqual([file.width, file.height], [48, 64]);
  });

  test('a PNG with transparency', async () => {
    const png = await sharp({ create: { width: 10, height: 20, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.5 } } })
      .png()
      .toBuffer();
    const file = await ingest(png);
    assert.deepEqual([file.mimeType, file.type, file.width, file.height, file.animated], ['image/png', 'image', 10, 20, false]);
    assert.ok(file.blurhash);
  });

  test('an animated GIF and an animated WebP: animated, with the size of a frame', async () => {
    const gif = await sharp(await frames(20, 10), { join: { animated: true } })
      .gif()
      .toBuffer();
    const webp = await sharp(await frames(20, 10), { join: { animated: true } })
      .webp()
      .toBuffer();
    for (const [bytes, mimeType] of [
      [gif, 'image/gif'],
      [webp, 'image/webp'],
    ] as const) {
      const file = await ingest(bytes);
      assert.deepEqual([file.mimeType, file.width, file.height, file.animated], [mimeType, 20, 10, true]);
      assert.ok(file.blurhash);
    }
  });

  test('an SVG is told by its content: an image with its stated size and no blurhash', async () => {
    const svg = Buffer.from(
      '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- drawn by hand -->\n' +
        '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n' +
        '<svg xmlns="http://www.w3.org/2000/svg" width="30" height="20"><rect width="30" height="20" fill="red"/></svg>\n',
    );
    const file = await ingest(svg);
    assert.deepEqual(
      [file.mimeType, file.type, file.width, file.height, file.blurhash, file.animated],
      ['image/svg+xml', 'image', 30, 20, null, false],
    );
  });

  test('a file with a PNG (or JPEG, GIF, WebP) signature and garbage after it cannot be decoded', async () => {
    const signatures = [PNG_SIGNATURE, Buffer.from([0xff, 0xd8, 0xff]), Buffer.from('GIF89a'), Buffer.from('RIFF\0\0\0\0WEBP')];
    for (const signature of signatures) {
      const garbage = Buffer.concat([signature, randomBytes(2000)]);
      assert.equal((await detectType(garbage)).type, 'image', 'the signature declares an image');
      await refused(Readable.from([garbage]), MB, inputError('the image cannot be decoded'));
    }
  });

  test('a PNG whose pixels are cut short cannot be decoded', async () => {
    const png = await sharp({
      create: { width: 200, height: 200, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 60 } },
    })
      .png()
      .toBuffer();
    await refused(Readable.from([png.subarray(0, Math.floor(png.length / 2))]), MB, inputError('the image cannot be decoded'));
  });

  test('a pixel bomb (a small PNG claiming 20000 x 20000) is refused from its header, without decoding it', async () => {
    const bomb = claimedPng(20_000, 20_000);
    assert.ok(bomb.length < 10_000, `the bomb is ${bomb.length} bytes`);
    const rssBefore = process.memoryUsage.rss();
    await refused(Readable.from([bomb]), MB, inputError('image too large'));
    // Decoding it would take 400 MB.
    assert.ok(process.memoryUsage.rss() - rssBefore < 100 * MB, 'the pixels were never decoded');
  });

  test('an image just under the limit in one dimension but over it in pixels is refused', async () => {
    await refused(Readable.from([claimedPng(10_001, 10_000)]), MB, inputError('image too large'));
  });
});

describe('ingesting other files', () => {
  test('a PDF is a document', async () => {
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1');
    const file = await ingest(pdf);
    assert.deepEqual(
      [file.mimeType, file.type, file.width, file.height, file.blurhash, file.animated],
      ['application/pdf', 'document', null, null, null, false],
    );
  });

  test('random bytes are application/octet-stream, of type other', async () => {
    const file = await ingest(Buffer.concat([Buffer.from('no format: '), randomBytes(5000)]));
    assert.deepEqual([file.mimeType, file.type, file.width], ['application/octet-stream', 'other', null]);
  });

  test('a file of many chunks, larger than memory would like, is hashed whole with flat memory', async () => {
    const chunk = randomBytes(64 * 1024);
    const count = 1024; // 64 MB
    const expected = createHash('sha256');
    for (let i = 0; i < count; i++) expected.update(chunk);
    const rssBefore = process.memoryUsage.rss();
    const dir = await tempDir();
    const source = Readable.from(
      (function* () {
        for (let i = 0; i < count; i++) yield chunk;
      })(),
    );
    const file = await ingestStream(source, { tempDir: dir, maxBytes: 100 * MB });
    assert.equal(file.size, count * chunk.length);
    assert.equal(file.sha256, expected.digest('hex'));
    assert.equal((await stat(file.path)).size, file.size);
    assert.ok(process.memoryUsage.rss() - rssBefore < 40 * MB, 'the file was not buffered');
    await discard(file);
    await discard(file); // a second time: nothing there, no error
    assert.deepEqual(await readdir(dir), []);
  });
});

describe('refusing uploads', () => {
  test('an empty file is refused naming file', async () => {
    await refused(Readable.from([]), MB, inputError('the file is empty'));
  });

  test('an upload past maxBytes stops the source and leaves nothing', async () => {
    let produced = 0;
    const source = new Readable({
      read() {
        produced += 16 * 1024;
        this.push(Buffer.alloc(16 * 1024, 1)); // endless
      },
    });
    await refused(source, 100_000, (error) => error instanceof UploadTooLarge && error.limitBytes === 100_000);
    assert.equal(source.destroyed, true, 'the source is destroyed');
    assert.ok(produced < 1 * MB, `read ${produced} bytes of an endless source`);
  });

  test('exactly maxBytes is accepted, one byte more is not', async () => {
    const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(991, 0x20)]);
    assert.equal((await ingest(bytes, 1000)).size, 1000);
    await refused(Readable.from([bytes, Buffer.from('x')]), 1000, (error) => error instanceof UploadTooLarge);
  });

  test('a source that fails midway fails the ingest with its error, leaving nothing', async () => {
    const source = Readable.from(
      (async function* () {
        yield Buffer.alloc(5000, 7);
        throw new Error('connection reset');
      })(),
    );
    await refused(source, MB, (error) => error instanceof Error && error.message === 'connection reset');
  });
});

describe('detectType', () => {
  function wav(): Buffer {
    const bytes = Buffer.alloc(44);
    bytes.write('RIFF', 0);
    bytes.writeUInt32LE(36, 4);
    bytes.write('WAVEfmt ', 8);
    bytes.writeUInt32LE(16, 16);
    bytes.writeUInt16LE(1, 20); // PCM
    bytes.writeUInt16LE(1, 22); // mono
    bytes.writeUInt32LE(8000, 24);
    bytes.writeUInt32LE(8000, 28);
    bytes.writeUInt16LE(1, 32);
    bytes.writeUInt16LE(8, 34);
    bytes.write('data', 36);
    return bytes;
  }
  const box = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(8 + body.length);
    head.write(type, 4);
    return Buffer.concat([head, body]);
  };

  test('audio and video from their signatures', async () => {
    const mp3 = Buffer.concat([
      Buffer.from('ID3'),
      Buffer.from([4, 0, 0, 0, 0, 0, 0, 0xff, 0xfb, 0x90, 0x64]),
      Buffer.alloc(400),
    ]);
    const mp4 = Buffer.concat([
      box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2avc1mp41', 'latin1')),
      box('free', Buffer.alloc(8)),
    ]);
    const webm = Buffer.concat([
      Buffer.from('1a45dfa39f4286810142f7810142f2810442f381084282847765626d4287810442858102', 'hex'),
      Buffer.alloc(64),
    ]);
    assert.deepEqual(await detectType(wav()), { mimeType: 'audio/wav', type: 'audio' });
    assert.deepEqual(await detectType(mp3), { mimeType: 'audio/mpeg', type: 'audio' });
    assert.deepEqual(await detectType(mp4), { mimeType: 'video/mp4', type: 'video' });
    assert.deepEqual(await detectType(webm), { mimeType: 'video/webm', type: 'video' });
  });

  test('a known format outside the list is application/octet-stream', async () => {
    const tiff = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
      .tiff()
      .toBuffer();
    assert.deepEqual(await detectType(tiff), { mimeType: 'application/octet-stream', type: 'other' });
    const zip = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(100)]);
    assert.deepEqual((await detectType(zip)).mimeType, 'application/octet-stream');
  });

  test('SVG only when the root element is <svg>', () => {
    const yes = [
      '<svg xmlns="http://www.w3.org/2000/svg"/>',
      '  \n<svg>',
      '<?xml version="1.0"?><!-- a --><!-- b --><svg width="1">',
      '<!DOCTYPE svg [ <!ENTITY x "y"> ]>\n<svg>',
      '<svg:svg xmlns:svg="http://www.w3.org/2000/svg">',
    ];
    const no = ['<html><svg></svg></html>', '<?xml version="1.0"?><note/>', '<svgfoo>', 'text <svg>', '<!-- unclosed <svg>'];
    for (const text of yes) assert.equal(looksLikeSvg(Buffer.from(text)), true, text);
    for (const text of no) assert.equal(looksLikeSvg(Buffer.from(text)), false, text);
  });
});
