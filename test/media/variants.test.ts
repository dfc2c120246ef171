// Variants made once and kept (src/media/variants.ts) and the names they are kept under (src/media/variant-key.ts),
// over a storage in memory: the first request renders and stores, the next ones find it; concurrent requests for a
// new variant cause one render; a full queue refuses.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { RenderBusy, RenderQueue } from '../../src/media/render-queue.js';
import { contentKey, variantPrefix } from '../../src/media/storage.js';
import type { TransformRequest } from '../../src/media/transform-params.js';
import { variantName } from '../../src/media/variant-key.js';
import { getOrMakeVariant, type VariantSource } from '../../src/media/variants.js';
import type { FocalPoint } from '../../src/shared/media.js';
import { MemoryStorage } from '../support/memory-storage.js';

const SHA = 'a'.repeat(64);

function request(fields: Partial<TransformRequest>): TransformRequest {
  return { width: null, height: null, fit: 'cover', format: 'original', quality: 80, variesByAccept: false, ...fields };
}

async function world(queueOptions = { concurrency: 2, maxQueued: 10 }) {
  const storage = new MemoryStorage();
  const queue = new RenderQueue(queueOptions);
  const original = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#336699' } })
    .jpeg()
    .toBuffer();
  const originalKey = contentKey('ws1', SHA);
  await storage.putBytes(originalKey, original, 'image/jpeg');
  const source = (fields: Partial<TransformRequest>, focalPoint: FocalPoint | null = null): VariantSource => ({
    storage,
    queue,
    workspaceId: 'ws1',
    sha256: SHA,
    originalKey,
    originalMime: 'image/jpeg',
    request: request(fields),
    focalPoint,
  });
  return { storage, queue, source, originalKey };
}

describe('getOrMakeVariant', () => {
  test('the first call renders and keeps the variant; the second finds it and renders nothing', async () => {
    const { storage, queue, source } = await world();
    const first = await getOrMakeVariant(source({ width: 200, format: 'webp' }));
    assert.equal(first.key, `ws1/variants/${SHA}/w200-h0-cover-q80.webp`);
    assert.equal(first.mimeType, 'image/webp');
    assert.equal(first.made, true);
    const kept = storage.objects.get(first.key);
    assert.ok(kept);
    assert.equal(kept.contentType, 'image/webp');
    assert.equal(first.size, kept.bytes.length);
    assert.equal((await sharp(kept.bytes).metadata()).width, 200);

    const reads = storage.calls.read;
    const second = await getOrMakeVariant(source({ width: 200, format: 'webp' }));
    assert.deepEqual(second, { ...first, made: false });
    assert.equal(storage.calls.read, reads, 'the original was not read again');
    assert.equal(storage.calls.putBytes, 2, 'the original and one variant');
    assert.equal(queue.figures.rendered, 1);
  });

  test('concurrent callers for one new variant cause exactly one render', async () => {
    const { storage, queue, source } = await world();
    const wanted = source({ width: 120, height: 120 }, { x: 0.2, y: 0.7 });
    const results = await Promise.all(Array.from({ length: 10 }, () => getOrMakeVariant(wanted)));
    assert.equal(new Set(results.map((result) => result.key)).size, 1);
    assert.ok(results.every((result) => result.made && result.mimeType === 'image/jpeg'));
    assert.equal(queue.figures.rendered, 1);
    assert.equal(storage.calls.read, 1, 'the original read once');
    assert.equal(storage.calls.putBytes, 2, 'the original and one variant');
    assert.ok(results[0]!.key.endsWith('/w120-h120-cover-fp0.2x0.7-q80.jpg'), results[0]!.key);
  });

  test('different transforms are different variants under the content’s folder', async () => {
    const { storage, source } = await world();
    const a = await getOrMakeVariant(source({ width: 100 }));
    const b = await getOrMakeVariant(source({ width: 100, format: 'png' }));
    const c = await getOrMakeVariant(source({ width: 100, quality: 50 }));
    assert.equal(new Set([a.key, b.key, c.key]).size, 3);
    for (const variant of [a, b, c]) assert.ok(variant.key.startsWith(variantPrefix('ws1', SHA)));
    assert.equal(storage.objects.get(b.key)?.contentType, 'image/png');
  });

  test('a full queue refuses with RenderBusy, and nothing is kept', async () => {
    const { storage, queue, source } = await world({ concurrency: 1, maxQueued: 0 });
    let release!: () => void;
    const held = queue.run('someone else', () => new Promise<void>((resolve) => (release = resolve)));
    await assert.rejects(getOrMakeVariant(source({ width: 50 })), RenderBusy);
    assert.equal(storage.objects.size, 1, 'only the original');
    release();
    await held;
  });

  test('a missing original rejects, and the next call tries again', async () => {
    const { storage, source, originalKey } = await world();
    const original = storage.objects.get(originalKey)!;
    storage.objects.delete(originalKey);
    await assert.rejects(getOrMakeVariant(source({ width: 60 })), /original .* is not in storage/);
    storage.objects.set(originalKey, original);
    assert.equal((await getOrMakeVariant(source({ width: 60 }))).made, true);
  });
});

describe('variantName', () => {
  const name = (fields: Partial<TransformRequest>, focalPoint: FocalPoint | null = null, mime = 'image/jpeg') =>
    variantName(request(fields), focalPoint, mime);

  test('every part that changes the bytes, 0 for a side not given, the extension of the format', () => {
    assert.equal(name({ width: 800, format: 'webp' }), 'w800-h0-cover-q80.webp');
    assert.equal(name({ height: 300, fit: 'inside', quality: 55 }), 'w0-h300-inside-q55.jpg');
    assert.equal(name({ width: 10, height: 20, fit: 'contain', format: 'avif' }), 'w10-h20-contain-q80.avif');
    assert.equal(name({ width: 10 }, null, 'image/gif'), 'w10-h0-cover-q80.gif');
    assert.equal(name({ width: 10 }, null, 'image/webp'), 'w10-h0-cover-q80.webp');
  });

  test('the focal point only where it moves the crop: cover with both sides', () => {
    const focus = { x: 0.5, y: 0.5 };
    assert.equal(name({ width: 800, height: 600, format: 'webp' }, focus), 'w800-h600-cover-fp0.5x0.5-q80.webp');
    assert.equal(name({ width: 800, format: 'webp' }, focus), 'w800-h0-cover-q80.webp');
    assert.equal(name({ width: 800, height: 600, fit: 'contain' }, focus), 'w800-h600-contain-q80.jpg');
    assert.equal(name({ width: 800, height: 600, fit: 'inside' }, focus), 'w800-h600-inside-q80.jpg');
    assert.equal(name({ width: 8, height: 6 }, { x: 1 / 3, y: 1.7 }), 'w8-h6-cover-fp0.3333x1-q80.jpg', 'rounded, clamped');
  });

  test('PNG is lossless: the quality is not part of its name', () => {
    assert.equal(name({ width: 10, format: 'png', quality: 30 }), name({ width: 10, format: 'png', quality: 90 }));
    assert.equal(name({ width: 10 }, null, 'image/png'), 'w10-h0-cover.png');
  });

  test('no name for a type no variant is made of', () => {
    assert.throws(() => name({ width: 10 }, null, 'image/svg+xml'), /image\/svg\+xml/);
  });
});
