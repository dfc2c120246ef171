// Row mapping shortcuts (src/store/rows/, json-text.ts): the same results as the plain ways, only cheaper.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonText, unparsedData } from '../../src/domain/json-text.js';
import { recordWithText } from '../../src/store/rows/record-rows.js';
import { isoTime } from '../../src/store/rows/time.js';

test('isoTime is Date#toISOString, for times in any day, before 1970 and in the far future', () => {
  const times = [0, -1, 1, 86_399_999, 86_400_000, -62_135_596_800_000, 253_402_300_799_999, Date.now(), 1e12 + 0.5];
  for (let index = 0; index < 20_000; index++) times.push(Math.floor((Math.random() * 2 - 0.7) * 253_402_300_800_000));
  for (const time of times) {
    assert.equal(isoTime(time), new Date(time).toISOString(), String(time));
    assert.equal(isoTime(String(time)), new Date(time).toISOString(), `"${time}"`);
  }
  assert.throws(() => isoTime(Number.NaN), RangeError);
  assert.equal(isoTime(8.64e15), new Date(8.64e15).toISOString(), 'six-digit years go through Date');
});

test('a record made from JSON text looks, copies and compares like a plain record', () => {
  const text = '{"title":"Ball","tags":["a","b"],"price":1.5}';
  const plain = {
    id: 'r1',
    modelId: 'm1',
    workspaceId: 'w1',
    data: JSON.parse(text) as unknown,
    createdAt: isoTime(1_700_000_000_000),
    updatedAt: isoTime(1_700_000_000_001),
    createdBy: 'u1',
    updatedBy: null,
    revision: 3,
    publishStatus: null,
    publishedRevision: null,
    publishedAt: null,
  };
  const make = () => recordWithText('r1', 'm1', 'w1', text, 1_700_000_000_000, '1700000000001', 'u1', null, '3');
  assert.deepEqual(make(), plain);
  assert.deepEqual(Object.keys(make()), Object.keys(plain));
  assert.equal(JSON.stringify(make()), JSON.stringify(plain));
  assert.deepEqual({ ...make(), createdBy: null }, { ...plain, createdBy: null });

  const record = make();
  assert.equal(unparsedData(record)?.text, text, 'the text, while data has not been read');
  assert.deepEqual(record.data, plain.data);
  assert.equal(unparsedData(record), undefined, 'once read, data is an ordinary property');
  (record.data as { title: string }).title = 'Changed';
  assert.equal((record.data as { title: string }).title, 'Changed');

  const replaced = make();
  replaced.data = { other: true };
  assert.equal(unparsedData(replaced), undefined);
  assert.deepEqual(replaced.data, { other: true });
  assert.equal(unparsedData({ data: {} }), undefined);
});

test('JsonText serialises to the value of its text', () => {
  assert.equal(JSON.stringify({ a: new JsonText('{"b":[1,"two",null]}') }), '{"a":{"b":[1,"two",null]}}');
});
