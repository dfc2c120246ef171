// Rendering variants with sharp (src/media/render.ts), on images the tests make: sizes by fit, no enlargement, the
// crop around a focal point (checked by the colour of a quadrant), EXIF orientation, letterboxing, output formats by
// their magic bytes, the inputs it takes, the pixel limit, and which types are transformed at all.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { crc32, deflateSync } from 'node:zlib';
import { after, describe, test } from 'node:test';
import sharp from 'sharp';
import { isTransformable, renderVariant } from '../../src/media/render.js';
import type { TransformRequest } from '../../src/media/transform-params.js';
import type { FocalPoint } from '../../src/shared/media.js';

type Rgb = [number, number, number];
const RED: Rgb = [255, 0, 0];
const GREEN: Rgb = [0, 200, 0];
const BLUE: Rgb = [0, 0, 255];
const YELLOW: Rgb = [255, 255, 0];
const WHITE: Rgb = [255, 255, 255];

/** A 400×300 image in four quadrants: red top left, green top right, blue bottom left, yellow bottom right. */
async function quadrants(format: 'jpeg' | 'png' = 'jpeg', orientation?: number): Promise<Buffer> {
  const width = 400;
  const height = 300;
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const colour = y < height / 2 ? (x < width / 2 ? RED : GREEN) : x < width / 2 ? BLUE : YELLOW;
      pixels.set(colour, (y * width + x) * 3);
    }
  }
  let image = sharp(pixels, { raw: { width, height, channels: 3 } });
  if (orientation) image = image.withMetadata({ orientation });
  return format === 'jpeg' ? image.jpeg({ quality: 95 }).toBuffer() : image.png().toBuffer();
}

const jpeg = await quadrants('jpeg');

function request(fields: Partial<TransformRequest>): TransformRequest {
  return { width: null, height: null, fit: 'cover', format: 'original', quality: 80, variesByAccept: false, ...fields };
}

async function render(
  fields: Partial<TransformRequest>,
  focalPoint: FocalPoint | null = null,
  input = jpeg,
  mime = 'image/jpeg',
) {
  return renderVariant(input, request(fields), focalPoint, mime);
}

async function size(bytes: Buffer): Promise<[number, number]> {
  const { width, height } = await sharp(bytes).metadata();
  return [width, height];
}

/** The pixel at (x, y), RGBA. */
async function pixel(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [...data.subarray(at, at + 4)];
}

async function assertColour(bytes: Buffer, x: number, y: number, expected: Rgb, message: string) {
  const [r, g, b] = await pixel(bytes, x, y);
  const near = [r!, g!, b!].every((channel, i) => Math.abs(channel - expected[i]!) <= 40);
  assert.ok(near, `${message}: (${x}, ${y}) is ${[r, g, b].join(',')}, expected about ${expected.join(',')}`);
}

describe('renderVariant', () => {
  test('sizes by fit; a side not given follows the aspect ratio', async () => {
    const cases: [Partial<TransformRequest>, [number, number]][] = [
      [{ width: 200, height: 200, fit: 'cover' }, [200, 200]],
      [{ width: 200, height: 200, fit: 'contain' }, [200, 200]],
      [{ width: 200, height: 200, fit: 'inside' }, [200, 150]],
      [{ width: 100, height: 200, fit: 'inside' }, [100, 75]],
      [{ width: 200 }, [200, 150]],
      [{ height: 150, fit: 'contain' }, [200, 150]],
      [{ format: 'png' }, [400, 300]],
    ];
    for (const [fields, expected] of cases)
      assert.deepEqual(await size((await render(fields)).bytes), expected, JSON.stringify(fields));
  });

  test('never enlarges beyond the original', async () => {
    const cases: [Partial<TransformRequest>, FocalPoint | null, [number, number]][] = [
      [{ width: 800, height: 800, fit: 'inside' }, null, [400, 300]],
      [{ width: 4000 }, null, [400, 300]],
      [{ width: 800, height: 600, fit: 'cover' }, null, [400, 300]],
      [{ width: 800, height: 600, fit: 'cover' }, { x: 0.2, y: 0.8 }, [400, 300]],
      // A box wider than the image: as much of it as the image holds, at the original's scale.
      [{ width: 800, height: 200, fit: 'cover' }, null, [400, 200]],
      [{ width: 800, height: 200, fit: 'cover' }, { x: 0.5, y: 0.9 }, [400, 200]],
    ];
    for (const [fields, focalPoint, expected] of cases) {
      assert.deepEqual(await size((await render(fields, focalPoint)).bytes), expected, JSON.stringify([fields, focalPoint]));
    }
    // contain letterboxes the image at its own size into the box asked for.
    const contained = await render({ width: 800, height: 800, fit: 'contain', format: 'png' });
    assert.deepEqual(await size(contained.bytes), [800, 800]);
    assert.equal((await pixel(contained.bytes, 400, 400 - 150 - 10))[3], 0, 'above the image: letterbox');
    await assertColour(contained.bytes, 400 - 200 + 10, 400 - 150 + 10, RED, 'the image is at its own size, centred');
  });

  test('cover crops around the focal point, clamped to the image', async () => {
    // A 100×300 window of the 400×300 image: the right edge, the left edge, or the centre.
    const right = (await render({ width: 100, height: 300 }, { x: 0.9, y: 0.5 })).bytes;
    assert.deepEqual(await size(right), [100, 300]);
    await assertColour(right, 10, 50, GREEN, 'focal point on the right');
    await assertColour(right, 10, 250, YELLOW, 'focal point on the right');
    const left = (await render({ width: 100, height: 300 }, { x: 0.1, y: 0.5 })).bytes;
    await assertColour(left, 90, 50, RED, 'focal point on the left');
    await assertColour(left, 90, 250, BLUE, 'focal point on the left');
    const farRight = (await render({ width: 100, height: 300 }, { x: 1, y: 0 })).bytes;
    await assertColour(farRight, 5, 50, GREEN, 'at the edge: the window stays inside the image');
    const centre = (await render({ width: 100, height: 300 })).bytes;
    await assertColour(centre, 10, 50, RED, 'no focal point: centred');
    await assertColour(centre, 90, 50, GREEN, 'no focal point: centred');

    const bottom = (await render({ width: 400, height: 100 }, { x: 0.5, y: 0.95 })).bytes;
    await assertColour(bottom, 100, 10, BLUE, 'focal point at the bottom');
    await assertColour(bottom, 300, 90, YELLOW, 'focal point at the bottom');
    const top = (await render({ width: 400, height: 100 }, { x: 0.5, y: 0.05 })).bytes;
    await assertColour(top, 100, 90, RED, 'focal point at the top');
  });

  test('cover scales down to cover the box first, then crops around the focal point', async () => {
    // 100×100 from 400×300: scaled to 133×100, then the right-hand 100 columns.
    const bytes = (await render({ width: 100, height: 100 }, { x: 0.95, y: 0.95 })).bytes;
    assert.deepEqual(await size(bytes), [100, 100]);
    await assertColour(bytes, 90, 20, GREEN, 'top right');
    await assertColour(bytes, 90, 80, YELLOW, 'bottom right');
    // The halves meet at column 66 of 133: column 33 of the window cropped at 33, column 50 of the centred one.
    await assertColour(bytes, 40, 80, YELLOW, 'cropped on the right');
    const centred = (await render({ width: 100, height: 100 })).bytes;
    await assertColour(centred, 40, 80, BLUE, 'centred');
  });

  test('contain and inside ignore the focal point', async () => {
    const focal = await render({ width: 200, height: 200, fit: 'inside' }, { x: 1, y: 1 });
    const plain = await render({ width: 200, height: 200, fit: 'inside' });
    assert.deepEqual(focal.bytes, plain.bytes);
  });

  test('EXIF orientation is applied first, and the focal point is on the image as shown', async () => {
    // Orientation 6: shown turned a quarter clockwise, 300×400, blue top left, red top right, yellow bottom left.
    const turned = await quadrants('jpeg', 6);
    const shown = (await render({ width: 4000 }, null, turned)).bytes;
    assert.deepEqual(await size(shown), [300, 400]);
    assert.equal((await sharp(shown).metadata()).orientation, undefined, 'no orientation left to apply twice');
    await assertColour(shown, 10, 10, BLUE, 'top left as shown');
    await assertColour(shown, 290, 10, RED, 'top right as shown');
    const bottom = (await render({ width: 300, height: 100 }, { x: 0.5, y: 1 }, turned)).bytes;
    assert.deepEqual(await size(bottom), [300, 100]);
    await assertColour(bottom, 50, 50, YELLOW, 'the bottom as shown');
    await assertColour(bottom, 250, 50, GREEN, 'the bottom as shown');
  });

  test('contain letterboxes: transparent for PNG, WebP and AVIF, white for JPEG', async () => {
    for (const format of ['png', 'webp', 'avif'] as const) {
      const { bytes } = await render({ width: 200, height: 200, fit: 'contain', format });
      assert.deepEqual(await size(bytes), [200, 200]);
      assert.equal((await pixel(bytes, 100, 5))[3], 0, `${format}: the bar is transparent`);
      await assertColour(bytes, 50, 60, RED, `${format}: the image between the bars`);
    }
    const { bytes } = await render({ width: 200, height: 200, fit: 'contain', format: 'jpeg' });
    await assertColour(bytes, 100, 5, WHITE, 'jpeg: the bar is white');
  });

  test('a transparent image written as JPEG is flattened on white', async () => {
    const transparent = await sharp({
      create: { width: 50, height: 50, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toBuffer();
    const { bytes, mimeType } = await render({ format: 'jpeg' }, null, transparent, 'image/png');
    assert.equal(mimeType, 'image/jpeg');
    await assertColour(bytes, 25, 25, WHITE, 'flattened');
  });

  test('output formats: the one asked for, else the original, with the right magic bytes', async () => {
    const png = await quadrants('png');
    const gif = await sharp(png).gif().toBuffer();
    const webp = await sharp(png).webp().toBuffer();
    const cases: [Partial<TransformRequest>, Buffer, string, string][] = [
      [{ width: 100, format: 'webp' }, jpeg, 'image/jpeg', 'image/webp'],
      [{ width: 100, format: 'avif' }, jpeg, 'image/jpeg', 'image/avif'],
      [{ width: 100, format: 'png' }, jpeg, 'image/jpeg', 'image/png'],
      [{ width: 100, format: 'jpeg' }, png, 'image/png', 'image/jpeg'],
      [{ width: 100 }, jpeg, 'image/jpeg', 'image/jpeg'],
      [{ width: 100 }, png, 'image/png', 'image/png'],
      [{ width: 100 }, webp, 'image/webp', 'image/webp'],
      [{ width: 100 }, gif, 'image/gif', 'image/gif'],
    ];
    for (const [fields, input, originalMime, expected] of cases) {
      const { bytes, mimeType } = await render(fields, null, input, originalMime);
      assert.equal(mimeType, expected);
      assert.equal(magicType(bytes), expected, `${originalMime} → ${JSON.stringify(fields)}`);
      assert.equal((await sharp(bytes).metadata()).width, 100);
    }
  });

  test('q sets the quality (80 by default)', async () => {
    const sizes = [];
    for (const quality of [10, 80, 100]) sizes.push((await render({ width: 300, format: 'webp', quality })).bytes.length);
    assert.ok(sizes[0]! < sizes[1]! && sizes[1]! < sizes[2]!, `sizes grow with q: ${sizes.join(', ')}`);
  });

  test('takes a stream, a Buffer or a path, and a failing stream rejects', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'render-test-'));
    after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'original.jpg');
    await writeFile(path, jpeg);
    const wanted = { width: 120, height: 120 };
    const fromBuffer = (await render(wanted, { x: 0.3, y: 0.3 })).bytes;
    const fromPath = (await renderVariant(path, request(wanted), { x: 0.3, y: 0.3 }, 'image/jpeg')).bytes;
    const stream = Readable.from([jpeg.subarray(0, 1000), jpeg.subarray(1000)]);
    const fromStream = (await renderVariant(stream, request(wanted), { x: 0.3, y: 0.3 }, 'image/jpeg')).bytes;
    assert.deepEqual(fromPath, fromBuffer);
    assert.deepEqual(fromStream, fromBuffer);

    const failing = new Readable({
      read() {
        this.destroy(new Error('storage went away'));
      },
    });
    await assert.rejects(renderVariant(failing, request(wanted), null, 'image/jpeg'), /storage went away/);
  });

  test('an image above MAX_IMAGE_PIXELS is refused before it is decoded', async () => {
    await assert.rejects(render({ width: 100 }, null, pngHeaderOnly(20_000, 10_000), 'image/png'), /pixel limit/);
  });
});

describe('isTransformable', () => {
  test('still raster images are; SVG, animated images and other files are not', () => {
    for (const mime of ['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif']) {
      assert.equal(isTransformable(mime, false), true, mime);
      assert.equal(isTransformable(mime, true), false, `animated ${mime}`);
    }
    for (const mime of ['image/svg+xml', 'application/pdf', 'video/mp4', 'audio/mpeg', 'application/octet-stream']) {
      assert.equal(isTransformable(mime, false), false, mime);
    }
  });
});

function magicType(bytes: Buffer): string {
  const ascii = (start: number, end: number) => bytes.subarray(start, end).toString('latin1');
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (ascii(4, 8) === 'ftyp' && ascii(8, 12) === 'avif') return 'image/avif';
  if (ascii(0, 4) === 'GIF8') return 'image/gif';
  return 'unknown';
}

/** A PNG whose header declares width × height, with hardly any pixel data: enough to be refused by size. */
function pngHeaderOnly(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, no interlace
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const firstRow = deflateSync(Buffer.alloc(1 + 3 * 16));
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', firstRow), chunk('IEND', Buffer.alloc(0))]);
}
