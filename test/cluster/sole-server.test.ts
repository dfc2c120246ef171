// A server that is the only process on its PostgreSQL schema keeps the content versions it reads and answers
// revalidations from them (sole-server.ts, kept-reads.ts). Exactness: its own writes, a process that joins to
// write, and a second server each move the tag of the very next revalidation; it says in its log when it starts and
// stops keeping them, and starts again once the others have left.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import { Admin, request, uniqueSlug, type GqlResponse } from '../support/client.js';
import { postgresTarget, type Target } from '../support/databases.js';
import { execDirect } from '../support/direct-sql.js';
import { bootstrapArgs, runCli, startServer, type BootstrapResult, type TestServer } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';

const postgres = await postgresTarget();
if ('failure' in postgres) {
  test('sole server (CI=true requires PostgreSQL)', () => assert.fail(postgres.failure));
}
const skip = 'failure' in postgres ? postgres.failure : postgres.skip;

describe('PostgreSQL: the sole server keeps content versions, exactly', { skip }, () => {
  let server: TestServer;
  let owner: Admin;
  let shelf: { id: string; slug: string };
  let pageUrl: string;

  before(async () => {
    server = await startServer({ process: true, databaseUrl: (postgres as Target).url('sole') });
    owner = await bootstrapByCli(server);
    shelf = await owner.createSimpleModel({ slug: uniqueSlug('shelf'), deliveryAccess: 'public' });
    await owner.importRows(shelf.id, [{ title: 'first' }, { title: 'second' }]);
    const query = `{ public { model { records(modelSlug: "${shelf.slug}", limit: 10) { total items { id } } } } }`;
    pageUrl = `${server.deliveryUrl('acme', 'main')}?${new URLSearchParams({ query })}`;
  });

  after(async () => {
    await server?.dispose();
    if (!('failure' in postgres)) await postgres.cleanup();
  });

  /**
   * The CLI's bootstrap, a process of its own that leaves (the harness's in-process setup store would stay open, and
   * the server would never be the only process).
   */
  async function bootstrapByCli(of: TestServer): Promise<Admin> {
    const result = await runCli(bootstrapArgs({ org: 'acme', workspace: 'main', email: 'owner@acme.test' }, of.databaseUrl));
    assert.equal(result.code, 0, result.stderr);
    const { token, workspaceId } = JSON.parse(result.stdout.trim()) as BootstrapResult;
    return new Admin(of, { token, workspaceId });
  }

  /** The server's log lines that say whether it is the only process, in order. */
  function soleStates(of: TestServer = server): boolean[] {
    return of.stdout
      .split('\n')
      .filter((line) => line.includes('"soleServer":'))
      .map((line) => (JSON.parse(line) as { soleServer: boolean }).soleServer);
  }

  async function untilSole(): Promise<number> {
    await waitFor(() => soleStates().at(-1) === true, { timeoutMs: 15_000, message: 'the server says it is the only process' });
    return soleStates().length;
  }

  function page(etag?: string): Promise<GqlResponse> {
    return request(pageUrl, { headers: { accept: 'application/json', ...(etag ? { 'if-none-match': etag } : {}) } });
  }

  async function currentTag(): Promise<string> {
    const answer = await page();
    assert.equal(answer.status, 200, answer.text);
    const etag = answer.headers.get('etag');
    assert.ok(etag);
    // Answered from the version the server keeps (a URL it knows): 304.
    assert.equal((await page(etag)).status, 304);
    assert.equal((await page(etag)).status, 304);
    return etag;
  }

  test('sole server: its own writes move the tag of the next revalidation, while it stays the only process', async () => {
    for (let round = 0; round < 3; round++) {
      const states = await untilSole();
      const etag = await currentTag();
      await owner.createRecord(shelf.id, { title: `own write ${round}` });
      const after = await page(etag);
      assert.equal(after.status, 200, `round ${round}: ${after.status}`);
      assert.notEqual(after.headers.get('etag'), etag);
      assert.equal(soleStates().length, states, 'still the only process: the write itself made the kept version stale');
    }
  });

  test('sole server: every kind of write through it moves the tag of the next revalidation', async () => {
    const states = await untilSole();
    const records = (await owner.list(shelf.id)).items;
    const update = 'mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id } } }';
    const workspace = 'mutation($input: UpdateWorkspaceInput!) { workspace { update(input: $input) { defaultLocale } } }';
    let created: { id: string } | undefined;
    const writes: [string, () => Promise<unknown>][] = [
      ['record.create', () => owner.createRecord(shelf.id, { title: 'new' })],
      ['record.import', () => owner.importRows(shelf.id, [{ title: 'imported' }])],
      ['record.patch', () => owner.patchRaw(records[0]!.id, { title: 'patched' })],
      ['record.update', () => owner.updateRaw(records[1]!.id, { title: 'updated' })],
      ['record.delete', () => owner.deleteRaw(records[2]!.id)],
      ['model.update', () => owner.ok(update, { input: { id: shelf.id, name: 'Bookshelf' } })],
      ['workspace.update', () => owner.ok(workspace, { input: { defaultLocale: 'de' } })],
      ['model.create', async () => (created = await owner.createSimpleModel({ deliveryAccess: 'public' }))],
      ['model.delete', () => owner.ok('mutation($id: ID!) { model { delete(id: $id) { deleted } } }', { id: created!.id })],
    ];
    for (const [what, write] of writes) {
      const etag = await currentTag();
      await write();
      const after = await page(etag);
      assert.equal(after.status, 200, `${what}: ${after.status} ${after.text}`);
      assert.notEqual(after.headers.get('etag'), etag, what);
    }
    assert.equal(soleStates().length, states, 'the server stayed the only process throughout');
  });

  test('sole server: a process that joins to write (a CLI, a script) makes it stop keeping versions before it writes', async () => {
    for (let round = 0; round < 3; round++) {
      const states = await untilSole();
      const etag = await currentTag();
      await execDirect(server.databaseUrl, `UPDATE models SET content_version = content_version + 1 WHERE id = '${shelf.id}'`);
      assert.equal(soleStates()[states], false, `round ${round}: the server gave way before the write`);
      const after = await page(etag);
      assert.equal(after.status, 200, `round ${round}: ${after.status} ${after.text}`);
      assert.notEqual(after.headers.get('etag'), etag);
    }
  });

  test('sole server: when its lock connection is cut, it stops keeping versions at once, joins again and becomes sole again', async () => {
    const states = await untilSole();
    const etag = await currentTag();
    const admin = new pg.Client({ connectionString: parsePostgresUrl(server.databaseUrl).connectionString });
    await admin.connect();
    try {
      // The session that holds this schema's writers' lock exclusively: the server's lock connection. (Servers of
      // other suites, on other schemas, hold their own schema's lock.)
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND mode = 'ExclusiveLock' AND granted
           AND objid::bigint = (hashtext($2)::bigint + 4294967296) % 4294967296`,
        [0x43530004, parsePostgresUrl(server.databaseUrl).schema],
      );
      assert.equal(rows.length, 1, 'one session holds the lock exclusively');
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    } finally {
      await admin.end();
    }
    await waitFor(() => soleStates()[states] === false, { timeoutMs: 5000, message: 'the server says it stopped' });
    await owner.createRecord(shelf.id, { title: 'while it joined again' });
    const after = await page(etag);
    assert.equal(after.status, 200, `${after.status} ${after.text}`);
    await waitFor(() => soleStates().length > states + 1 && soleStates().at(-1) === true, {
      timeoutMs: 15_000,
      message: 'the server becomes sole again on a new connection',
    });
    assert.equal((await page(after.headers.get('etag')!)).status, 304);
  });

  test('sole server: a second server makes the first read versions again; when it stops, the first keeps them again', async () => {
    const states = await untilSole();
    const etag = await currentTag();
    const second = await startServer({ process: true, dir: server.dir, databaseUrl: server.databaseUrl });
    try {
      assert.equal(soleStates()[states], false, 'the first gave way to the second');
      const secondOwner = await bootstrapByCli(second);
      await secondOwner.createRecord(shelf.id, { title: 'through the second server' });
      const after = await page(etag);
      assert.equal(after.status, 200, `${after.status} ${after.text}`);
      assert.ok(!soleStates(second).includes(true), 'neither server is the only one while both run');
    } finally {
      await second.stop();
    }
    await untilSole();
  });

  test('sole server: a kept token stops working on the very next request once revoked, through it or by a process that joins', async () => {
    const create = 'mutation($input: CreateApiTokenInput!) { token { create(input: $input) { token apiToken { id } } } }';
    const newToken = async (name: string) => {
      const created = (await owner.ok(create, { input: { name } })).token.create as { token: string; apiToken: { id: string } };
      return { id: created.apiToken.id, client: new Admin(server, { token: created.token, workspaceId: owner.workspaceId }) };
    };
    const READ = '{ workspace { current { defaultLocale } } }';
    const readWith = async (client: Admin) => (await client.q(READ)).body.errors?.[0]?.extensions?.code ?? 'OK';

    const throughServer = await newToken('revoked through the server');
    const states = await untilSole();
    for (let n = 0; n < 3; n++) assert.equal(await readWith(throughServer.client), 'OK');
    await owner.ok('mutation($id: ID!) { token { revoke(id: $id) { deleted } } }', { id: throughServer.id });
    assert.equal(await readWith(throughServer.client), 'UNAUTHENTICATED');
    assert.equal(soleStates().length, states, 'still the only process: the revocation itself dropped the kept token');

    const byCli = await newToken('revoked by the CLI');
    await untilSole();
    for (let n = 0; n < 3; n++) assert.equal(await readWith(byCli.client), 'OK');
    const revoked = await runCli(['token', 'revoke', '--token-id', byCli.id, '--database', server.databaseUrl]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(await readWith(byCli.client), 'UNAUTHENTICATED');
  });

  test('sole server: a kept model definition or list is the current one on the very next read, after a change through it or by SQL', async () => {
    const model = await owner.createSimpleModel({ slug: uniqueSlug('kept'), deliveryAccess: 'public' });
    const byId = async () =>
      (await owner.ok('query($id: ID!) { model { get(id: $id) { name } } }', { id: model.id })).model.get.name;
    const inList = async () =>
      (await owner.ok('{ model { list { id name } } }')).model.list.find((listed: { id: string }) => listed.id === model.id)
        ?.name;
    for (const read of [byId, inList]) {
      const name = `${read.name} renamed`;
      await untilSole();
      for (let n = 0; n < 3; n++) await read();
      await owner.ok('mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id } } }', {
        input: { id: model.id, name: `${name} through the server` },
      });
      assert.equal(await read(), `${name} through the server`);
      await untilSole();
      for (let n = 0; n < 3; n++) await read();
      await execDirect(server.databaseUrl, `UPDATE models SET name = '${name} by SQL' WHERE id = '${model.id}'`);
      assert.equal(await read(), `${name} by SQL`);
    }
  });

  test('sole server: a target populate kept is the current one on the very next read, after a change through it or by SQL', async () => {
    const category = await owner.createSimpleModel({ slug: uniqueSlug('category'), deliveryAccess: 'public' });
    const product = await owner.createModel({
      slug: uniqueSlug('product'),
      name: 'Product',
      displayField: 'title',
      deliveryAccess: 'public',
      fields: [
        { key: 'title', label: 'Title', type: 'text', required: true },
        { key: 'category', label: 'Category', type: 'relation', relationTo: `model:${category.slug}` },
      ],
    });
    const target = await owner.createRecord(category.id, { title: 'Shoes' });
    await owner.createRecord(product.id, { title: 'Runner', category: target.id });
    const query = `{ public { model { records(modelSlug: "${product.slug}", populate: ["category"]) { items { data } } } } }`;
    const read = async () => {
      const answer = await request(server.deliveryUrl('acme', 'main'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      assert.equal(answer.status, 200, answer.text);
      return answer.body.data.public.model.records.items[0].data.category.data.title as string;
    };
    await untilSole();
    for (let n = 0; n < 3; n++) assert.equal(await read(), 'Shoes');
    await owner.ok('mutation($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }', {
      input: { id: target.id, data: { title: 'Shoes through the server' } },
    });
    assert.equal(await read(), 'Shoes through the server');
    await untilSole();
    for (let n = 0; n < 3; n++) await read();
    await execDirect(server.databaseUrl, `UPDATE records SET data = '{"title": "Shoes by SQL"}' WHERE id = '${target.id}'`);
    assert.equal(await read(), 'Shoes by SQL');
  });

  test('sole server: SOLE_SERVER=false keeps it from ever keeping versions; revalidations still answer 304', async () => {
    const off = await startServer({
      process: true,
      databaseUrl: (postgres as Target).url('sole_off'),
      env: { SOLE_SERVER: 'false' },
    });
    try {
      const offOwner = await bootstrapByCli(off);
      const model = await offOwner.createSimpleModel({ slug: uniqueSlug('shelf'), deliveryAccess: 'public' });
      const query = `{ public { model { records(modelSlug: "${model.slug}", limit: 10) { total } } } }`;
      const url = `${off.deliveryUrl('acme', 'main')}?${new URLSearchParams({ query })}`;
      const answer = await request(url, { headers: { accept: 'application/json' } });
      const etag = answer.headers.get('etag')!;
      assert.equal((await request(url, { headers: { accept: 'application/json', 'if-none-match': etag } })).status, 304);
      // A server with it on tries at start, alone on its schema, and says it is sole before the bootstrap CLI joins; this
      // one, a CLI run, two requests and a moment later, never has.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.deepEqual(soleStates(off), [], 'never sole');
    } finally {
      await off.dispose();
    }
  });
});
