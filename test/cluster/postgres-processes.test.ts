// Several server processes on one PostgreSQL: patches stay atomic, SKUs unique, the write budget is shared,
// and a process killed mid-traffic loses no acknowledged write.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dataOf, gql, type Credentials } from '../support/client.js';
import { postgresTarget, type Target } from '../support/databases.js';
import { runCli, startServer, type TestServer } from '../support/server.js';

const postgres = await postgresTarget();
if ('failure' in postgres) {
  test('PostgreSQL cluster (CI=true requires PostgreSQL)', () => assert.fail(postgres.failure));
}
const skip = 'failure' in postgres ? postgres.failure : postgres.skip;

const CREATE_MODEL = `mutation($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }`;
const CREATE_RECORD = `mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }`;
const PATCH_RECORD = `mutation($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }`;
const UPDATE_MODEL = `mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id } } }`;
const PUBLIC_RECORDS = `query($slug: String!) { public { model { records(modelSlug: $slug) { total items { id data } } } } }`;
const LIST = `query($modelId: ID!, $offset: Int) { record { list(modelId: $modelId, limit: 100, offset: $offset) { total hasMore items { id data } } } }`;

async function bootstrap(databaseUrl: string, workspace: string): Promise<Credentials> {
  const result = await runCli(['bootstrap', '--org', 'acme', '--workspace', workspace, '--json', '--database', databaseUrl]);
  assert.equal(result.code, 0, result.stderr);
  const { token, workspaceId } = JSON.parse(result.stdout) as { token: string; workspaceId: string };
  return { token, workspaceId };
}

async function createModel(server: TestServer, credentials: Credentials, input: Record<string, unknown>): Promise<string> {
  return dataOf(await gql(server.adminUrl, credentials, CREATE_MODEL, { input })).model.create.id;
}

async function allRecords(server: TestServer, credentials: Credentials, modelId: string) {
  const items: { id: string; data: Record<string, unknown> }[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = dataOf(await gql(server.adminUrl, credentials, LIST, { modelId, offset })).record.list;
    items.push(...page.items);
    if (!page.hasMore) return items;
  }
}

describe('three server processes on one PostgreSQL', { skip }, () => {
  let databaseUrl: string;
  let servers: TestServer[] = [];

  before(async () => {
    databaseUrl = (postgres as Target).url('cluster');
    await bootstrap(databaseUrl, 'warmup');
    servers = await Promise.all([0, 1, 2].map(() => startServer({ process: true, databaseUrl, writeBudget: 100 })));
  });

  after(async () => {
    await Promise.all(servers.map((server) => server.dispose()));
    await (postgres as Target).cleanup();
  });

  test('concurrent patches of different fields, sent to different processes, all land', async () => {
    const credentials = await bootstrap(databaseUrl, 'patches');
    const fields = Array.from({ length: 20 }, (_, index) => ({ key: `f${index}`, type: 'number' }));
    const modelId = await createModel(servers[0]!, credentials, { name: 'Counters', slug: 'counters', fields });
    const created = await gql(servers[0]!.adminUrl, credentials, CREATE_RECORD, { input: { modelId, data: {} } });
    const id = dataOf(created).record.create.id;
    const responses = await Promise.all(
      fields.map((field, index) =>
        gql(servers[index % 3]!.adminUrl, credentials, PATCH_RECORD, { input: { id, data: { [field.key]: index } } }),
      ),
    );
    responses.forEach((response) => dataOf(response));
    const [record] = await allRecords(servers[1]!, credentials, modelId);
    assert.deepEqual(record!.data, Object.fromEntries(fields.map((field, index) => [field.key, index])));
  });

  test('two processes racing one SKU: exactly one wins', async () => {
    const credentials = await bootstrap(databaseUrl, 'skus');
    const modelId = await createModel(servers[0]!, credentials, {
      name: 'Product',
      slug: 'product',
      product: { enabled: true, skuField: 'sku' },
      fields: [{ key: 'sku', type: 'text', required: true }],
    });
    for (let round = 0; round < 5; round++) {
      const responses = await Promise.all(
        [0, 1, 2].map((index) =>
          gql(servers[index]!.adminUrl, credentials, CREATE_RECORD, { input: { modelId, data: { sku: `RACE-${round}` } } }),
        ),
      );
      const winners = responses.filter((response) => response.body?.data?.record?.create?.id);
      const conflicts = responses.filter((response) => response.body?.errors?.[0]?.extensions?.code === 'CONFLICT');
      assert.equal(winners.length, 1, `round ${round}: ${responses.map((response) => response.text).join('\n')}`);
      assert.equal(conflicts.length, 2);
      assert.equal(conflicts[0]!.body.errors[0].message, 'sku: A record with this SKU already exists');
    }
    assert.equal((await allRecords(servers[2]!, credentials, modelId)).length, 5);
  });

  test('one budget for all processes: with 100 per minute at most 100 writes are accepted, the rest get 429', async () => {
    const credentials = await bootstrap(databaseUrl, 'budget');
    const modelId = await createModel(servers[0]!, credentials, {
      name: 'Note',
      slug: 'note',
      fields: [{ key: 'n', type: 'number' }],
    });
    const responses = await Promise.all(
      Array.from({ length: 150 }, (_, index) =>
        gql(servers[index % 3]!.adminUrl, credentials, CREATE_RECORD, { input: { modelId, data: { n: index } } }),
      ),
    );
    const accepted = responses.filter((response) => response.status === 200);
    const limited = responses.filter((response) => response.status === 429);
    assert.equal(accepted.length, 100);
    assert.equal(limited.length, 50);
    for (const response of limited) {
      const retryAfter = Number(response.headers.get('retry-after'));
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(response.body.errors[0].extensions.code, 'RATE_LIMITED');
    }
    assert.equal((await allRecords(servers[0]!, credentials, modelId)).length, 100);
  });

  test('the next read in another process sees what one process changed: records, total, the model, a revoked token', async () => {
    const credentials = await bootstrap(databaseUrl, 'visibility');
    const [writer, reader] = [servers[0]!, servers[1]!];
    const modelId = await createModel(writer, credentials, {
      name: 'Page',
      slug: 'page',
      deliveryAccess: 'public',
      fields: [
        { key: 'title', type: 'text' },
        { key: 'note', type: 'text' },
      ],
    });
    const list = async () => dataOf(await gql(reader.adminUrl, credentials, LIST, { modelId, offset: 0 })).record.list;
    const delivered = () => gql(reader.deliveryUrl('acme', 'visibility'), {}, PUBLIC_RECORDS, { slug: 'page' });
    assert.equal((await list()).total, 0);
    assert.equal(dataOf(await delivered()).public.model.records.total, 0);
    for (let n = 1; n <= 3; n++) {
      dataOf(await gql(writer.adminUrl, credentials, CREATE_RECORD, { input: { modelId, data: { title: `t${n}`, note: 'x' } } }));
      const page = await list();
      assert.equal(page.total, n);
      assert.deepEqual(
        page.items.map((item: { data: { title: string } }) => item.data.title),
        Array.from({ length: n }, (_, index) => `t${index + 1}`),
      );
      assert.equal(dataOf(await delivered()).public.model.records.items.length, n);
    }

    dataOf(await gql(writer.adminUrl, credentials, UPDATE_MODEL, { input: { id: modelId, deliveryAccess: 'none' } }));
    assert.equal((await delivered()).body.errors?.[0]?.extensions?.code, 'NOT_FOUND');
    const removeNote = { id: modelId, deliveryAccess: 'public', fields: [{ key: 'title', type: 'text' }] };
    dataOf(await gql(writer.adminUrl, credentials, UPDATE_MODEL, { input: removeNote }));
    assert.deepEqual(dataOf(await delivered()).public.model.records.items[0].data, { title: 't1' });
    assert.deepEqual((await list()).items[0].data, { title: 't1' });

    const revoked = await runCli(['token', 'revoke', '--token', credentials.token!, '--database', databaseUrl]);
    assert.equal(revoked.code, 0, revoked.stderr);
    const refused = await gql(reader.adminUrl, credentials, LIST, { modelId, offset: 0 });
    assert.equal(refused.status, 401, refused.text);
  });

  test('killing one process mid-traffic loses no acknowledged write', async () => {
    const credentials = await bootstrap(databaseUrl, 'crash');
    const budget = await runCli([
      'workspace',
      'set-budget',
      '--workspace-id',
      credentials.workspaceId!,
      '--budget',
      '100000',
      '--database',
      databaseUrl,
    ]);
    assert.equal(budget.code, 0, budget.stderr);
    const modelId = await createModel(servers[0]!, credentials, {
      name: 'Event',
      slug: 'event',
      fields: [{ key: 'n', type: 'number' }],
    });
    const victim = await startServer({ process: true, databaseUrl, writeBudget: 100 });
    const targets = [servers[0]!, servers[1]!, victim];
    const acknowledged: string[] = [];
    let failures = 0;
    let sent = 0;
    const deadline = Date.now() + 3000;
    const worker = async (lane: number) => {
      while (Date.now() < deadline) {
        const server = targets[(sent++ + lane) % targets.length]!;
        try {
          const response = await gql(server.adminUrl, credentials, CREATE_RECORD, { input: { modelId, data: { n: sent } } });
          const id = response.body?.data?.record?.create?.id;
          if (response.status === 200 && id) acknowledged.push(id);
          else failures++;
        } catch {
          failures++;
        }
      }
    };
    const traffic = Promise.all([0, 1, 2, 3, 4, 5].map(worker));
    // Killed once writes are flowing (not after a fixed time: a loaded machine is slower), and while the traffic has
    // time left to meet the dead process.
    while (acknowledged.length < 30 && Date.now() < deadline - 1500) await new Promise((resolve) => setTimeout(resolve, 20));
    victim.kill();
    await traffic;
    await victim.dispose();
    // Enough traffic to have writes in flight when the process dies; a loaded machine makes a few dozen in the 3 s.
    assert.ok(acknowledged.length > 10, `only ${acknowledged.length} writes acknowledged`);
    assert.ok(failures > 0, 'the killed process should have refused some requests');
    const stored = new Set((await allRecords(servers[0]!, credentials, modelId)).map((record) => record.id));
    const lost = acknowledged.filter((id) => !stored.has(id));
    assert.deepEqual(lost, [], `${lost.length} acknowledged writes lost`);
  });
});
