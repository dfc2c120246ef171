// Fuzz: ~2000 generated hostile and malformed requests against one real server, sent one after another so that a
// seed reproduces a run exactly (FUZZ_SEED=<n> to replay; the seed is in the test name). Every answer must be a
// JSON errors/data body with an expected status, never a 500, a stack trace, SQL or a file path; afterwards the
// server is up, nothing leaked into Object.prototype, and the stored records are exactly what the acknowledged
// writes (creates, patches, import rows) produced.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, authHeaders, bootstrapAdmin, request, type GqlResponse } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) >>> 0 : (Date.now() ^ (process.pid << 16)) >>> 0;
/** `npm test` sends 500 (scripts/run-tests.mjs); `npm run test:system` 2000. */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2000);
const ALLOWED_STATUS = new Set([200, 400, 401, 403, 404, 413, 415, 429]);

/** mulberry32: a tiny seeded generator of floats in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = mulberry32(SEED);
const int = (n: number) => Math.floor(random() * n);
const chance = (p: number) => random() < p;
const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;

const PIECES = [
  'a',
  'b',
  'Z',
  '0',
  '9',
  ' ',
  '-',
  '_',
  '.',
  '"',
  '\\',
  '/',
  '{',
  '}',
  '[',
  ']',
  '$',
  '#',
  '\n',
  '\t',
  '\u0000',
  '\ud800',
  '\udfff',
  '\u202e',
  '\u200f',
  '\u200b',
  '\ufeff',
  '\uffff',
  'é',
  'e\u0301',
  'İ',
  'ß',
  'ﬃ',
  '😀',
  '👩‍👩‍👧',
  '🇵🇱',
  '日本',
  'مرحبا',
  'שלום',
  '\u0085',
  '\u2028',
  '%00',
  "'; --",
  '<script>',
];
const DANGEROUS_KEYS = ['__proto__', 'constructor', 'prototype'];

function randomString(max = 24): string {
  if (chance(0.01)) return pick(PIECES).repeat(1 + int(1_000_000));
  let text = '';
  for (let i = int(max + 1); i > 0; i--) text += pick(PIECES);
  return text;
}

/** Sets an own, enumerable property: `obj.__proto__ = x` would change the prototype instead of adding a key. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function randomKey(): string {
  return chance(0.25)
    ? pick(DANGEROUS_KEYS)
    : chance(0.3)
      ? pick(['sku', 'title', 'price', 'polluted', 'toString', 'valueOf', 'hasOwnProperty'])
      : randomString(8);
}

function randomNumber(): number {
  return pick([0, -0, 1, -1, 0.5, 1e308, -1e308, 5e-324, 2 ** 53, -(2 ** 53) - 2, 2 ** 31, int(1000), random() * 1e6]);
}

function randomJson(depth = 0): unknown {
  const kind = int(depth > 4 ? 4 : 7);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return chance(0.5);
    case 2:
      return randomNumber();
    case 3:
      return randomString();
    case 4:
    case 5:
      return Array.from({ length: int(4) }, () => randomJson(depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = int(5); i > 0; i--) put(object, randomKey(), randomJson(depth + 1));
      return object;
    }
  }
}

function pollutionPayload(): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  put(object, '__proto__', { polluted: 'yes', isAdmin: true, role: 'owner' });
  put(object, 'constructor', { prototype: { polluted: 'yes' } });
  put(object, 'prototype', { polluted: 'yes' });
  return object;
}

function deepNesting(levels: number): string {
  switch (int(4)) {
    case 0:
      return '['.repeat(levels) + ']'.repeat(levels);
    case 1:
      return '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
    case 2:
      return '[{"__proto__":'.repeat(levels) + 'null' + '}]'.repeat(levels);
    default:
      return '['.repeat(levels); // unterminated
  }
}

// Names from the admin and delivery schemas, for generated documents.
const NAMES = [
  'model',
  'record',
  'list',
  'get',
  'create',
  'update',
  'patch',
  'delete',
  'import',
  'id',
  'slug',
  'name',
  'fields',
  'key',
  'type',
  'data',
  'items',
  'total',
  'hasMore',
  'product',
  'enabled',
  'skuField',
  'importedCount',
  'errors',
  'row',
  'message',
  'input',
  'modelId',
  'limit',
  'offset',
  'sort',
  'force',
  'rows',
  'deleted',
  'recordCount',
  'createdAt',
  'workspaceId',
  'ofType',
  '__typename',
  '__schema',
  '__type',
  'types',
  'records',
  'ModelRecord',
  'Query',
  'Mutation',
  'RecordMutations',
  'JSON',
  'ID',
  'String',
  'Int',
];
const PUNCTUATION = [
  '{',
  '}',
  '(',
  ')',
  ':',
  '$',
  '!',
  '...',
  'on',
  '@include(if: true)',
  '@skip(if: $x)',
  ',',
  '=',
  '[',
  ']',
  '"x"',
  '1',
  'null',
  '#',
];

function randomValueLiteral(depth = 0): string {
  switch (int(depth > 2 ? 4 : 6)) {
    case 0:
      return JSON.stringify(randomString(6));
    case 1:
      return String(randomNumber());
    case 2:
      return pick(['true', 'null', 'ASC', '$x', '$input']);
    case 3:
      return `"""${randomString(6).replace(/"/g, '')}"""`;
    case 4:
      return `[${Array.from({ length: int(3) }, () => randomValueLiteral(depth + 1)).join(', ')}]`;
    default:
      return `{ ${Array.from({ length: int(3) }, () => `${pick(NAMES)}: ${randomValueLiteral(depth + 1)}`).join(' ')} }`;
  }
}

function randomSelection(depth: number): string {
  const parts: string[] = [];
  for (let i = 1 + int(3); i > 0; i--) {
    let field = chance(0.2) ? `${pick(NAMES)}${int(9)}: ${pick(NAMES)}` : pick(NAMES);
    if (chance(0.3)) field += `(${pick(NAMES)}: ${randomValueLiteral()})`;
    if (depth < 6 && chance(0.6)) field += ` { ${randomSelection(depth + 1)} }`;
    if (chance(0.1)) field = `... on ${pick(NAMES)} { ${field} }`;
    parts.push(field);
  }
  return parts.join(' ');
}

function randomDocument(): string {
  if (chance(0.2)) return Array.from({ length: int(40) }, () => (chance(0.5) ? pick(NAMES) : pick(PUNCTUATION))).join(' ');
  const operation = pick(['', 'query', 'mutation', 'subscription', 'query Q($x: Boolean, $input: JSON)']);
  let document = `${operation} { ${randomSelection(0)} }`;
  if (chance(0.2)) document += ` fragment F on ${pick(NAMES)} { ${randomSelection(2)} }`;
  if (chance(0.1)) document = document.slice(0, int(document.length));
  return document;
}

interface FuzzRequest {
  description: string;
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** Called with the answer to track the writes it acknowledged. */
  track?: (response: GqlResponse) => void;
}

let server: TestServer;
let owner: Admin;
let viewer: Admin;
let productModelId: string;

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server);
  const viewerToken = await server.createToken({ workspaceId: owner.workspaceId, email: 'viewer@acme.test', role: 'viewer' });
  viewer = new Admin(server, { token: viewerToken.token, workspaceId: owner.workspaceId });
  productModelId = (await owner.createProductModel({ deliveryAccess: 'public' })).id;
});

after(async () => {
  await server?.dispose();
});

test(`fuzz: ${REQUESTS} hostile requests (seed ${SEED}; replay with FUZZ_SEED=${SEED})`, { timeout: 120_000 }, async () => {
  /** What the acknowledged writes produced: record id → data (creates and patches), sku → row data (imports). */
  const created = new Map<string, unknown>();
  const imported = new Map<string, unknown>();
  const counts = new Map<string, number>();
  let skuCounter = 0;

  const json = (value: unknown) => JSON.stringify(value);
  const adminHeaders = (admin: Admin = owner) => ({ 'content-type': 'application/json', ...authHeaders(admin.credentials) });
  const adminRequest = (description: string, body: string | Uint8Array, track?: FuzzRequest['track']): FuzzRequest => ({
    description,
    url: server.adminUrl,
    headers: adminHeaders(),
    body,
    ...(track ? { track } : {}),
  });

  function productData(): Record<string, unknown> {
    if (chance(0.15)) return randomJson() as Record<string, unknown>;
    const data: Record<string, unknown> = {};
    if (chance(0.9))
      put(data, 'sku', chance(0.2) ? `dup-${int(20)}` : chance(0.1) ? randomJson() : `sku-${SEED}-${skuCounter++}`);
    if (chance(0.9)) put(data, 'title', chance(0.1) ? randomJson() : randomString());
    if (chance(0.5)) put(data, 'price', chance(0.2) ? randomJson() : randomNumber());
    if (chance(0.15)) put(data, randomKey(), randomJson());
    return data;
  }

  function generate(): FuzzRequest {
    const kind = int(14);
    switch (kind) {
      case 0:
        return adminRequest('random JSON body', json(randomJson()));
      case 1: {
        const bytes = new Uint8Array(int(2000));
        for (let i = 0; i < bytes.length; i++) bytes[i] = int(256);
        return adminRequest('random bytes', bytes);
      }
      case 2:
        return adminRequest('deep nesting', deepNesting(1 + int(200_000)));
      case 3: {
        const levels = 1 + int(20_000);
        const nested = '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
        return adminRequest(
          'deep nesting inside data',
          `{"query":"mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }","variables":{"input":{"modelId":${json(productModelId)},"data":{"sku":"deep-${skuCounter++}","title":"t","price":${nested}}}}}`,
        );
      }
      case 4: {
        const where = int(3);
        const huge = 'x'.repeat(1 + int(1_000_000));
        if (where === 0) return adminRequest('huge query', json({ query: `{ model { list { id } } } # ${huge}` }));
        if (where === 1) return adminRequest('huge string literal', json({ query: `{ record { get(id: "${huge}") { id } } }` }));
        return adminRequest(
          'huge variable',
          json({ query: 'query($id: ID!) { record { get(id: $id) { id } } }', variables: { id: huge } }),
        );
      }
      case 5: {
        const body: Record<string, unknown> = {};
        put(
          body,
          'query',
          chance(0.5) ? pick([1, true, null, [], {}, ['{ model { list { id } } }'], '', '   ']) : '{ model { list { id } } }',
        );
        put(body, 'variables', pick(['a string', 1, [], [1, 2], true, randomJson()]));
        if (chance(0.5)) put(body, 'operationName', pick([1, {}, [], 'Missing', true]));
        return adminRequest('wrong types', json(body));
      }
      case 6:
      case 7: {
        const data = productData();
        return adminRequest(
          'record.create',
          json({
            query: 'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id data } } }',
            variables: { input: { modelId: chance(0.95) ? productModelId : randomString(), data } },
          }),
          (response) => {
            const record = response.status === 200 && !response.body.errors ? response.body.data?.record?.create : undefined;
            if (record) created.set(record.id, record.data);
          },
        );
      }
      case 8: {
        const ids = [...created.keys()];
        const id = ids.length > 0 && chance(0.8) ? pick(ids) : randomString();
        const data = productData();
        if (chance(0.3) && data !== null && typeof data === 'object') put(data, 'sku', null);
        return adminRequest(
          'record.patch',
          json({
            query: 'mutation($input: PatchModelRecordInput!) { record { patch(input: $input) { id data } } }',
            variables: { input: { id, data } },
          }),
          (response) => {
            const record = response.status === 200 && !response.body.errors ? response.body.data?.record?.patch : undefined;
            if (record) created.set(record.id, record.data);
          },
        );
      }
      case 9: {
        const rows = Array.from({ length: int(12) }, () => (chance(0.8) ? productData() : randomJson()));
        return adminRequest(
          'record.import',
          json({
            query:
              'mutation($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount errors { row message } } } }',
            variables: { input: { modelId: productModelId, rows } },
          }),
          (response) => {
            const result = response.status === 200 && !response.body.errors ? response.body.data?.record?.import : undefined;
            if (!result) return;
            const refused = new Set<number>(result.errors.map((error: { row: number }) => error.row));
            let accepted = 0;
            rows.forEach((row, index) => {
              if (refused.has(index + 1)) return;
              accepted += 1;
              // As the server received it (JSON: -0 arrives as 0).
              imported.set((row as { sku: string }).sku, JSON.parse(json(row)));
            });
            assert.equal(result.importedCount, accepted, 'importedCount = rows without an error');
          },
        );
      }
      case 10: {
        const variables = pollutionPayload();
        put(variables, 'input', { modelId: productModelId, data: pollutionPayload() });
        return adminRequest(
          'prototype pollution keys',
          json({
            query: 'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id data } } }',
            variables,
          }),
          (response) => {
            const record = response.status === 200 && !response.body.errors ? response.body.data?.record?.create : undefined;
            if (record) created.set(record.id, record.data);
          },
        );
      }
      case 11: {
        const target = chance(0.7)
          ? server.adminUrl
          : server.deliveryUrl(pick(['acme', 'nope', '%00', '..']), pick(['main', 'x']));
        const variables = chance(0.5) ? {} : randomJson(1);
        return {
          description: 'random document',
          url: target,
          headers: adminHeaders(),
          body: json({ query: randomDocument(), variables }),
        };
      }
      case 12: {
        const headers = pick<Record<string, string>>([
          { 'content-type': 'text/plain' },
          { 'content-type': 'application/x-www-form-urlencoded' },
          { 'content-type': 'application/json' },
          { 'content-type': 'application/json', authorization: 'Bearer nope', 'x-workspace-id': owner.workspaceId },
          { 'content-type': 'application/json', authorization: `Bearer ${owner.token}`, 'x-workspace-id': 'other' },
          { 'content-type': 'application/json', authorization: `Basic ${owner.token}` },
          adminHeaders(viewer),
        ]);
        const body = json({
          query: 'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }',
          variables: { input: { modelId: productModelId, data: { sku: `never-${skuCounter++}`, title: 'never' } } },
        });
        return { description: 'bad headers', url: server.adminUrl, headers, body };
      }
      default:
        return {
          description: 'delivery',
          url: server.deliveryUrl('acme', 'main'),
          headers: { 'content-type': 'application/json' },
          body: json({ query: chance(0.5) ? randomDocument() : '{ records(model: "x") { id } }', variables: randomJson(1) }),
        };
    }
  }

  const started = Date.now();
  for (let i = 0; i < REQUESTS; i++) {
    const fuzz = generate();
    counts.set(fuzz.description, (counts.get(fuzz.description) ?? 0) + 1);
    const response = await request(fuzz.url, { method: 'POST', headers: fuzz.headers, body: fuzz.body as RequestInit['body'] });
    const where = `request #${i} (${fuzz.description}, seed ${SEED}): ${response.status} ${response.text.slice(0, 300)}\nbody: ${String(fuzz.body).slice(0, 300)}`;
    assert.ok(ALLOWED_STATUS.has(response.status), `unexpected status, ${where}`);
    assert.ok(
      response.body !== null &&
        typeof response.body === 'object' &&
        (Array.isArray(response.body.errors) || 'data' in response.body),
      `not a JSON errors/data body, ${where}`,
    );
    assert.doesNotMatch(response.text, /\bat [^"]*\.js:\d/, `stack trace in the answer, ${where}`);
    assert.doesNotMatch(response.text, /SELECT |INSERT INTO|node_modules/, `internals in the answer, ${where}`);
    fuzz.track?.(response);
  }
  const elapsed = Date.now() - started;
  console.log(
    `# fuzz seed ${SEED}: ${REQUESTS} requests in ${elapsed} ms; ${created.size} records created, ${imported.size} imported`,
  );
  console.log(`# by kind: ${[...counts].map(([kind, n]) => `${kind} ${n}`).join(', ')}`);

  // Still up.
  const health = await request(`${server.url}/healthz`);
  assert.equal(health.status, 200, health.text);

  // Stored data = the acknowledged writes, nothing more, nothing less.
  const stored = await owner.listAll(productModelId);
  assert.equal(stored.length, created.size + imported.size, 'record count = acknowledged creates + imported rows');
  const storedById = new Map(stored.map((record) => [record.id, record.data]));
  for (const [id, data] of created) assert.deepEqual(storedById.get(id), data, `record ${id} as acknowledged`);
  const importedStored = stored.filter((record) => !created.has(record.id));
  const storedBySku = new Map(importedStored.map((record) => [record.data.sku, record.data]));
  for (const [sku, row] of imported) {
    const data = storedBySku.get(sku);
    assert.ok(data, `imported row ${sku} is stored`);
    for (const key of ['sku', 'title', 'price'] as const) {
      assert.deepEqual(data[key], (row as Record<string, unknown>)[key] ?? undefined, `imported ${sku}.${key}`);
    }
  }

  // No prototype pollution server-side: a plain model, record and list behave exactly as on a fresh server.
  const model = await owner.createSimpleModel();
  const record = await owner.createRecord(model.id, { title: 'after the fuzz' });
  assert.deepEqual(record.data, { title: 'after the fuzz' });
  const list = await owner.list(model.id);
  assert.equal(list.total, 1);
  assert.deepEqual(
    list.items.map((item) => item.data),
    [{ title: 'after the fuzz' }],
  );
  const refused = await viewer.createRecordRaw(model.id, { title: 'viewer may not' });
  assert.equal(refused.status, 403, refused.text);
  assert.equal(await owner.total(model.id), 1);
  const noToken = await request(server.adminUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: json({ query: '{ model { list { id } } }' }),
  });
  assert.equal(noToken.status, 401, noToken.text);
});
