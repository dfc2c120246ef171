// The soak: many connections sending a mix of reads and writes to one server for a bounded time (loopback only).
// Each connection owns its records (no two connections touch the same record), so every answer other than a
// success or a 429 is an error of the service. At the end the stored records are counted against the writes
// acknowledged, and the server's RSS, sampled throughout, shows whether memory stayed flat.
import { performance } from 'node:perf_hooks';
import { memoryStatus } from './rss.js';
import { latencySummary, percentile, type LatencySummary } from './stats.js';

export interface SoakOptions {
  baseUrl: string;
  /** The server's process id, for its RSS. */
  pid: number;
  token: string;
  workspaceId: string;
  /** Organisation and workspace slugs, for the delivery route. */
  org: string;
  workspace: string;
  connections: number;
  durationMs: number;
  /** Stop early after this many requests (bounded in count as well as time). */
  maxRequests?: number;
  rssSampleMs?: number;
}

export const OPERATIONS = ['list', 'get', 'create', 'patch', 'import', 'delete', 'delivery'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** How often each operation is picked: reads dominate, as for a catalog behind a storefront. */
const WEIGHTS: Record<Operation, number> = { list: 30, get: 20, delivery: 15, create: 12, patch: 15, import: 3, delete: 5 };

export interface SoakReport {
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  rateLimited: number;
  /** Answers that were neither a success nor a 429, with what was sent; must be empty. */
  errors: string[];
  latency: Record<Operation, LatencySummary>;
  all: LatencySummary;
  records: { expected: number; stored: number };
  rss: {
    samples: number;
    startMiB: number;
    /** Median RSS of the second quarter of the run (after warm-up) and of the last quarter. */
    secondQuarterMiB: number;
    lastQuarterMiB: number;
    peakMiB: number;
  };
}

interface Answer {
  status: number;
  body: any;
  text: string;
}

class SoakClient {
  constructor(private readonly options: SoakOptions) {}

  async admin(query: string, variables: Record<string, unknown>): Promise<Answer> {
    return this.post(
      `${this.options.baseUrl}/graphql`,
      { query, variables },
      {
        authorization: `Bearer ${this.options.token}`,
        'x-workspace-id': this.options.workspaceId,
      },
    );
  }

  async delivery(query: string, variables: Record<string, unknown>): Promise<Answer> {
    return this.post(
      `${this.options.baseUrl}/public/${this.options.org}/${this.options.workspace}/graphql`,
      { query, variables },
      {},
    );
  }

  private async post(url: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed, text };
  }
}

const CREATE_MODEL = 'mutation($input: CreateModelDefinitionInput!) { model { create(input: $input) { id slug } } }';
const CREATE = 'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }';
const PATCH = 'mutation($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }';
const IMPORT =
  'mutation($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount errors { row message } } } }';
const DELETE = 'mutation($id: ID!) { record { delete(id: $id) { deleted } } }';
const GET = 'query($id: ID!) { record { get(id: $id) { id data } } }';
const LIST =
  'query($modelId: ID!, $offset: Int, $sort: String) { record { list(modelId: $modelId, limit: 50, offset: $offset, sort: $sort) { total hasMore items { id data } } } }';
const DELIVERY =
  'query($slug: String!, $offset: Int) { public { model { records(modelSlug: $slug, limit: 20, offset: $offset) { total items { id data } } } } }';

/** A product model with delivery access, made for the soak. */
export async function createSoakModel(options: SoakOptions): Promise<{ id: string; slug: string }> {
  const client = new SoakClient(options);
  const slug = `soak_${Date.now().toString(36)}`;
  const answer = await client.admin(CREATE_MODEL, {
    input: {
      name: 'Soak product',
      slug,
      displayField: 'title',
      deliveryAccess: 'public',
      product: { enabled: true, skuField: 'sku', priceField: 'price' },
      fields: [
        { key: 'sku', label: 'SKU', type: 'text', required: true },
        { key: 'title', label: 'Title', type: 'text', required: true },
        { key: 'price', label: 'Price', type: 'number' },
        { key: 'stock', label: 'Stock', type: 'number' },
        { key: 'name', label: 'Name', type: 'translatable' },
      ],
    },
  });
  if (answer.status !== 200 || answer.body?.errors) throw new Error(`creating the soak model failed: ${answer.text}`);
  return answer.body.data.model.create;
}

function pickOperation(random: () => number, owned: number): Operation {
  const total = Object.values(WEIGHTS).reduce((sum, weight) => sum + weight, 0);
  let roll = random() * total;
  for (const operation of OPERATIONS) {
    roll -= WEIGHTS[operation];
    if (roll < 0) {
      // Operations on an owned record need one; create instead.
      if ((operation === 'get' || operation === 'patch' || operation === 'delete') && owned === 0) return 'create';
      return operation;
    }
  }
  return 'list';
}

export async function soak(options: SoakOptions, model: { id: string; slug: string }): Promise<SoakReport> {
  const client = new SoakClient(options);
  const latencies = Object.fromEntries(OPERATIONS.map((operation) => [operation, [] as number[]])) as Record<Operation, number[]>;
  const errors: string[] = [];
  let requests = 0;
  let rateLimited = 0;
  let expectedRecords = 0;
  const deadline = performance.now() + options.durationMs;
  const maxRequests = options.maxRequests ?? Number.POSITIVE_INFINITY;
  const rss: { at: number; mib: number }[] = [];
  const started = performance.now();
  const sampler = setInterval(() => {
    try {
      rss.push({ at: performance.now() - started, mib: memoryStatus(options.pid).rssMiB });
    } catch {
      // the server is gone; the requests will say so
    }
  }, options.rssSampleMs ?? 250);

  const connection = async (index: number) => {
    let seed = index + 1;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const owned: string[] = [];
    let sku = 0;
    const nextSku = () => `soak-${index}-${sku++}`;
    while (performance.now() < deadline && requests < maxRequests) {
      const operation = pickOperation(random, owned.length);
      const someOwned = () => owned[Math.floor(random() * owned.length)]!;
      const begin = performance.now();
      let answer: Answer;
      let sent = '';
      requests += 1;
      switch (operation) {
        case 'list':
          sent = `list`;
          answer = await client.admin(LIST, {
            modelId: model.id,
            offset: Math.floor(random() * 200),
            sort: random() < 0.5 ? 'createdAt_asc' : 'updatedAt_desc',
          });
          break;
        case 'get':
          sent = `get`;
          answer = await client.admin(GET, { id: someOwned() });
          if (answer.status === 200 && !answer.body?.errors && answer.body?.data?.record?.get === null) {
            errors.push(`get of an owned record answered null`);
          }
          break;
        case 'delivery':
          sent = `delivery`;
          answer = await client.delivery(DELIVERY, { slug: model.slug, offset: Math.floor(random() * 200) });
          break;
        case 'create': {
          const data = {
            sku: nextSku(),
            title: `Soak ${index}/${sku}`,
            price: Math.round(random() * 10_000) / 100,
            name: { en: 'Ball', pl: 'Piłka' },
          };
          sent = `create ${JSON.stringify(data)}`;
          answer = await client.admin(CREATE, { input: { modelId: model.id, data } });
          if (answer.status === 200 && !answer.body?.errors) {
            owned.push(answer.body.data.record.create.id);
            expectedRecords += 1;
          }
          break;
        }
        case 'patch':
          sent = 'patch';
          answer = await client.admin(PATCH, {
            input: { id: someOwned(), data: { stock: Math.floor(random() * 100), name: { de: 'Ball' } } },
          });
          break;
        case 'import': {
          const rows = Array.from({ length: 50 }, (_, row) => ({ sku: nextSku(), title: `Imported ${row}`, price: row }));
          sent = 'import of 50 rows';
          answer = await client.admin(IMPORT, { input: { modelId: model.id, rows } });
          if (answer.status === 200 && !answer.body?.errors) {
            const result = answer.body.data.record.import;
            if (result.importedCount !== rows.length)
              errors.push(`import stored ${result.importedCount} of ${rows.length}: ${JSON.stringify(result.errors)}`);
            expectedRecords += result.importedCount;
          }
          break;
        }
        case 'delete': {
          const position = Math.floor(random() * owned.length);
          const [id] = owned.splice(position, 1);
          sent = `delete ${id}`;
          answer = await client.admin(DELETE, { id });
          if (answer.status === 200 && !answer.body?.errors) expectedRecords -= 1;
          break;
        }
      }
      const ms = performance.now() - begin;
      if (answer.status === 429) {
        rateLimited += 1;
      } else if (answer.status !== 200 || answer.body?.errors) {
        errors.push(`${operation}: HTTP ${answer.status} ${answer.text.slice(0, 300)} (sent: ${sent.slice(0, 200)})`);
      } else {
        latencies[operation].push(ms);
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, (_, index) => connection(index)));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;

  const list = await client.admin(LIST, { modelId: model.id, offset: 0, sort: 'createdAt_asc' });
  const stored = list.status === 200 && !list.body?.errors ? (list.body.data.record.list.total as number) : NaN;

  const quarter = (from: number, to: number) => {
    const values = rss
      .filter((sample) => sample.at >= from * seconds * 1000 && sample.at < to * seconds * 1000)
      .map((sample) => sample.mib);
    return percentile(values, 50);
  };
  return {
    seconds,
    requests,
    requestsPerSecond: requests / seconds,
    rateLimited,
    errors,
    latency: Object.fromEntries(OPERATIONS.map((operation) => [operation, latencySummary(latencies[operation])])) as Record<
      Operation,
      LatencySummary
    >,
    all: latencySummary(OPERATIONS.flatMap((operation) => latencies[operation])),
    records: { expected: expectedRecords, stored },
    rss: {
      samples: rss.length,
      startMiB: rss[0]?.mib ?? NaN,
      secondQuarterMiB: quarter(0.25, 0.5),
      lastQuarterMiB: quarter(0.75, 1.01),
      peakMiB: Math.max(...rss.map((sample) => sample.mib)),
    },
  };
}

/** The report as lines of text: counts, then one latency line per operation. */
export function describeSoak(report: SoakReport, connections: number): string[] {
  const ms = (value: number) => value.toFixed(1);
  return [
    `${report.requests} requests from ${connections} connections in ${report.seconds.toFixed(1)} s ` +
      `(${report.requestsPerSecond.toFixed(0)} req/s); 429s: ${report.rateLimited}; errors: ${report.errors.length}`,
    `records stored ${report.records.stored}, expected from acknowledged writes ${report.records.expected}`,
    `server RSS MiB: start ${ms(report.rss.startMiB)}, 2nd quarter median ${ms(report.rss.secondQuarterMiB)}, ` +
      `last quarter median ${ms(report.rss.lastQuarterMiB)}, peak ${ms(report.rss.peakMiB)} (${report.rss.samples} samples)`,
    ...OPERATIONS.map((operation) => {
      const latency = report.latency[operation];
      return `${operation.padEnd(9)} n=${String(latency.count).padStart(7)}  p50 ${ms(latency.p50)} ms  p99 ${ms(latency.p99)} ms  max ${ms(latency.max)} ms`;
    }),
  ];
}
