// Write budget: a server started with --write-budget 10. Every test uses its own workspace (the budget is per
// workspace), so tests do not share a budget. Nothing here waits for the one-minute window.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Admin, bootstrapAdmin, dataOf, gql, type GqlResponse } from '../support/client.js';
import { runCli, startServer, type TestServer } from '../support/server.js';

const BUDGET = 10;

let server: TestServer;
let workspaceCounter = 0;

before(async () => {
  server = await startServer({ writeBudget: BUDGET });
});

after(async () => {
  await server?.dispose();
});

/** A fresh workspace (fresh budget) with a simple model. */
async function freshWorkspace(): Promise<{ admin: Admin; modelId: string }> {
  workspaceCounter += 1;
  const admin = await bootstrapAdmin(server, {
    org: 'acme',
    workspace: `budget-${workspaceCounter}`,
    email: `b${workspaceCounter}@acme.test`,
  });
  const model = await admin.createSimpleModel();
  return { admin, modelId: model.id };
}

function assertRateLimited(response: GqlResponse): number {
  assert.equal(response.status, 429, `expected 429, got ${response.status}: ${response.text}`);
  const header = response.headers.get('retry-after');
  assert.ok(header !== null, 'Retry-After header present');
  assert.match(header, /^\d+$/, `Retry-After is whole seconds: ${header}`);
  const seconds = Number(header);
  assert.ok(seconds >= 1 && seconds <= 60, `Retry-After between 1 and 60: ${seconds}`);
  assert.deepEqual(response.body, {
    errors: [{ message: 'Record write budget exceeded', extensions: { code: 'RATE_LIMITED', retryAfter: seconds } }],
  });
  assert.ok(response.headers.get('x-request-id'), 'x-request-id on a 429');
  return seconds;
}

async function createN(admin: Admin, modelId: string, n: number, prefix = 'r'): Promise<void> {
  for (let i = 0; i < n; i++) {
    const response = await admin.createRecordRaw(modelId, { title: `${prefix}${i}` });
    assert.equal(response.status, 200, `write ${i + 1} of ${n}: ${response.status} ${response.text}`);
  }
}

describe('write budget', () => {
  test('write budget: the writes of the budget succeed, the next gets 429 with Retry-After and the exact body, nothing written', async () => {
    const { admin, modelId } = await freshWorkspace();
    await createN(admin, modelId, BUDGET);
    assertRateLimited(await admin.createRecordRaw(modelId, { title: 'eleventh' }));
    assert.equal(await admin.total(modelId), BUDGET);
    assert.ok(!(await admin.listAll(modelId)).some((r) => r.data.title === 'eleventh'));
  });

  test('write budget: the same request sent again at once is still 429, and the Retry-After value is at most 60', async () => {
    const { admin, modelId } = await freshWorkspace();
    await createN(admin, modelId, BUDGET);
    const first = assertRateLimited(await admin.createRecordRaw(modelId, { title: 'again' }));
    const second = assertRateLimited(await admin.createRecordRaw(modelId, { title: 'again' }));
    assert.ok(second <= first, 'Retry-After does not grow');
    assert.ok(second <= 60);
    assert.equal(await admin.total(modelId), BUDGET);
  });

  test('write budget: over budget every record write (import, patch, update, delete) is refused with 429, nothing changed', async () => {
    const { admin, modelId } = await freshWorkspace();
    const record = await admin.createRecord(modelId, { title: 'keep' });
    await createN(admin, modelId, BUDGET - 1);
    assertRateLimited(await admin.importRaw(modelId, [{ title: 'i' }]));
    assertRateLimited(await admin.patchRaw(record.id, { note: 'patched' }));
    assertRateLimited(await admin.updateRaw(record.id, { title: 'updated' }));
    assertRateLimited(await admin.deleteRaw(record.id));
    assert.deepEqual((await admin.getRecord(record.id)).data, { title: 'keep' });
    assert.equal(await admin.total(modelId), BUDGET);
  });

  test('write budget: reads are free', async () => {
    const { admin, modelId } = await freshWorkspace();
    const record = await admin.createRecord(modelId, { title: 'read me' });
    for (let i = 0; i < 3 * BUDGET; i++) {
      await admin.list(modelId);
      await admin.getRecord(record.id);
    }
    await admin.ok('{ model { list { id } } }');
    await createN(admin, modelId, BUDGET - 1);
    // Still readable when the write budget is used up.
    assertRateLimited(await admin.createRecordRaw(modelId, { title: 'over' }));
    assert.equal((await admin.list(modelId)).total, BUDGET);
  });

  test('write budget: model writes are free', async () => {
    const { admin, modelId } = await freshWorkspace();
    for (let i = 0; i < BUDGET + 5; i++) {
      const model = await admin.createSimpleModel();
      dataOf(
        await admin.q('mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id } } }', {
          input: { id: model.id, name: `renamed ${i}` },
        }),
      );
    }
    await createN(admin, modelId, BUDGET);
    assertRateLimited(await admin.createRecordRaw(modelId, { title: 'over' }));
    // Model writes still work when the record budget is used up.
    assert.ok((await admin.createSimpleModel()).id);
  });

  test('write budget: an import costs one per row', async () => {
    const { admin, modelId } = await freshWorkspace();
    const result = await admin.importRows(
      modelId,
      Array.from({ length: 7 }, (_, i) => ({ title: `i${i}` })),
    );
    assert.equal(result.importedCount, 7);
    await createN(admin, modelId, BUDGET - 7);
    assertRateLimited(await admin.createRecordRaw(modelId, { title: 'over' }));
  });

  test('write budget: an import of exactly the whole budget is admitted', async () => {
    const { admin, modelId } = await freshWorkspace();
    const result = await admin.importRows(
      modelId,
      Array.from({ length: BUDGET }, (_, i) => ({ title: `i${i}` })),
    );
    assert.deepEqual(result, { importedCount: BUDGET, errors: [] });
    assertRateLimited(await admin.createRecordRaw(modelId, { title: 'over' }));
  });

  test('write budget: an import that does not fit in what is left is 429, nothing written', async () => {
    const { admin, modelId } = await freshWorkspace();
    await createN(admin, modelId, 6);
    assertRateLimited(
      await admin.importRaw(
        modelId,
        Array.from({ length: 5 }, (_, i) => ({ title: `i${i}` })),
      ),
    );
    assert.equal(await admin.total(modelId), 6);
    // What is left can still be used.
    assert.equal(
      (
        await admin.importRows(
          modelId,
          Array.from({ length: 4 }, (_, i) => ({ title: `j${i}` })),
        )
      ).importedCount,
      4,
    );
  });

  test('write budget: an import is charged for the rows submitted, whatever their validation', async () => {
    const { admin, modelId } = await freshWorkspace();
    const result = await admin.importRows(
      modelId,
      Array.from({ length: 6 }, () => ({ note: 'no title' })),
    );
    assert.equal(result.importedCount, 0);
    assert.equal(result.errors.length, 6);
    await createN(admin, modelId, BUDGET - 6);
    assertRateLimited(await admin.createRecordRaw(modelId, { title: 'over' }));
  });

  test('write budget: a write refused by field validation is still charged', async () => {
    const { admin, modelId } = await freshWorkspace();
    for (let i = 0; i < BUDGET; i++) {
      const response = await admin.createRecordRaw(modelId, { note: 'missing title' });
      assert.equal(response.status, 200);
      assert.equal(response.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT');
    }
    assertRateLimited(await admin.createRecordRaw(modelId, { title: 'valid but over' }));
    assert.equal(await admin.total(modelId), 0);
  });

  test('write budget: patch, update and delete of an unknown id cost 1 each', async () => {
    const { admin, modelId } = await freshWorkspace();
    const ghost = '01900000-0000-7000-8000-000000000000';
    for (let i = 0; i < 3; i++) {
      assert.equal((await admin.patchRaw(ghost, { title: 'x' })).body.errors?.[0]?.extensions?.code, 'NOT_FOUND');
      assert.equal((await admin.updateRaw(ghost, { title: 'x' })).body.errors?.[0]?.extensions?.code, 'NOT_FOUND');
      assert.equal((await admin.deleteRaw(ghost)).body.errors?.[0]?.extensions?.code, 'NOT_FOUND');
    }
    await createN(admin, modelId, BUDGET - 9);
    assertRateLimited(await admin.createRecordRaw(modelId, { title: 'over' }));
  });

  test('write budget: one call costing more than the whole budget is HTTP 413 COST_EXCEEDS_BUDGET with cost and budget, nothing written, no budget consumed', async () => {
    const { admin, modelId } = await freshWorkspace();
    const response = await admin.importRaw(
      modelId,
      Array.from({ length: BUDGET + 1 }, (_, i) => ({ title: `i${i}` })),
    );
    assert.equal(response.status, 413, response.text);
    assert.ok(Array.isArray(response.body?.errors), response.text);
    assert.equal(response.body.errors.length, 1);
    const [error] = response.body.errors;
    assert.equal(error.extensions.code, 'COST_EXCEEDS_BUDGET');
    assert.equal(error.extensions.cost, BUDGET + 1);
    assert.equal(error.extensions.budget, BUDGET);
    assert.equal(
      error.message,
      `Record write cost ${BUDGET + 1} exceeds the write budget of ${BUDGET} per minute; split the call`,
    );
    assert.equal(await admin.total(modelId), 0);
    // No budget consumed: the whole budget is still there.
    await createN(admin, modelId, BUDGET);
    assertRateLimited(await admin.createRecordRaw(modelId, { title: 'over' }));
  });

  test('write budget: aliases add up — a request with more aliased creates than the budget is 413, nothing written', async () => {
    const { admin, modelId } = await freshWorkspace();
    const fields = Array.from(
      { length: BUDGET + 1 },
      (_, i) => `c${i}: record { create(input: { modelId: $m, data: { title: "alias ${i}" } }) { id } }`,
    ).join('\n');
    const response = await admin.q(`mutation($m: ID!) { ${fields} }`, { m: modelId });
    assert.equal(response.status, 413, response.text);
    assert.equal(response.body.errors[0].extensions.code, 'COST_EXCEEDS_BUDGET');
    assert.equal(response.body.errors[0].extensions.cost, BUDGET + 1);
    assert.equal(await admin.total(modelId), 0);
  });

  test('write budget: a two-write request with one unit left is 429 and writes neither', async () => {
    const { admin, modelId } = await freshWorkspace();
    await createN(admin, modelId, BUDGET - 1);
    const response = await admin.q(
      `mutation($m: ID!) {
        a: record { create(input: { modelId: $m, data: { title: "pair a" } }) { id } }
        b: record { create(input: { modelId: $m, data: { title: "pair b" } }) { id } }
      }`,
      { m: modelId },
    );
    assertRateLimited(response);
    assert.equal(await admin.total(modelId), BUDGET - 1);
    // The one unit left is still there.
    assert.equal((await admin.createRecordRaw(modelId, { title: 'last' })).status, 200);
  });

  test('write budget: requests refused by auth or by role are not charged', async () => {
    const { admin, modelId } = await freshWorkspace();
    for (let i = 0; i < BUDGET + 2; i++) {
      const response = await gql(
        server.adminUrl,
        { token: 'cs_wrong', workspaceId: admin.workspaceId },
        'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }',
        { input: { modelId, data: { title: 'x' } } },
      );
      assert.equal(response.status, 401);
    }
    const v = await server.createToken({
      workspaceId: admin.workspaceId,
      email: `viewer${workspaceCounter}@acme.test`,
      role: 'viewer',
    });
    const viewer = new Admin(server, { token: v.token, workspaceId: admin.workspaceId });
    for (let i = 0; i < BUDGET + 2; i++) assert.equal((await viewer.createRecordRaw(modelId, { title: 'x' })).status, 403);
    await createN(admin, modelId, BUDGET);
    assertRateLimited(await admin.createRecordRaw(modelId, { title: 'over' }));
  });

  test('write budget: an import over 1000 rows is refused before any charge', async () => {
    const { admin, modelId } = await freshWorkspace();
    const response = await admin.importRaw(
      modelId,
      Array.from({ length: 1001 }, (_, i) => ({ title: `i${i}` })),
    );
    assert.ok(response.status === 400 || response.status === 413, response.text);
    assert.ok(['BAD_USER_INPUT', 'COST_EXCEEDS_BUDGET'].includes(response.body.errors?.[0]?.extensions?.code), response.text);
    assert.equal(await admin.total(modelId), 0);
    await createN(admin, modelId, BUDGET);
  });

  test('write budget: the budget is per workspace — another workspace still writes', async () => {
    const a = await freshWorkspace();
    const b = await freshWorkspace();
    await createN(a.admin, a.modelId, BUDGET);
    assertRateLimited(await a.admin.createRecordRaw(a.modelId, { title: 'over' }));
    await createN(b.admin, b.modelId, BUDGET);
  });

  test('write budget: tokens of different users of one workspace share its budget', async () => {
    const { admin, modelId } = await freshWorkspace();
    const e = await server.createToken({
      workspaceId: admin.workspaceId,
      email: `editor${workspaceCounter}@acme.test`,
      role: 'editor',
    });
    const editor = new Admin(server, { token: e.token, workspaceId: admin.workspaceId });
    await createN(admin, modelId, BUDGET / 2);
    await createN(editor, modelId, BUDGET / 2);
    assertRateLimited(await editor.createRecordRaw(modelId, { title: 'over' }));
    assertRateLimited(await admin.createRecordRaw(modelId, { title: 'over' }));
  });

  test('write budget: concurrent writes never exceed the budget', async () => {
    const { admin, modelId } = await freshWorkspace();
    const responses = await Promise.all(
      Array.from({ length: BUDGET * 2 }, (_, i) => admin.createRecordRaw(modelId, { title: `c${i}` })),
    );
    const ok = responses.filter((r) => r.status === 200).length;
    const limited = responses.filter((r) => r.status === 429).length;
    assert.equal(ok, BUDGET);
    assert.equal(limited, BUDGET);
    assert.equal(await admin.total(modelId), BUDGET);
  });

  test('write budget: workspace set-budget sets a per-workspace budget', async () => {
    const { admin, modelId } = await freshWorkspace();
    const result = await runCli([
      'workspace',
      'set-budget',
      '--workspace-id',
      admin.workspaceId,
      '--budget',
      '3',
      '--database',
      server.databaseUrl,
    ]);
    assert.equal(result.code, 0, result.stderr);
    await createN(admin, modelId, 3);
    assertRateLimited(await admin.createRecordRaw(modelId, { title: 'over' }));
    const big = await admin.importRaw(modelId, [{ title: 'a' }, { title: 'b' }, { title: 'c' }, { title: 'd' }]);
    assert.equal(big.status, 413, big.text);
    assert.equal(big.body.errors[0].extensions.budget, 3);
  });

  test("write budget: workspace set-budget --default goes back to the server's budget", async () => {
    const { admin, modelId } = await freshWorkspace();
    const setBudget = (...flag: string[]) =>
      runCli(['workspace', 'set-budget', '--workspace-id', admin.workspaceId, ...flag, '--database', server.databaseUrl]);
    assert.equal((await setBudget('--budget', '2')).code, 0);
    const rows = Array.from({ length: 3 }, (_, i) => ({ title: `r${i}` }));
    assert.equal((await admin.importRaw(modelId, rows)).status, 413);
    const reset = await setBudget('--default');
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(reset.stdout, /the server's default/);
    const afterReset = await admin.importRaw(modelId, rows);
    assert.equal(afterReset.status, 200, afterReset.text);
    assert.equal(await admin.total(modelId), 3);
    const neither = await setBudget();
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /Give either --budget N or --default/);
  });
});
