// The audit's races, black-box: two server processes on one database (SQLite file, or PostgreSQL schema with
// TEST_SERVER_DATABASE=postgres), requests sent at once, many rounds. Whatever the order the writes land in, every
// answer is a success or the service's usual refusal, the stored records fit their model's definition, and no link
// points at a deleted record (docs/reliability.md). Deterministic orderings of the same races are in
// test/services/write-races.test.ts and test/store/postgres-write-locks.test.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, bootstrapAdmin, dataOf, uniqueSlug, type GqlResponse } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

const ROUNDS = Number(process.env.WRITE_RACE_ROUNDS ?? 20);
const UPDATE_MODEL = 'mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id } } }';

let server: TestServer;
let second: TestServer;
let owner: Admin;
let ownerOnSecond: Admin;

before(async () => {
  server = await startServer();
  second = await startServer({ dir: server.dir });
  owner = await bootstrapAdmin(server);
  ownerOnSecond = new Admin(second, owner.credentials);
});

after(async () => {
  await second?.stop();
  await server?.dispose();
});

function succeeded(response: GqlResponse): boolean {
  return response.status === 200 && response.body?.errors === undefined;
}

/** The refusal's code and message; the answer must be a refusal of the service, one error. */
function refusalOf(response: GqlResponse): { code: string; message: string } {
  const errors = response.body?.errors;
  assert.ok(Array.isArray(errors) && errors.length === 1, `expected one error, got ${response.text}`);
  return { code: errors[0].extensions?.code, message: errors[0].message };
}

async function allRecords(modelId: string): Promise<{ id: string; data: Record<string, unknown> }[]> {
  return (await owner.list(modelId, { limit: 100 })).items;
}

test(`model.update making a field required, with three creates without it sent at once: ${ROUNDS} rounds`, async () => {
  let updates = 0;
  let creates = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const model = await owner.createModel({
      slug: uniqueSlug('race'),
      fields: [
        { key: 'title', type: 'text' },
        { key: 'body', type: 'text' },
      ],
    });
    const update = ownerOnSecond.q(UPDATE_MODEL, {
      input: {
        id: model.id,
        fields: [
          { key: 'title', type: 'text', required: true },
          { key: 'body', type: 'text' },
        ],
      },
    });
    const createsSent = [0, 1, 2].map((n) => (n % 2 === 0 ? owner : ownerOnSecond).createRecordRaw(model.id, { body: `${n}` }));
    const [updated, ...created] = await Promise.all([update, ...createsSent]);
    if (succeeded(updated!)) {
      updates++;
      assert.deepEqual(
        await allRecords(model.id),
        [],
        `round ${round}: the field became required, so no record without it is stored`,
      );
      for (const answer of created) {
        assert.deepEqual(refusalOf(answer), { code: 'BAD_USER_INPUT', message: 'title: is required' }, `round ${round}`);
      }
    } else {
      // Refused for the records stored before it; a create may still land after the refusal.
      const stored = created.filter(succeeded).length;
      const refused = refusalOf(updated!);
      const counted = Number(/^title: cannot become required: (\d+) stored records have no value$/.exec(refused.message)?.[1]);
      assert.equal(refused.code, 'CONFLICT', `round ${round}: ${updated!.text}`);
      assert.ok(counted >= 1 && counted <= stored, `round ${round}: ${refused.message} (${stored} creates stored)`);
      assert.equal((await allRecords(model.id)).length, stored);
    }
    creates += created.filter(succeeded).length;
  }
  console.log(`# definition race: ${updates} of ${ROUNDS} updates applied; ${creates} creates stored in the others`);
});

test(`record.delete and a create linking to the record sent at once: ${ROUNDS} rounds`, async () => {
  const authors = await owner.createModel({ slug: uniqueSlug('author'), fields: [{ key: 'name', type: 'text' }] });
  const books = await owner.createModel({
    slug: uniqueSlug('book'),
    fields: [
      { key: 'title', type: 'text' },
      { key: 'author', type: 'relation', relationTo: `model:${authors.slug}` },
    ],
  });
  let deletes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const author = await owner.createRecord(authors.id, { name: `author ${round}` });
    const [deleted, created] = await Promise.all([
      owner.deleteRaw(author.id),
      ownerOnSecond.createRecordRaw(books.id, { title: `book ${round}`, author: author.id }),
    ]);
    if (succeeded(deleted!)) {
      deletes++;
      assert.deepEqual(
        refusalOf(created!),
        { code: 'BAD_USER_INPUT', message: `author: no record with id "${author.id}" in model "${authors.slug}"` },
        `round ${round}: the record linked to is deleted`,
      );
    } else {
      const book = dataOf(created!).record.create;
      assert.deepEqual(refusalOf(deleted!), {
        code: 'CONFLICT',
        message: `id: record is referenced by field "author" of model "${books.slug}" (record ${book.id}); delete with force: true to remove the references`,
      });
    }
  }
  // Every stored book's author is there.
  for (const book of await allRecords(books.id)) {
    assert.ok(await owner.getRecord(book.data.author as string), `book ${book.id} links to a stored author`);
  }
  console.log(`# link race: ${deletes} of ${ROUNDS} deletes applied, ${ROUNDS - deletes} creates`);
});

test(`model.delete of an empty model and a create in it sent at once: ${ROUNDS} rounds`, async () => {
  const DELETE_MODEL = 'mutation($id: ID!) { model { delete(id: $id) { id deleted } } }';
  let deletes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const model = await owner.createModel({ slug: uniqueSlug('doomed'), fields: [{ key: 'title', type: 'text' }] });
    const [deleted, created] = await Promise.all([
      owner.q(DELETE_MODEL, { id: model.id }),
      ownerOnSecond.createRecordRaw(model.id, { title: `round ${round}` }),
    ]);
    if (succeeded(deleted!)) {
      deletes++;
      assert.deepEqual(refusalOf(created!), { code: 'NOT_FOUND', message: 'modelId: model not found' }, `round ${round}`);
    } else {
      assert.ok(succeeded(created!), `round ${round}: ${created!.text}`);
      assert.deepEqual(refusalOf(deleted!), {
        code: 'CONFLICT',
        message: `id: model "${model.slug}" still has 1 records; delete them first`,
      });
      assert.equal((await allRecords(model.id)).length, 1);
    }
  }
  console.log(`# model delete race: ${deletes} of ${ROUNDS} deletes applied, ${ROUNDS - deletes} creates`);
});
