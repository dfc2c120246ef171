// Group commit (src/store/sqlite/write-group.ts): writes of one event-loop turn share a transaction, each in a
// savepoint of its own; a write is acknowledged only after the commit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { WriteGroup } from '../../src/store/sqlite/write-group.js';

function setup() {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)');
  return {
    db,
    group: new WriteGroup(db),
    insert: db.prepare('INSERT INTO t VALUES (?, ?)'),
    keys: () => db.prepare('SELECT k FROM t ORDER BY k').pluck().all(),
  };
}

test('write group: writes of one turn share one commit; a failed write rolls back only itself', async () => {
  const { db, group, insert, keys } = setup();
  const outcomes = await Promise.allSettled([
    group.run(() => insert.run('a', 1).changes),
    group.run(() => {
      insert.run('b', 2);
      insert.run('a', 3); // duplicate key: this write fails, and its first insert must not stay
      return 'unreachable';
    }),
    group.run(() => insert.run('c', 3).changes),
  ]);
  assert.deepEqual(
    outcomes.map((outcome) => outcome.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.deepEqual(keys(), ['a', 'c']);
  assert.equal(group.commits, 1);
  assert.equal(group.writes, 3);
  assert.equal(db.inTransaction, false);
});

test('write group: a write alone in its turn has its own transaction; its error rolls it back', async () => {
  const { db, group, insert, keys } = setup();
  await group.run(() => insert.run('a', 1));
  await assert.rejects(
    group.run(() => {
      insert.run('d', 1);
      insert.run('a', 1);
    }),
    /UNIQUE/,
  );
  assert.deepEqual(keys(), ['a']);
  assert.equal(await group.run(() => insert.run('e', 1).changes), 1);
  assert.equal(db.inTransaction, false);
});

test('write group: nothing is acknowledged before the commit, and flush commits at once', async () => {
  const { db, group, insert } = setup();
  let acknowledged = false;
  const pending = group.run(() => insert.run('x', 1)).then(() => (acknowledged = true));
  await Promise.resolve();
  assert.equal(acknowledged, false);
  assert.equal(db.prepare('SELECT count(*) FROM t').pluck().get(), 0, 'not yet written');
  group.flush();
  await pending;
  assert.equal(acknowledged, true);
  assert.equal(db.prepare('SELECT count(*) FROM t').pluck().get(), 1);
});

test('write group: when the commit fails, every write of the group fails and nothing stays', async () => {
  const { db, group, insert, keys } = setup();
  db.exec(
    'CREATE TABLE parent (id TEXT PRIMARY KEY); CREATE TABLE child (p TEXT REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)',
  );
  db.pragma('foreign_keys = ON');
  const outcomes = await Promise.allSettled([
    group.run(() => insert.run('a', 1)),
    group.run(() => db.prepare("INSERT INTO child VALUES ('missing')").run()), // deferred: fails at COMMIT
  ]);
  assert.deepEqual(
    outcomes.map((outcome) => outcome.status),
    ['rejected', 'rejected'],
  );
  assert.deepEqual(keys(), []);
  assert.equal(db.inTransaction, false);
});

test('write group: beforeCommit runs once per group, inside its transaction, and its writes commit with the group', async () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER); CREATE TABLE commits (n INTEGER)');
  const insert = db.prepare('INSERT INTO t VALUES (?, ?)');
  let calls = 0;
  const group = new WriteGroup(db, {
    beforeCommit: () => {
      calls++;
      assert.equal(db.inTransaction, true);
      db.prepare('INSERT INTO commits VALUES (?)').run(calls);
    },
  });
  await Promise.all([group.run(() => insert.run('a', 1)), group.run(() => insert.run('b', 2))]);
  await group.run(() => insert.run('c', 3));
  assert.equal(calls, 2, 'one call for each of the two groups');
  assert.deepEqual(db.prepare('SELECT n FROM commits ORDER BY n').pluck().all(), [1, 2]);
  assert.equal(group.commits, 2);
});
