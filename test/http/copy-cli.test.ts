// content-service copy: a store with every field type, relations, two workspaces, users, tokens, a password, a
// session and a webhook, copied SQLite → PostgreSQL → SQLite by the CLI; a server on each copy answers every read as
// the original did, and the old token and password work. A copy stopped half way resumes with no record twice and
// none missing (test/store/copy-resume.test.ts); a non-empty target, the same database, an unknown URL and an unreachable
// database are refused.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { copyStore } from '../../src/store/copy/copy-store.js';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import { Admin, bootstrapAdmin, gql, dataOf, uniqueSlug, type Credentials } from '../support/client.js';
import { dropSchemaOf, freshPostgresUrl, postgresTarget } from '../support/databases.js';
import { runCli, startServer, type TestServer } from '../support/server.js';
import { setPassword, signIn, signInRaw } from '../support/session.js';

const PASSWORD = 'correct horse battery staple';
const pgTarget = await postgresTarget();
const skip = 'failure' in pgTarget ? undefined : pgTarget.skip;
if ('failure' in pgTarget) throw new Error(pgTarget.failure);

const dir = mkdtempSync(join(tmpdir(), 'cs-copy-'));
const sourceUrl = `sqlite:${join(dir, 'source.db')}`;
const schemas: string[] = [];
let owner: Admin;
let other: Admin;
let editor: Credentials;
let models: any[] = [];
let original: unknown;
/** A patched record and a deleted one: their histories are copied too. */
let withHistory: string[] = [];
/** Records of a drafts model: one published then changed, one a draft with a schedule pending. */
let drafted: string[] = [];

function pgUrl(purpose: string): string {
  const url = freshPostgresUrl(process.env.DATABASE_URL!, `copy_${purpose}`);
  schemas.push(url);
  return url;
}

const RECORD = 'id modelId workspaceId data createdAt updatedAt createdBy updatedBy';
const MODEL =
  'id workspaceId name slug description icon color displayField deliveryAccess recordCount createdAt updatedAt ' +
  'product { enabled skuField priceField } fields { key label type required indexed relationTo relationType fields { key type } }';

/** Everything the admin route answers to these credentials (models, every record of each, one by one too). */
async function reads(server: TestServer, credentials: Credentials, manager = true): Promise<unknown> {
  const ask = async (query: string, variables?: Record<string, unknown>) =>
    dataOf(await gql(server.adminUrl, credentials, query, variables));
  const workspace = (await ask('{ workspace { current { id slug orgSlug defaultLocale writeBudget role } } }')).workspace.current;
  const modelList = (await ask(`{ model { list { ${MODEL} } } }`)).model.list;
  const records: Record<string, unknown> = {};
  for (const model of modelList) {
    const list = await ask(
      `query($modelId: ID!) { record { list(modelId: $modelId, limit: 1000) { total items { ${RECORD} } } } }`,
      { modelId: model.id },
    );
    const filtered = await ask(
      `query($modelId: ID!) { record { list(modelId: $modelId, limit: 5, sort: "updatedAt_desc") { total items { id } } } }`,
      { modelId: model.id },
    );
    records[model.slug] = { list: list.record.list, newest: filtered.record.list };
    const first = list.record.list.items[0];
    if (first)
      records[`${model.slug}:get`] = (
        await ask(`query($id: ID!) { record { get(id: $id) { ${RECORD} } } }`, { id: first.id })
      ).record.get;
  }
  if (!manager) return { workspace, modelList, records };
  const tokens = (await ask('{ token { list { id name userEmail role createdAt expiresAt revokedAt } } }')).token.list;
  const webhooks = (await ask('{ webhook { list { id url events modelIds description active createdAt updatedAt } } }')).webhook
    .list;
  return { workspace, modelList, records, tokens, webhooks };
}

const HISTORY = 'query($id: ID!) { record { history(id: $id) { total items { revision operation data createdAt createdBy } } } }';

const PUBLISHED_COPY =
  'query($id: ID!) { record { get(id: $id, published: true) { id data status revision publishedRevision publishedAt } } }';
const SCHEDULES = '{ record { schedules { total items { id action at ids status error createdAt createdBy doneAt } } } }';

async function allReads(server: TestServer): Promise<unknown> {
  const histories = [];
  for (const id of withHistory) histories.push(dataOf(await gql(server.adminUrl, owner.credentials, HISTORY, { id })));
  const publishedCopies = [];
  for (const id of drafted) publishedCopies.push(dataOf(await gql(server.adminUrl, owner.credentials, PUBLISHED_COPY, { id })));
  return {
    histories,
    publishedCopies,
    schedules: dataOf(await gql(server.adminUrl, owner.credentials, SCHEDULES)),
    owner: await reads(server, owner.credentials),
    other: await reads(server, other.credentials),
    editor: await reads(server, editor, false),
  };
}

before(async () => {
  const server = await startServer({ databaseUrl: sourceUrl, extraArgs: ['--webhook-allow-private'] });
  try {
    owner = await bootstrapAdmin(server, { org: 'acme', workspace: 'main', email: 'owner@acme.test', role: 'owner' });
    other = await bootstrapAdmin(server, { org: 'beta', workspace: 'shop', email: 'other@beta.test', role: 'owner' });
    const created = await server.createToken({ workspaceId: owner.workspaceId, email: 'editor@acme.test', role: 'editor' });
    editor = { token: created.token, workspaceId: owner.workspaceId };
    await setPassword(server, 'owner@acme.test', PASSWORD);
    await signIn(server, 'owner@acme.test', PASSWORD);
    await owner.ok('mutation { workspace { update(input: { defaultLocale: "de" }) { id } } }');

    const supplier = await owner.createModel({
      slug: uniqueSlug('supplier'),
      displayField: 'name',
      fields: [
        { key: 'name', type: 'text', required: true, indexed: true },
        { key: 'rating', type: 'number', indexed: true },
        { key: 'active', type: 'boolean' },
        { key: 'since', type: 'date' },
        {
          key: 'address',
          type: 'object',
          fields: [
            { key: 'city', type: 'text' },
            { key: 'zip', type: 'text' },
          ],
        },
      ],
    });
    const category = await owner.createModel({
      slug: uniqueSlug('category'),
      fields: [
        { key: 'title', type: 'translatable' },
        { key: 'supplier', type: 'relation', relationTo: `model:${supplier.slug}`, indexed: true },
      ],
    });
    const product = await owner.createModel({
      slug: uniqueSlug('product'),
      displayField: 'title',
      fields: [
        { key: 'sku', type: 'text', required: true },
        { key: 'title', type: 'text', required: true },
        { key: 'price', type: 'number', indexed: true },
        { key: 'categories', type: 'relation', relationTo: `model:${category.slug}`, relationType: 'hasMany' },
      ],
      product: { enabled: true, skuField: 'sku', priceField: 'price' },
    });
    const s1 = await owner.createRecord(supplier.id, {
      name: 'Zebra & Co "quoted" ünïcödé',
      rating: 4.5,
      active: true,
      since: '2024-02-29',
      address: { city: 'Kraków', zip: '30-001' },
    });
    const s2 = await owner.createRecord(supplier.id, { name: 'Apex', rating: -1e-7, active: false });
    const c1 = await owner.createRecord(category.id, { title: { en: 'Shoes', de: 'Schuhe' }, supplier: s1.id });
    const c2 = await owner.createRecord(category.id, { title: { fr: 'Chapeaux' }, supplier: s2.id });
    const p1 = await owner.createRecord(product.id, { sku: 'P-1', title: 'Ball', price: 10, categories: [c2.id, c1.id] });
    await owner.createRecord(product.id, { sku: 'P-2', title: 'Racket', price: 99.99, categories: [] });
    await owner.patchRaw(p1.id, { price: 12.5 });
    const doomed = await owner.createRecord(product.id, { sku: 'P-3', title: 'Gone' });
    await owner.deleteRaw(doomed.id);
    withHistory = [p1.id, doomed.id];
    const page = await owner.createModel({
      slug: uniqueSlug('page'),
      drafts: true,
      deliveryAccess: 'public',
      fields: [{ key: 'title', type: 'text', required: true, indexed: true }],
    });
    const live = await owner.createRecord(page.id, { title: 'Live' });
    const draft = await owner.createRecord(page.id, { title: 'Draft' });
    await owner.ok('mutation($ids: [ID!]!) { record { publish(ids: $ids) { unpublishedTargets } } }', { ids: [live.id] });
    await owner.patchRaw(live.id, { title: 'Live, edited' });
    await owner.ok('mutation($input: ScheduleInput!) { record { schedule(input: $input) { id } } }', {
      input: { ids: [draft.id], action: 'publish', at: new Date(Date.now() + 365 * 86_400_000).toISOString() },
    });
    drafted = [live.id, draft.id];
    const bulk = await owner.createSimpleModel();
    const rows = Array.from({ length: 600 }, (_, index) => ({
      title: `row ${index}`,
      note: index % 3 === 0 ? null : `n${index}`,
    }));
    const imported = await owner.importRows(bulk.id, rows);
    assert.equal(imported.importedCount, 600);
    await owner.ok('mutation($input: CreateWebhookInput!) { webhook { create(input: $input) { secret } } }', {
      input: { url: 'http://127.0.0.1:9/hook', events: ['record.created'], active: false, description: 'kept' },
    });
    const news = await other.createModel({ slug: 'news', fields: [{ key: 'headline', type: 'translatable', required: true }] });
    await other.createRecord(news.id, { headline: { en: 'Hello', pl: 'Cześć' } });
    models = [supplier, category, product, bulk, news, page];
    original = await allReads(server);
    const histories = (original as { histories: { record: { history: { total: number } } }[] }).histories;
    assert.deepEqual(
      histories.map((answer) => answer.record.history.total),
      [2, 2],
      'the patched and the deleted record have two revisions each',
    );
    const copies = (original as { publishedCopies: { record: { get: { data: unknown; status: string } | null } }[] })
      .publishedCopies;
    assert.deepEqual(
      copies.map((answer) => answer.record.get && [answer.record.get.status, answer.record.get.data]),
      [['published', { title: 'Live' }], null],
      'a published copy behind a changed working copy, and a draft without one',
    );
  } finally {
    await server.stop();
  }
});

after(async () => {
  if (!skip) for (const url of schemas) await dropSchemaOf(url);
  rmSync(dir, { recursive: true, force: true });
});

/** The webhook secrets, password hashes and token hashes, straight from a database. */
async function secretsOf(url: string): Promise<unknown> {
  const sql = [
    'SELECT id, secret FROM webhooks ORDER BY id',
    'SELECT id, password_hash FROM users ORDER BY id',
    'SELECT id, token_hash, expires_at, last_used_at FROM api_tokens ORDER BY id',
  ];
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      return sql.map((text) => db.prepare(text).all());
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: parsePostgresUrl(url).connectionString });
  await client.connect();
  try {
    const answers = [];
    for (const text of sql) {
      const { rows } = await client.query(text);
      answers.push(
        rows.map((row) =>
          Object.fromEntries(
            Object.entries(row).map(([key, value]) => [key, /_at$/.test(key) && value !== null ? Number(value) : value]),
          ),
        ),
      );
    }
    return answers;
  } finally {
    await client.end();
  }
}

describe('copy', { skip }, () => {
  const pgCopy = () => schemas[0]!;
  const backUrl = `sqlite:${join(dir, 'back.db')}`;

  test('copy: SQLite → PostgreSQL → SQLite, verified, and a server on each copy answers as the original', async () => {
    const toPg = await runCli(['copy', '--from', sourceUrl, '--to', pgUrl('main')], { timeoutMs: 60_000 });
    assert.equal(toPg.code, 0, `${toPg.stdout}\n${toPg.stderr}`);
    assert.match(toPg.stdout, /counts and checksums match/);
    assert.match(toPg.stdout, /^records +\d+ → +\d+ +ok$/m);
    assert.match(toPg.stderr, /copy [\d.]+ s: records: \d+ rows/, 'a line per phase when stderr is not a terminal');
    const back = await runCli(['copy', '--from', pgCopy(), '--to', backUrl], { timeoutMs: 60_000 });
    assert.equal(back.code, 0, `${back.stdout}\n${back.stderr}`);

    const secrets = await secretsOf(sourceUrl);
    assert.deepEqual(await secretsOf(pgCopy()), secrets, 'webhook secrets, password and token hashes on PostgreSQL');
    assert.deepEqual(await secretsOf(backUrl), secrets, 'and back on SQLite');

    for (const url of [pgCopy(), backUrl]) {
      const server = await startServer({ databaseUrl: url });
      try {
        assert.deepEqual(await allReads(server), original, `reads on ${url.split(':')[0]}`);
        const session = await signIn(server, 'owner@acme.test', PASSWORD);
        assert.ok(session.sessionId, 'the old password signs in');
        assert.equal((await signInRaw(server, { email: 'owner@acme.test', password: 'wrong' })).status, 401);
        const written = await gql(
          server.adminUrl,
          owner.credentials,
          'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }',
          {
            input: { modelId: models[3].id, data: { title: 'after the move' } },
          },
        );
        assert.ok(dataOf(written).record.create.id, 'the copy takes writes');
        const filtered = await gql(
          server.adminUrl,
          owner.credentials,
          'query($m: ID!, $f: JSON) { record { list(modelId: $m, filter: $f) { total } } }',
          { m: models[2].id, f: { price: { $gt: 11 } } },
        );
        assert.equal(dataOf(filtered).record.list.total, 2, 'the indexed filter answers on the copy');
      } finally {
        await server.dispose();
      }
    }
  });

  test('copy: into a non-empty target, onto itself, from an unknown URL or an unreachable database: refused', async () => {
    const full = await runCli(['copy', '--from', sourceUrl, '--to', pgCopy()]);
    assert.equal(full.code, 2, full.stderr);
    assert.match(full.stderr, /is not empty \(2 organisations, 2 workspaces, 3 users/);
    const resumed = await runCli(['copy', '--from', sourceUrl, '--to', pgCopy(), '--resume']);
    assert.equal(resumed.code, 2, resumed.stderr);
    assert.match(resumed.stderr, /--resume continues only a copy that this command started/);

    const refusal = (from: string, to: string) => copyStore({ from, to, resume: false });
    await assert.rejects(refusal(sourceUrl, `sqlite:${dir}/../${dir.split('/').pop()}/source.db`), {
      name: 'CopyRefusal',
      message: /--from and --to are the same database/,
    });
    await assert.rejects(refusal('mysql://localhost/content', `sqlite:${dir}/x.db`), {
      name: 'CopyRefusal',
      message: /--from: unsupported database URL "mysql:\/\/localhost\/content"/,
    });
    await assert.rejects(refusal(sourceUrl, 'sqlite::memory:'), { name: 'CopyRefusal', message: /in-memory/ });
    await assert.rejects(refusal(`sqlite:${dir}/nothing.db`, `sqlite:${dir}/y.db`), {
      name: 'Error',
      message: /source: no SQLite database at/,
    });
    assert.equal(existsSync(join(dir, 'y.db')), false, 'no target made for a missing source');

    const unreachable = await runCli(['copy', '--from', sourceUrl, '--to', 'postgres://nobody@127.0.0.1:1/none']);
    assert.equal(unreachable.code, 1, unreachable.stderr);
    assert.match(
      unreachable.stderr,
      /target: cannot reach PostgreSQL at postgres:\/\/127\.0\.0\.1:1\/none: connect ECONNREFUSED/,
    );
  });
});
