// COPY FROM STDIN over the pg client (the copy's writes into PostgreSQL): values that need COPY's escapes arrive
// as they were, and a refused statement or a bad row fails that call with PostgreSQL's error, writes nothing, and
// leaves the connection usable for the next.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { CopyChain, copyIn, copyText } from '../../src/store/copy/postgres-copy-in.js';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import { postgresTarget } from '../support/databases.js';

const pgTarget = await postgresTarget();
if ('failure' in pgTarget) throw new Error(pgTarget.failure);
let client: pg.Client;

before(async () => {
  if (pgTarget.skip) return;
  client = new pg.Client({ connectionString: parsePostgresUrl(process.env.DATABASE_URL!).connectionString });
  await client.connect();
  await client.query('CREATE TEMP TABLE copy_in_test (n integer, data jsonb NOT NULL, flag boolean, note text)');
});

after(async () => {
  await client?.end();
});

const INSERT = 'COPY copy_in_test (n, data, flag, note) FROM STDIN';

async function rows(): Promise<unknown[]> {
  const result = await client.query('SELECT n, data::text AS data, flag, note FROM copy_in_test ORDER BY n');
  return result.rows;
}

test(
  'copyIn: escapes, nulls, booleans as 1/0; errors leave nothing written and the connection usable',
  { skip: pgTarget.skip },
  async () => {
    await copyIn(
      client,
      INSERT,
      copyText([
        [1, '{"s":"back\\\\slash \\"q\\" tab\\t nl\\n é"}', 1, 'a\tb\nc\\d\re'],
        [2, '[1,2.5,null]', 0, null],
      ]),
    );
    const expected = [
      { n: 1, data: '{"s": "back\\\\slash \\"q\\" tab\\t nl\\n é"}', flag: true, note: 'a\tb\nc\\d\re' },
      { n: 2, data: '[1, 2.5, null]', flag: false, note: null },
    ];
    assert.deepEqual(await rows(), expected);

    await assert.rejects(copyIn(client, 'COPY no_such_table (n) FROM STDIN', copyText([[3]])), /no_such_table" does not exist/);
    await assert.rejects(
      copyIn(
        client,
        INSERT,
        copyText([
          [3, '{}', 1, null],
          ['x', '{}', 1, null],
        ]),
      ),
      /invalid input syntax for type integer: "x"/,
    );
    assert.deepEqual(await rows(), expected, 'the failed batch wrote none of its rows');

    await copyIn(client, INSERT, copyText([[3, '{}', null, '']]));
    assert.equal((await rows()).length, 3);
  },
);

test(
  'copyIn: batches handed over before the last is done run in turn; after a failed one, the next of its chain writes nothing',
  { skip: pgTarget.skip },
  async () => {
    await client.query('TRUNCATE copy_in_test');
    const chain = new CopyChain();
    const first = copyIn(client, INSERT, copyText([[10, '{}', 1, 'first']]), chain);
    const failing = copyIn(client, INSERT, copyText([['x', '{}', 1, 'bad']]), chain);
    const after = copyIn(client, INSERT, copyText([[12, '{}', 1, 'after the failure']]), chain);
    await first;
    await assert.rejects(failing, /invalid input syntax for type integer: "x"/);
    await assert.rejects(after, /not written: an earlier batch of this load failed/);
    assert.deepEqual(
      (await rows()).map((row) => (row as { note: string }).note),
      ['first'],
      'only the batch before the failed one',
    );
    // Another chain (another load) is not held back; nor is the connection.
    await copyIn(client, INSERT, copyText([[13, '{}', 0, 'next load']]), new CopyChain());
    assert.equal((await rows()).length, 2);
  },
);
