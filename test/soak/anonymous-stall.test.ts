// The anonymous stall, tried again: public records as large as a record may be, listed over and over on the
// delivery route with no credentials, while another tenant works. The other tenant's answers stay fast, the
// server's memory stays bounded, and the lister gets a clear refusal (or a page that fits), never a broken body.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { memoryStatus } from '../../bench/lib/rss.js';
import { bootstrapAdmin, dataOf, type Admin } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

const LARGE_RECORDS = 30;
const ATTACKERS = 4;
const SECONDS = Number(process.env.STALL_SECONDS ?? 10);

let server: TestServer;
let victim: Admin;
let bystander: Admin;
let bystanderModelId: string;

before(async () => {
  server = await startServer({ process: true, env: { LOG_LEVEL: 'warn' } });
  victim = await bootstrapAdmin(server, { org: 'victim', workspace: 'main', email: 'owner@victim.test', role: 'owner' });
  bystander = await bootstrapAdmin(server, { org: 'bystander', workspace: 'main', email: 'owner@bystander.test', role: 'owner' });
  bystanderModelId = (await bystander.createSimpleModel()).id;
  for (let n = 0; n < 20; n++) await bystander.createRecord(bystanderModelId, { title: `Record ${n}` });
});

after(() => server.dispose());

const PAGE_START = '{"data":{"public":{"model":{"records":{"items":[{"id":"';
const PAGE_END = '}]}}}}}';

function countIds(text: string): number {
  return text.split('{"id":"').length - 1;
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

test(`${ATTACKERS} anonymous clients listing ${LARGE_RECORDS} records of ~1 MB for ${SECONDS} s do not stall another tenant`, async () => {
  const model = await victim.createModel({
    slug: 'posters',
    fields: ['title', 'front', 'back'].map((key) => ({ key, type: 'text' })),
    deliveryAccess: 'public',
  });
  const front = 'f'.repeat(500_000);
  const back = 'b'.repeat(520_000);
  for (let n = 0; n < LARGE_RECORDS; n++) await victim.createRecord(model.id, { title: `Poster ${n}`, front, back });

  const deliveryUrl = server.deliveryUrl('victim', 'main');
  const outcomes = { refused: 0, served: 0, other: [] as string[] };
  const deadline = Date.now() + SECONDS * 1000;
  // The body of a served page is checked by its shape, not parsed: parsing megabytes would load the cores the
  // server needs, and the test is about the server.
  const attack = async (limit: number) => {
    while (Date.now() < deadline) {
      const response = await fetch(deliveryUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `{ public { model { records(modelSlug: "posters", limit: ${limit}) { items { id data } } } } }`,
        }),
      });
      const text = await response.text();
      if (response.status === 200 && text.startsWith(PAGE_START) && text.endsWith(PAGE_END) && countIds(text) === limit) {
        outcomes.served += 1;
      } else if (
        response.status === 200 &&
        text.length < 10_000 &&
        JSON.parse(text).errors?.[0]?.extensions?.code === 'PAYLOAD_TOO_LARGE'
      ) {
        outcomes.refused += 1;
      } else {
        outcomes.other.push(`${response.status} ${text.slice(0, 200)}`);
      }
    }
  };

  const latencies: number[] = [];
  const bystanderWork = async () => {
    while (Date.now() < deadline) {
      const started = performance.now();
      dataOf(await bystander.listRaw(bystanderModelId, { limit: 20 }));
      latencies.push(performance.now() - started);
    }
  };

  let peakRssMiB = 0;
  const sampler = setInterval(() => {
    peakRssMiB = Math.max(peakRssMiB, memoryStatus(server.pid!).rssMiB);
  }, 100);
  try {
    // Three clients ask for pages over the response limit; one for pages that fit (3 records, about 3 MB).
    await Promise.all([...Array.from({ length: ATTACKERS - 1 }, () => attack(100)), attack(3), bystanderWork()]);
  } finally {
    clearInterval(sampler);
  }
  peakRssMiB = Math.max(peakRssMiB, memoryStatus(server.pid!).hwmMiB);

  const p99 = percentile(latencies, 0.99);
  console.log(
    `# stall: ${outcomes.refused} pages refused, ${outcomes.served} pages of 3 served; bystander ${latencies.length} requests, ` +
      `p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; server peak RSS ${peakRssMiB.toFixed(0)} MiB`,
  );
  assert.deepEqual(outcomes.other.slice(0, 5), [], 'every answer is a refusal or a whole page');
  assert.ok(outcomes.refused > 0 && outcomes.served > 0, 'both kinds of answer were seen');
  // A stall is seconds (what this attack did before responses were bounded); the figure itself is printed above and
  // is the benchmark's to track: on the quiet 2-core machine it is 90-125 ms with four clients pulling ~1 MB pages,
  // and 170-350 ms when other work shares the machine, so the bound is set well under a stall and above that noise.
  assert.ok(p99 < 500, `the other tenant's p99 was ${p99.toFixed(1)} ms`);
  assert.ok(peakRssMiB < 300, `server RSS reached ${peakRssMiB.toFixed(0)} MiB`);
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
});
