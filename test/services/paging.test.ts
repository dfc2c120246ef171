import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Actor } from '../../src/services/actor.js';
import { ModelService } from '../../src/services/model-service.js';
import { RecordService } from '../../src/services/record-service.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import type { Store } from '../../src/store/store.js';
import { ownedWorkspace } from '../support/workspaces.js';

let dir: string;
let store: Store;
let actor: Actor;
let records: RecordService;
let modelId: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cs-paging-'));
  store = openSqliteStore(join(dir, 'content.db'));
  actor = (await ownedWorkspace(store, 'acme')).actor;
  records = new RecordService(store);
  const model = await new ModelService(store).create(actor, { name: 'N', slug: 'n', fields: [{ key: 'n', type: 'number' }] });
  modelId = model.id;
  await records.import(
    actor,
    modelId,
    Array.from({ length: 250 }, (_, n) => ({ n })),
  );
});

after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function walk(limit: number): Promise<number[]> {
  const seen: number[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = await records.list(actor.workspaceId, modelId, { limit, offset });
    seen.push(...page.items.map((item) => item.data.n as number));
    if (!page.hasMore) return seen;
  }
}

test('record.list: offset paging sees every record once, in creation order, page after page', async () => {
  const expected = Array.from({ length: 250 }, (_, n) => n);
  assert.deepEqual(await walk(100), expected);
  assert.deepEqual(await walk(100), expected, 'a second walk, continuing from remembered page ends, is the same');
  assert.deepEqual(await walk(7), expected);
});

test('record.list: after a delete the next page is the plain offset page, not a stale continuation', async () => {
  const first = await records.list(actor.workspaceId, modelId, { limit: 10, offset: 0 });
  await records.delete(actor, first.items[3]!.id, false);
  const second = await records.list(actor.workspaceId, modelId, { limit: 10, offset: 10 });
  const all = await records.list(actor.workspaceId, modelId, { limit: 100, offset: 0 });
  assert.deepEqual(
    second.items.map((item) => item.id),
    all.items.slice(10, 20).map((item) => item.id),
  );
});
