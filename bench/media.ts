/**
 * Media (docs/media.md). One server per database on a fresh database, file storage in a temporary directory:
 *
 * 1. Upload memory: a `--upload-mb` (50) MB file by `POST /assets`; the server's peak RSS during it over its RSS
 *    before (goal < 60 MB: streamed, never held whole).
 * 2. Transform cost: a 4000×3000 JPEG, `?w=800&format=webp&q=<n>` with a new q each run (a render every time),
 *    server time, against sharp doing the same alone in this process, alternating, `--renders` (7) each: ratio of
 *    medians (goal ≤ 1.3×).
 * 3. A kept variant against an original file of the same size: `--serves` (200) GETs of each, alternating, server
 *    time p50 (goal ≤ 1.2×).
 * 4. Isolation: while one client asks for `--sizes` (200) distinct new sizes (8 at a time), another workspace's
 *    admin API (a record list) is timed: client p99 (goal < 250 ms); the first client's 503 answers are counted.
 *
 *   node --import tsx bench/media.ts [--db sqlite|postgres] [--upload-mb 50] [--renders 7] [--serves 200] [--sizes 200]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { GqlClient } from './lib/client.js';
import { RssSampler, memoryStatus } from './lib/rss.js';
import { runBenchmark, startService, type Service } from './lib/run.js';
import { bootstrap, type Workspace } from './lib/server.js';
import { percentile } from './lib/stats.js';
import { fmtInt, fmtMs, fmtRatio, printTable } from './lib/table.js';

const GOALS = { uploadRssMiB: 60, transformRatio: 1.3, keptRatio: 1.2, isolationP99Ms: 250 };

interface Uploaded {
  id: string;
  url: string;
  size: number;
}

async function upload(service: Service, workspace: Workspace, bytes: Buffer, filename: string): Promise<Uploaded> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), filename);
  const response = await fetch(`${service.server.baseUrl}/assets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${workspace.token}`, 'x-workspace-id': workspace.workspaceId },
    body: form,
  });
  const body = (await response.json()) as { asset?: Uploaded; errors?: unknown };
  if (response.status !== 201 || !body.asset) throw new Error(`upload: HTTP ${response.status} ${JSON.stringify(body)}`);
  return body.asset;
}

/** GETs a URL; its server time (from the request log) and status. */
async function timedGet(service: Service, url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  const requestId = response.headers.get('x-request-id') ?? '';
  return { status: response.status, requestId, bytes: Number(response.headers.get('content-length') ?? 0) };
}

async function serverTime(service: Service, requestId: string): Promise<number> {
  return (await service.server.serverTimes([requestId]))[0]!;
}

async function uploadMemory(service: Service, megabytes: number) {
  await upload(service, service.workspace, Buffer.alloc(1024, 1), 'warm.bin');
  const bytes = Buffer.alloc(megabytes * 1024 * 1024);
  for (let at = 0; at < bytes.length; at += 4) bytes.writeUInt32LE((at * 2654435761) >>> 0, at);
  const before = memoryStatus(service.server.pid).rssMiB;
  const sampler = new RssSampler(service.server.pid, 20);
  await upload(service, service.workspace, bytes, 'big.bin');
  // Sampled, not VmHWM: the peak since the process started would include its start.
  const peak = sampler.stop().peakSampledMiB;
  return { beforeMiB: before, peakMiB: peak, riseMiB: peak - before };
}

async function photo(): Promise<Buffer> {
  return sharp({
    create: { width: 4000, height: 3000, channels: 3, background: '#3a6', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
  })
    .jpeg({ quality: 85 })
    .toBuffer();
}

async function transformCost(service: Service, renders: number) {
  const original = await photo();
  const asset = await upload(service, service.workspace, original, 'photo.jpg');
  const server: number[] = [];
  const alone: number[] = [];
  for (let run = 0; run <= renders; run++) {
    const quality = 60 + run;
    const served = await timedGet(service, `${asset.url}?w=800&format=webp&q=${quality}`);
    if (served.status !== 200) throw new Error(`transform: HTTP ${served.status}`);
    const started = performance.now();
    await sharp(original).rotate().resize({ width: 800, withoutEnlargement: true }).webp({ quality }).toBuffer();
    const sharpMs = performance.now() - started;
    // The first of each is a warm-up (sharp's and the server's first render load their codecs).
    if (run === 0) continue;
    server.push(await serverTime(service, served.requestId));
    alone.push(sharpMs);
  }
  const serverP50 = percentile(server, 50);
  const sharpP50 = percentile(alone, 50);
  return { asset, serverP50, sharpP50, ratio: serverP50 / sharpP50 };
}

async function keptVariant(service: Service, photoUrl: string, serves: number) {
  const variantUrl = `${photoUrl}?w=800&format=webp&q=80`;
  const first = await timedGet(service, variantUrl);
  const size = first.bytes;
  const same = await upload(service, service.workspace, Buffer.alloc(size, 7), 'same-size.bin');
  const variant: number[] = [];
  const originalTimes: number[] = [];
  for (let round = 0; round < serves; round++) {
    variant.push(await serverTime(service, (await timedGet(service, variantUrl)).requestId));
    originalTimes.push(await serverTime(service, (await timedGet(service, same.url)).requestId));
  }
  const variantP50 = percentile(variant, 50);
  const originalP50 = percentile(originalTimes, 50);
  return { bytes: size, variantP50, originalP50, ratio: variantP50 / originalP50 };
}

async function isolation(service: Service, photoUrl: string, sizes: number) {
  const other = await bootstrap(service.database.url, 'bench', 'other');
  const client = new GqlClient(service.server.baseUrl, other, 2);
  const model = await client.send<{ model: { create: { id: string } } }>(
    JSON.stringify({
      query: 'mutation ($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }',
      variables: { input: { name: 'Note', slug: 'note', fields: [{ key: 'title', label: 'Title', type: 'text' }] } },
    }),
  );
  const list = JSON.stringify({
    query: 'query ($id: ID!) { record { list(modelId: $id, limit: 20) { total items { id data } } } }',
    variables: { id: model.data.model.create.id },
  });
  const latencies: number[] = [];
  let flooding = true;
  const probe = (async () => {
    while (flooding) latencies.push((await client.send(list)).ms);
  })();
  let next = 0;
  let refused = 0;
  const flood = async () => {
    while (next < sizes) {
      const width = 100 + next++ * 7;
      const answer = await timedGet(service, `${photoUrl}?w=${width}&format=jpeg`);
      if (answer.status === 503) refused++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: 8 }, flood));
  const floodMs = performance.now() - started;
  flooding = false;
  await probe;
  await client.close();
  return { requests: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), refused, floodMs };
}

const mark = (ok: boolean) => (ok ? 'met' : 'NOT met');

await runBenchmark('media', async ({ args, kind }) => {
  const options = {
    uploadMb: args.int('upload-mb', 50),
    renders: args.int('renders', 7),
    serves: args.int('serves', 200),
    sizes: args.int('sizes', 200),
  };
  const storage = mkdtempSync(join(tmpdir(), 'bench-media-'));
  const service = await startService(kind, { env: { STORAGE_URL: `file:${storage}` } });
  try {
    const memory = await uploadMemory(service, options.uploadMb);
    const transform = await transformCost(service, options.renders);
    const kept = await keptVariant(service, transform.asset.url, options.serves);
    const flood = await isolation(service, transform.asset.url, options.sizes);
    printTable(
      `Media on ${kind}`,
      ['figure', 'value', 'goal'],
      [
        [
          `${options.uploadMb} MB upload: server peak RSS − RSS before`,
          `${memory.riseMiB.toFixed(1)} MiB (${memory.beforeMiB.toFixed(0)} → ${memory.peakMiB.toFixed(0)})`,
          `< ${GOALS.uploadRssMiB} MiB ${mark(memory.riseMiB < GOALS.uploadRssMiB)}`,
        ],
        [
          `4000×3000 JPEG → 800 wide WebP: server p50 / sharp alone p50 (${options.renders} each)`,
          `${fmtRatio(transform.ratio)} (${fmtMs(transform.serverP50)} vs ${fmtMs(transform.sharpP50)} ms)`,
          `≤ ${GOALS.transformRatio}× ${mark(transform.ratio <= GOALS.transformRatio)}`,
        ],
        [
          `kept variant (${fmtInt(kept.bytes)} bytes) / original of that size: server p50 (${options.serves} each)`,
          `${fmtRatio(kept.ratio)} (${fmtMs(kept.variantP50)} vs ${fmtMs(kept.originalP50)} ms)`,
          `≤ ${GOALS.keptRatio}× ${mark(kept.ratio <= GOALS.keptRatio)}`,
        ],
        [
          `another workspace's record list during ${options.sizes} new sizes (${fmtInt(flood.floodMs)} ms, ${flood.refused} answered 503): client p99; p50 of ${flood.requests}`,
          `${fmtMs(flood.p99)} ms; ${fmtMs(flood.p50)} ms`,
          `< ${GOALS.isolationP99Ms} ms ${mark(flood.p99 < GOALS.isolationP99Ms)}`,
        ],
      ],
    );
    return { options, goals: GOALS, memory, transform: { ...transform, asset: undefined }, kept, flood };
  } finally {
    await service.dispose();
  }
});
