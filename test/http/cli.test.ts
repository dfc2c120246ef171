// The CLI contract: bootstrap, token create/revoke, serve (URLs, first start, env vs flags, signals).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Admin, gql, NOT_AUTHORIZED_BODY, uniqueSlug } from '../support/client.js';
import { bootstrapArgs, createTokenArgs, freePort, runCli, startServer, type TestServer } from '../support/server.js';

const CONNECTIVITY = '{ model { list { id slug name } } }';

let server: TestServer;
const scratch: string[] = [];

before(async () => {
  server = await startServer({ process: true });
});

after(async () => {
  await server?.dispose();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'content-service-cli-'));
  scratch.push(dir);
  return dir;
}

async function connectivityStatus(token: string, workspaceId: string, on: TestServer = server): Promise<number> {
  return (await gql(on.adminUrl, { token, workspaceId }, CONNECTIVITY)).status;
}

describe('bootstrap', () => {
  test('cli bootstrap --json: prints one line with exactly org, workspace, workspaceId, userId, token; token starts with cs_', async () => {
    const result = await runCli(
      bootstrapArgs({ org: 'shape', workspace: 'main', email: 'shape@acme.test', role: 'owner' }, server.databaseUrl),
    );
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
    assert.equal(lines.length, 1, `one line: ${result.stdout}`);
    const parsed = JSON.parse(lines[0]!);
    assert.deepEqual(Object.keys(parsed).sort(), ['org', 'token', 'userId', 'workspace', 'workspaceId']);
    assert.equal(parsed.org, 'shape');
    assert.equal(parsed.workspace, 'main');
    assert.match(parsed.token, /^cs_[A-Za-z0-9_-]{20,}$/);
    for (const key of ['workspaceId', 'userId']) assert.ok(typeof parsed[key] === 'string' && parsed[key].length > 0);
    assert.equal(await connectivityStatus(parsed.token, parsed.workspaceId), 200);
  });

  test('cli bootstrap: runs while the server uses the database, and the token works at once', async () => {
    const result = await server.bootstrapWithCli({ org: 'live', workspace: 'main', email: 'live@acme.test' });
    assert.equal(await connectivityStatus(result.token, result.workspaceId), 200);
  });

  test('cli bootstrap: twice with the same org/workspace reuses the workspace id and user, with a new token each time', async () => {
    const first = await server.bootstrapWithCli({ org: 'again', workspace: 'main', email: 'again@acme.test' });
    const second = await server.bootstrapWithCli({ org: 'again', workspace: 'main', email: 'again@acme.test' });
    assert.equal(second.workspaceId, first.workspaceId);
    assert.equal(second.userId, first.userId);
    assert.notEqual(second.token, first.token);
    assert.equal(await connectivityStatus(first.token, first.workspaceId), 200);
    assert.equal(await connectivityStatus(second.token, second.workspaceId), 200);
    // A model made through one token is seen through the other: the same workspace.
    const model = await new Admin(server, first).createSimpleModel();
    const list = (await new Admin(server, second).ok(CONNECTIVITY)).model.list;
    assert.ok(list.some((m: any) => m.id === model.id));
  });

  test('cli bootstrap: another workspace slug in the same org is a different workspace', async () => {
    const a = await server.bootstrapWithCli({ org: 'multi', workspace: 'one', email: 'm@acme.test' });
    const b = await server.bootstrapWithCli({ org: 'multi', workspace: 'two', email: 'm@acme.test' });
    assert.notEqual(a.workspaceId, b.workspaceId);
    assert.equal(a.userId, b.userId);
  });

  test('cli bootstrap: the default role is owner (may change models)', async () => {
    const result = await server.bootstrapWithCli({ org: 'defrole', workspace: 'main', email: 'defrole@acme.test' });
    const admin = new Admin(server, result);
    assert.ok((await admin.createSimpleModel()).id);
  });

  test('cli bootstrap: without --email the user is owner@<org>.example.com', async () => {
    const result = await server.bootstrapWithCli({ org: 'noemail', workspace: 'main' });
    const token = await server.createTokenWithCli({ workspaceId: result.workspaceId, email: 'owner@noemail.example.com' });
    assert.equal(token.userId, result.userId);
  });

  test('cli bootstrap: --role on an existing member changes the membership role', async () => {
    const first = await server.bootstrapWithCli({ org: 'rolechange', workspace: 'main', email: 'rc@acme.test', role: 'owner' });
    const model = await new Admin(server, first).createSimpleModel();
    const second = await server.bootstrapWithCli({ org: 'rolechange', workspace: 'main', email: 'rc@acme.test', role: 'viewer' });
    const response = await new Admin(server, second).createRecordRaw(model.id, { title: 'x' });
    assert.equal(response.status, 403, response.text);
    assert.equal(response.body.errors[0].message, 'Forbidden: viewer may not write records');
  });

  test('cli bootstrap: an invalid role or slug exits non-zero and prints no token', async () => {
    const badRole = await runCli([
      'bootstrap',
      '--org',
      'x',
      '--workspace',
      'y',
      '--role',
      'superuser',
      '--json',
      '--database',
      server.databaseUrl,
    ]);
    assert.notEqual(badRole.code, 0);
    assert.doesNotMatch(badRole.stdout, /cs_/);
    const badSlug = await runCli([
      'bootstrap',
      '--org',
      'Not A Slug',
      '--workspace',
      'y',
      '--json',
      '--database',
      server.databaseUrl,
    ]);
    assert.notEqual(badSlug.code, 0);
    assert.doesNotMatch(badSlug.stdout, /cs_/);
  });

  test('cli bootstrap: DATABASE_URL is read when --database is not given', async () => {
    const result = await runCli(['bootstrap', '--org', 'fromenv', '--workspace', 'main', '--email', 'env@acme.test', '--json'], {
      env: { DATABASE_URL: server.databaseUrl },
    });
    assert.equal(result.code, 0, result.stderr);
    const parsed = JSON.parse(result.stdout.trim());
    assert.equal(await connectivityStatus(parsed.token, parsed.workspaceId), 200);
  });

  test('cli bootstrap: --database wins over DATABASE_URL', async () => {
    const elsewhere = `sqlite:${join(tempDir(), 'elsewhere.db')}`;
    const result = await runCli(
      bootstrapArgs({ org: 'flagwins', workspace: 'main', email: 'fw@acme.test' }, server.databaseUrl),
      {
        env: { DATABASE_URL: elsewhere },
      },
    );
    assert.equal(result.code, 0, result.stderr);
    const parsed = JSON.parse(result.stdout.trim());
    assert.equal(await connectivityStatus(parsed.token, parsed.workspaceId), 200);
  });
});

describe('token create', () => {
  let owner: { token: string; workspaceId: string; userId: string };

  before(async () => {
    owner = await server.bootstrapWithCli({ org: 'tokens', workspace: 'main', email: 'owner@tokens.test' });
  });

  test('cli token create --json: prints one line {workspaceId, userId, email, role, tokenId, token}', async () => {
    const result = await runCli(
      createTokenArgs({ workspaceId: owner.workspaceId, email: 'new@tokens.test', role: 'editor' }, server.databaseUrl),
    );
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
    assert.equal(lines.length, 1);
    const parsed = JSON.parse(lines[0]!);
    assert.deepEqual(Object.keys(parsed).sort(), ['email', 'role', 'token', 'tokenId', 'userId', 'workspaceId']);
    assert.equal(parsed.workspaceId, owner.workspaceId);
    assert.equal(parsed.email, 'new@tokens.test');
    assert.equal(parsed.role, 'editor');
    assert.match(parsed.token, /^cs_/);
    assert.equal(await connectivityStatus(parsed.token, owner.workspaceId), 200);
  });

  test('cli token create: the default role of a new member is editor', async () => {
    const created = await server.createTokenWithCli({ workspaceId: owner.workspaceId, email: 'defaulteditor@tokens.test' });
    assert.equal(created.role, 'editor');
    const editor = new Admin(server, { token: created.token, workspaceId: owner.workspaceId });
    const denied = await editor.createModelRaw({ slug: uniqueSlug('x'), fields: [{ key: 'title', type: 'text' }] });
    assert.equal(denied.status, 403);
    const model = await new Admin(server, owner).createSimpleModel();
    assert.equal((await editor.createRecordRaw(model.id, { title: 'by editor' })).status, 200);
  });

  test('cli token create: for an existing user it acts as that user', async () => {
    const created = await server.createTokenWithCli({ workspaceId: owner.workspaceId, email: 'owner@tokens.test' });
    assert.equal(created.userId, owner.userId);
  });

  test('cli token create: --role sets the membership role', async () => {
    const created = await server.createTokenWithCli({
      workspaceId: owner.workspaceId,
      email: 'viewer@tokens.test',
      role: 'viewer',
    });
    assert.equal(created.role, 'viewer');
    const model = await new Admin(server, owner).createSimpleModel();
    const response = await new Admin(server, { token: created.token, workspaceId: owner.workspaceId }).createRecordRaw(model.id, {
      title: 'x',
    });
    assert.equal(response.status, 403);
  });

  test('cli token create: an unknown workspace id exits 1 (the work failed)', async () => {
    const result = await runCli(
      createTokenArgs({ workspaceId: '01900000-0000-7000-8000-000000000000', email: 'x@tokens.test' }, server.databaseUrl),
    );
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /No workspace with id "01900000-0000-7000-8000-000000000000"/);
    assert.doesNotMatch(result.stdout, /cs_/);
  });

  test('cli token revoke: a revoked token gets 401 Not authorized at once', async () => {
    const created = await server.createTokenWithCli({
      workspaceId: owner.workspaceId,
      email: 'revoked@tokens.test',
      role: 'editor',
    });
    assert.equal(await connectivityStatus(created.token, owner.workspaceId), 200);
    const result = await runCli(['token', 'revoke', '--token', created.token, '--database', server.databaseUrl]);
    assert.equal(result.code, 0, result.stderr);
    const response = await gql(server.adminUrl, { token: created.token, workspaceId: owner.workspaceId }, CONNECTIVITY);
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, NOT_AUTHORIZED_BODY);
    // Other tokens of the workspace keep working.
    assert.equal(await connectivityStatus(owner.token, owner.workspaceId), 200);
  });

  test('cli token list: name, user, role, created, last used, expiry and status; never the token', async () => {
    const created = JSON.parse(
      (
        await runCli(
          createTokenArgs(
            { workspaceId: owner.workspaceId, email: 'listed@tokens.test', role: 'viewer' },
            server.databaseUrl,
          ).concat(['--name', 'listed-ci', '--expires-in-days', '7']),
        )
      ).stdout.trim(),
    ) as { token: string; tokenId: string };
    const listed = async () => {
      const result = await runCli([
        'token',
        'list',
        '--workspace-id',
        owner.workspaceId,
        '--json',
        '--database',
        server.databaseUrl,
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stdout, /cs_/);
      const rows = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      return rows.find((row) => row.id === created.tokenId)!;
    };
    const before = await listed();
    assert.equal(before.name, 'listed-ci');
    assert.equal(before.userEmail, 'listed@tokens.test');
    assert.equal(before.role, 'viewer');
    assert.equal(before.workspace, 'tokens/main');
    assert.equal(before.lastUsedAt, null);
    assert.ok(Date.parse(before.expiresAt as string) > Date.now() + 6 * 86_400_000);

    assert.equal(await connectivityStatus(created.token, owner.workspaceId), 200);
    const after = await listed();
    assert.ok(Math.abs(Date.parse(after.lastUsedAt as string) - Date.now()) < 60_000, String(after.lastUsedAt));

    const table = await runCli(['token', 'list', '--workspace-id', owner.workspaceId, '--database', server.databaseUrl]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(
      table.stdout,
      /^API tokens of workspace tokens\/main \(times in UTC\)\nNAME +ID +USER +ROLE +CREATED +LAST USED +EXPIRES +STATUS\n/,
    );
    assert.match(
      table.stdout,
      new RegExp(
        `listed-ci +${created.tokenId} +listed@tokens\\.test +viewer +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +\\d{4}-.* +active`,
      ),
    );
    assert.doesNotMatch(table.stdout, /cs_/);

    const unknown = await runCli(['token', 'list', '--workspace-id', 'nope', '--database', server.databaseUrl]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No workspace with id "nope"/);
  });

  test('cli token revoke: by --token-id (the id printed by token create --json)', async () => {
    const result = await runCli(
      createTokenArgs({ workspaceId: owner.workspaceId, email: 'revoked2@tokens.test' }, server.databaseUrl),
    );
    const created = JSON.parse(result.stdout.trim());
    assert.equal(typeof created.tokenId, 'string', 'token create --json prints tokenId');
    assert.equal(await connectivityStatus(created.token, owner.workspaceId), 200);
    const revoke = await runCli(['token', 'revoke', '--token-id', created.tokenId, '--database', server.databaseUrl]);
    assert.equal(revoke.code, 0, revoke.stderr);
    assert.equal(await connectivityStatus(created.token, owner.workspaceId), 401);
  });
});

describe('serve', { concurrency: 4 }, () => {
  test('cli serve: prints the admin URL when ready', async () => {
    assert.ok(server.stdout.includes(`${server.url}/graphql`), server.stdout);
    assert.ok(server.stdout.includes('/public/'), 'the delivery URL is printed too');
  });

  test('cli serve: on a database with workspaces, prints the delivery URL of each (not only a template)', async () => {
    const own = await startServer({ process: true });
    let restarted: TestServer | undefined;
    try {
      await own.bootstrapWithCli({ org: 'printed', workspace: 'shop', email: 'p@acme.test' });
      await own.stop();
      restarted = await startServer({ process: true, dir: own.dir });
      assert.ok(restarted.stdout.includes(`${restarted.url}/public/printed/shop/graphql`), restarted.stdout);
      assert.ok(!restarted.stdout.includes('{org}'), restarted.stdout);
    } finally {
      await restarted?.dispose();
      await own.dispose();
    }
  });

  test('cli serve: SIGTERM exits 0', async () => {
    const own = await startServer({ process: true });
    try {
      const exit = await own.stop();
      assert.equal(exit.code, 0, `exit ${exit.code} ${exit.signal}\n${own.stderr}`);
    } finally {
      await own.dispose();
    }
  });

  test('cli serve: SIGINT exits 0', async () => {
    const own = await startServer({ process: true });
    try {
      const exit = await own.stop('SIGINT');
      assert.equal(exit.code, 0, `exit ${exit.code} ${exit.signal}`);
    } finally {
      await own.dispose();
    }
  });

  test('cli serve: SIGTERM drains an in-flight import; it is written whole or not at all', async () => {
    const own = await startServer({ process: true });
    let restarted: TestServer | undefined;
    try {
      const info = await own.bootstrapWithCli({ org: 'drain', workspace: 'main', email: 'd@acme.test' });
      const admin = new Admin(own, info);
      const model = await admin.createSimpleModel();
      const rows = Array.from({ length: 1000 }, (_, i) => ({ title: `drain ${i}`, note: 'n'.repeat(500) }));
      const inFlight = admin.importRaw(model.id, rows).then(
        (response) => ({ response, error: undefined }),
        (error: unknown) => ({ response: undefined, error }),
      );
      await new Promise((resolve) => setTimeout(resolve, 30));
      const exit = await own.stop();
      const outcome = await inFlight;
      assert.equal(exit.code, 0);
      restarted = await startServer({ process: true, dir: own.dir });
      const after = new Admin(restarted, info);
      const total = await after.total(model.id);
      if (outcome.response?.status === 503) {
        // It reached the server after shutdown began: refused whole.
        assert.equal(total, 0, 'a refused import wrote nothing');
      } else if (outcome.response) {
        assert.equal(outcome.response.status, 200, outcome.response.text);
        assert.equal(outcome.response.body.data.record.import.importedCount, 1000);
        assert.equal(total, 1000);
      } else {
        // Refused before it was accepted: nothing written.
        assert.ok(total === 0 || total === 1000, `no partial import, found ${total}`);
      }
    } finally {
      await restarted?.stop();
      await own.dispose();
    }
  });

  test('cli serve: the data survives a restart', async () => {
    const own = await startServer({ process: true });
    let again: TestServer | undefined;
    try {
      const info = await own.bootstrapWithCli({ org: 'persist', workspace: 'main', email: 'p@acme.test' });
      const model = await new Admin(own, info).createSimpleModel();
      const record = await new Admin(own, info).createRecord(model.id, { title: 'kept' });
      await own.stop();
      again = await startServer({ process: true, dir: own.dir });
      assert.deepEqual((await new Admin(again, info).getRecord(record.id)).data, { title: 'kept' });
    } finally {
      await again?.stop();
      await own.dispose();
    }
  });

  test('cli serve: the first start on an empty database creates default/main and prints a working token once', async () => {
    const own = await startServer({ process: true, omit: ['--no-init'] });
    let again: TestServer | undefined;
    try {
      const token = own.stdout.match(/cs_[A-Za-z0-9_-]+/)?.[0];
      assert.ok(token, `a token is printed:\n${own.stdout}`);
      const ids = [
        ...own.stdout.matchAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9A-HJKMNP-TV-Z]{26}/gi),
      ].map((m) => m[0]);
      const statuses = await Promise.all(ids.map((id) => connectivityStatus(token, id, own)));
      assert.ok(statuses.includes(200), `the printed token works with the printed workspace id\n${own.stdout}`);
      const delivery = await gql(own.deliveryUrl('default', 'main'), {}, '{ public { model { definitions { slug } } } }');
      assert.equal(delivery.status, 200, delivery.text);
      await own.stop();
      again = await startServer({ process: true, dir: own.dir, omit: ['--no-init'] });
      assert.doesNotMatch(again.stdout, /cs_/, 'a later start prints no token');
      assert.ok(again.stdout.includes(`${again.url}/graphql`));
    } finally {
      await again?.stop();
      await own.dispose();
    }
  });

  test('cli serve: --no-init creates nothing on an empty database', async () => {
    const own = await startServer({ process: true });
    try {
      assert.doesNotMatch(own.stdout, /cs_/);
      const delivery = await gql(own.deliveryUrl('default', 'main'), {}, '{ public { model { definitions { slug } } } }');
      assert.ok(delivery.status !== 200 || Array.isArray(delivery.body?.errors), delivery.text);
    } finally {
      await own.dispose();
    }
  });

  test('cli serve: DATABASE_URL is read when --database is not given', async () => {
    const dir = tempDir();
    const databaseUrl = `sqlite:${join(dir, 'env.db')}`;
    const own = await startServer({ process: true, omit: ['--database'], env: { DATABASE_URL: databaseUrl } });
    try {
      const result = await runCli(bootstrapArgs({ org: 'envdb', workspace: 'main', email: 'e@acme.test' }, databaseUrl));
      assert.equal(result.code, 0, result.stderr);
      const parsed = JSON.parse(result.stdout.trim());
      assert.equal(await connectivityStatus(parsed.token, parsed.workspaceId, own), 200);
    } finally {
      await own.dispose();
    }
  });

  test('cli serve: --write-budget wins over WRITE_BUDGET_PER_MINUTE, which is read without the flag', async () => {
    const byEnv = await startServer({ process: true, omit: ['--write-budget'], env: { WRITE_BUDGET_PER_MINUTE: '3' } });
    const byFlag = await startServer({ process: true, writeBudget: 5, env: { WRITE_BUDGET_PER_MINUTE: '3' } });
    try {
      for (const [own, budget] of [
        [byEnv, 3],
        [byFlag, 5],
      ] as const) {
        const info = await own.bootstrapWithCli({ org: 'budget', workspace: 'main', email: 'b@acme.test' });
        const admin = new Admin(own, info);
        const model = await admin.createSimpleModel();
        const response = await admin.importRaw(
          model.id,
          Array.from({ length: budget + 1 }, (_, i) => ({ title: `t${i}` })),
        );
        assert.equal(response.status, 413, response.text);
        assert.equal(response.body.errors[0].extensions.budget, budget);
      }
    } finally {
      await byEnv.dispose();
      await byFlag.dispose();
    }
  });

  test('cli serve: --write-budget-window wins over WRITE_BUDGET_WINDOW_SECONDS; the 413 names the window, Retry-After stays in it', async () => {
    const byEnv = await startServer({ process: true, writeBudget: 2, env: { WRITE_BUDGET_WINDOW_SECONDS: '7' } });
    const byFlag = await startServer({
      writeBudget: 2,
      env: { WRITE_BUDGET_WINDOW_SECONDS: '7' },
      extraArgs: ['--write-budget-window', '3'],
    });
    try {
      for (const [own, window] of [
        [byEnv, 7],
        [byFlag, 3],
      ] as const) {
        const info = await own.bootstrapWithCli({ org: 'window', workspace: 'main', email: 'w@acme.test' });
        const admin = new Admin(own, info);
        const model = await admin.createSimpleModel();
        const tooLarge = await admin.importRaw(model.id, [{ title: 'a' }, { title: 'b' }, { title: 'c' }]);
        assert.equal(tooLarge.status, 413, tooLarge.text);
        assert.equal(
          tooLarge.body.errors[0].message,
          `Record write cost 3 exceeds the write budget of 2 per ${window} seconds; split the call`,
        );
        assert.equal((await admin.importRaw(model.id, [{ title: 'a' }, { title: 'b' }])).status, 200);
        const refused = await admin.createRecordRaw(model.id, { title: 'c' });
        assert.equal(refused.status, 429, refused.text);
        const retryAfter = Number(refused.headers.get('retry-after'));
        assert.ok(retryAfter >= 1 && retryAfter <= window, `Retry-After ${retryAfter} within ${window} s`);
      }
    } finally {
      await byEnv.dispose();
      await byFlag.dispose();
    }
  });

  test('cli serve: a write budget window outside 1 to 60 seconds stops serve with a message: exit 1 from the environment, 2 from a flag', async () => {
    const database = `sqlite:${join(tempDir(), 'bad-window.db')}`;
    const byEnv = await runCli(['serve', '--port', '0', '--database', database], {
      env: { WRITE_BUDGET_WINDOW_SECONDS: '61' },
      timeoutMs: 60_000,
    });
    assert.equal(byEnv.code, 1, byEnv.stdout + byEnv.stderr);
    assert.match(byEnv.stderr, /WRITE_BUDGET_WINDOW_SECONDS: must be a whole number of seconds from 1 to 60, got "61"/);
    const byFlag = await runCli(['serve', '--port', '0', '--database', database, '--write-budget-window', '0'], {
      timeoutMs: 60_000,
    });
    assert.equal(byFlag.code, 2, byFlag.stdout + byFlag.stderr);
    assert.match(byFlag.stderr, /--write-budget-window <seconds>.*must be a whole number of seconds from 1 to 60/);
  });

  test('cli serve: a bad number in the environment stops serve with exit status 1 and a message', async () => {
    const result = await runCli(['serve', '--port', '0', '--database', `sqlite:${join(tempDir(), 'bad.db')}`], {
      env: { WRITE_BUDGET_PER_MINUTE: 'abc' },
      timeoutMs: 60_000,
    });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stderr, /must be a positive integer/);
    const badCost = await runCli(['serve', '--port', '0', '--database', `sqlite:${join(tempDir(), 'bad-cost.db')}`], {
      env: { PASSWORD_HASH_COST: '30' },
      timeoutMs: 60_000,
    });
    assert.equal(badCost.code, 1, badCost.stdout + badCost.stderr);
    assert.match(badCost.stderr, /PASSWORD_HASH_COST: must be a whole number from 10 to 20, got "30"/);
  });

  test('cli serve: a port in use names the port and how to pick another; a first start still shows its token', async () => {
    const taken = createNetServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const databaseFile = join(tempDir(), 'port-in-use.db');
    try {
      const result = await runCli(['serve', '--port', String(port), '--database', `sqlite:${databaseFile}`], {
        timeoutMs: 30_000,
      });
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.match(
        result.stderr,
        new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use .*Pick another port with --port N or PORT=N`),
      );
      assert.doesNotMatch(result.stderr, /EADDRINUSE|at .*\.js/);
      assert.match(result.stdout, /but the server could not start[\s\S]*API token: +cs_/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  test('cli serve: --port wins over PORT', async () => {
    const decoy = await freePort();
    const own = await startServer({ process: true, env: { PORT: String(decoy) } });
    try {
      // The harness waited for /healthz on the --port port; the decoy port is not listened on.
      const probe = await fetch(`http://127.0.0.1:${decoy}/healthz`).then(
        (r) => r.status,
        () => 'refused',
      );
      assert.equal(probe, 'refused');
    } finally {
      await own.dispose();
    }
  });
});

const packageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

describe('exit status: 2 for a command-line mistake, 1 for work that failed, 0 for --help and --version', () => {
  const usageMistakes: { command: string; args: string[]; message: RegExp }[] = [
    { command: '(none)', args: [], message: /Usage: content-service/ },
    { command: 'an unknown command', args: ['frobnicate'], message: /unknown command 'frobnicate'/ },
    { command: 'serve', args: ['serve', '--port', 'abc'], message: /--port/ },
    { command: 'bootstrap', args: ['bootstrap', '--workspace', 'main'], message: /required option '--org <slug>'/ },
    { command: 'token create', args: ['token', 'create', '--workspace-id', 'w'], message: /required option '--email <email>'/ },
    { command: 'token revoke', args: ['token', 'revoke'], message: /Give --token-id or --token/ },
    {
      command: 'workspace set-budget',
      args: ['workspace', 'set-budget', '--workspace-id', 'w', '--budget', '-3'],
      message: /--budget/,
    },
    { command: 'user set-password', args: ['user', 'set-password'], message: /required option '--email <email>'/ },
    { command: 'import', args: ['import', 'rows.csv'], message: /required option '--model <slug>'/ },
    { command: 'export', args: ['export', '--format', 'csv'], message: /required option '--model <slug>'/ },
    { command: 'publish', args: ['publish', '--model', 'product'], message: /give --all-changed or --ids a,b,c/ },
    { command: 'models', args: ['models', '--unknown-flag'], message: /unknown option '--unknown-flag'/ },
    { command: 'mcp', args: ['mcp', '--bogus'], message: /unknown option '--bogus'/ },
    { command: 'types', args: ['types', '--check'], message: /--check: needs --out FILE/ },
    { command: 'schema apply', args: ['schema', 'apply'], message: /missing required argument 'file'/ },
    { command: 'copy', args: ['copy', '--from', 'sqlite:source.db'], message: /required option '--to <url>'/ },
    { command: 'backup', args: ['backup'], message: /required option '--out <file>'/ },
  ];
  test(`a usage mistake exits 2 with a message, for every command (${usageMistakes.map(({ command }) => command).join(', ')})`, async () => {
    const results = await Promise.all(usageMistakes.map(({ args }) => runCli(args, { timeoutMs: 30_000 })));
    usageMistakes.forEach(({ command, message }, index) => {
      const result = results[index]!;
      assert.equal(result.code, 2, `${command}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, message, command);
    });
  });

  test('--version prints the package version and exits 0; --help exits 0', async () => {
    const version = await runCli(['--version']);
    assert.equal(version.code, 0, version.stderr);
    assert.equal(version.stdout.trim(), packageVersion);
    const help = await runCli(['token', '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /Usage: content-service token/);
  });

  test('token revoke of a token that does not exist exits 1 (the work failed)', async () => {
    const result = await runCli([
      'token',
      'revoke',
      '--token-id',
      'nope',
      '--database',
      `sqlite:${join(tempDir(), 'revoke.db')}`,
    ]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /No active token with that id/);
  });
});
