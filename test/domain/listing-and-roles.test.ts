import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasMore, readListing, type ListArguments } from '../../src/domain/listing.js';
import { mayDo } from '../../src/domain/roles.js';

/** The list arguments read against a model without fields (only the timestamp sorts). */
const listWindow = (args: ListArguments) => readListing({ fields: [], product: null }, args);

test('record.list: limit is 20 when omitted and at most 100', () => {
  assert.deepEqual(listWindow({}), { filter: null, order: { kind: 'time', sort: 'createdAt_asc' }, limit: 20, offset: 0 });
  assert.equal(listWindow({ limit: 500 }).limit, 100);
  assert.equal(listWindow({ limit: 0 }).limit, 0);
});

test('record.list: negative limit or offset and unknown sorts are refused naming the argument', () => {
  assert.throws(() => listWindow({ limit: -1 }), /^Error: limit: must not be negative$|limit: must not be negative/);
  assert.throws(() => listWindow({ offset: -1 }), /offset: must not be negative/);
  assert.throws(
    () => listWindow({ sort: 'title_asc' }),
    /sort: must be one of createdAt_asc, createdAt_desc, updatedAt_asc, updatedAt_desc/,
  );
});

test('record.list: a sort named like an object member (constructor, toString) is an unknown sort', () => {
  for (const sort of ['constructor', 'toString', '__proto__']) {
    assert.throws(() => listWindow({ sort }), /^ServiceError: sort: must be one of createdAt_asc/);
  }
});

test('record.list: hasMore is offset + items < total, false when the last page is exactly full', () => {
  assert.equal(hasMore({ limit: 10, offset: 0, sort: 'createdAt_asc' }, 10, 20), true);
  assert.equal(hasMore({ limit: 10, offset: 10, sort: 'createdAt_asc' }, 10, 20), false);
  assert.equal(hasMore({ limit: 10, offset: 30, sort: 'createdAt_asc' }, 0, 20), false);
});

test('roles: viewer reads, editor writes records, admin and owner change models', () => {
  assert.equal(mayDo('viewer', 'read'), true);
  assert.equal(mayDo('viewer', 'write records'), false);
  assert.equal(mayDo('editor', 'write records'), true);
  assert.equal(mayDo('editor', 'change models'), false);
  assert.equal(mayDo('admin', 'change models'), true);
  assert.equal(mayDo('owner', 'change models'), true);
});
