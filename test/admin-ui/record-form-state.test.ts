// The record form's state (src/admin-ui/record-form-state.ts): reading the fields, what a save sends, where a
// server message about a field goes, and the summary above the form. No DOM.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  collectData,
  fieldForMessage,
  fieldMessages,
  followSummary,
  mayNameField,
  savePlan,
} from '../../src/admin-ui/record-form-state.js';

describe('record-form-state: reading and saving', () => {
  test('values left empty are left out; problems stop the save, shown at the field unless shown below it', () => {
    const read = collectData([
      { key: 'title', read: { value: 'Lamp' } },
      { key: 'note', read: { value: undefined } },
      { key: 'price', read: { value: undefined, problem: 'not a number' } },
      { key: 'dims', read: { value: undefined, problem: 'see below', shown: true } },
    ]);
    assert.deepEqual(read.data, { title: 'Lamp' });
    assert.equal(read.hasProblems, true);
    assert.deepEqual(read.toShow, [{ key: 'price', problem: 'not a number' }]);
    assert.equal(collectData([{ key: 'title', read: { value: 'x' } }]).hasProblems, false);
  });

  test('a new record is created; an edit sends a merge patch of what changed, or nothing', () => {
    assert.deepEqual(savePlan(null, { title: 'Lamp' }), { kind: 'create', data: { title: 'Lamp' } });
    assert.deepEqual(savePlan({ title: 'Lamp', price: 3 }, { title: 'Lamp', price: 3 }), { kind: 'unchanged' });
    assert.deepEqual(savePlan({ title: 'Lamp', price: 3 }, { title: 'Desk' }), {
      kind: 'patch',
      patch: { title: 'Desk', price: null },
    });
  });

  test('only input and conflict refusals may name a field', () => {
    assert.equal(mayNameField('BAD_USER_INPUT'), true);
    assert.equal(mayNameField('CONFLICT'), true);
    assert.equal(mayNameField('FORBIDDEN'), false);
    assert.equal(mayNameField(undefined), false);
  });
});

describe('record-form-state: messages at the fields', () => {
  const paths = new Set(['title', 'dims', 'dims.width', 'tags']);

  test('a message goes to the most specific field it names, whole when that is a field above the path', () => {
    assert.deepEqual(fieldForMessage('title: is required', paths), { path: 'title', text: 'is required' });
    assert.deepEqual(fieldForMessage('dims.width: must be positive', paths), {
      path: 'dims.width',
      text: 'must be positive',
    });
    assert.deepEqual(fieldForMessage('dims.depth: unknown', paths), { path: 'dims', text: 'dims.depth: unknown' });
    assert.deepEqual(fieldForMessage('tags[2]: no such record', paths), { path: 'tags', text: 'tags[2]: no such record' });
    assert.equal(fieldForMessage('other: nope', paths), null);
    assert.equal(fieldForMessage('Something went wrong', paths), null);
  });

  test('the summary names each field; it follows edits and goes with the last message', () => {
    const messages = fieldMessages([
      ['title', 'is required'],
      ['price', null],
      ['dims', 'dims.depth: unknown'],
    ]);
    assert.deepEqual(messages, ['title: is required', 'dims.depth: unknown']);
    assert.deepEqual(followSummary('title: is required; dims.depth: unknown', messages), { kind: 'same' });
    assert.deepEqual(followSummary('title: is required; dims.depth: unknown', ['dims.depth: unknown']), {
      kind: 'show',
      text: 'dims.depth: unknown',
    });
    assert.deepEqual(followSummary('dims.depth: unknown', []), { kind: 'clear' });
  });
});
