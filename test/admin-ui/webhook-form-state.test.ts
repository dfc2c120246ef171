// The webhook form's state (src/admin-ui/webhook-form-state.ts): the check before sending and the field a server
// message is about. No DOM.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ALL_EVENTS, checkWebhookForm, fieldOfMessage } from '../../src/admin-ui/webhook-form-state.js';

const input = {
  url: ' https://example.com/hook ',
  allEvents: false,
  events: ['record.created'],
  modelIds: [] as string[],
  description: '  ',
  active: true,
};

describe('webhook-form-state', () => {
  test('a URL and an event are needed; "all events" sends the wildcard alone', () => {
    assert.deepEqual(checkWebhookForm({ ...input, url: ' ' }), {
      ok: false,
      field: 'url',
      message: 'Give the URL the events are sent to.',
    });
    assert.deepEqual(checkWebhookForm({ ...input, events: [] }), {
      ok: false,
      field: 'events',
      message: 'Choose at least one event.',
    });
    const all = checkWebhookForm({ ...input, allEvents: true, events: ['record.created', 'model.deleted'] });
    assert.ok(all.ok);
    assert.deepEqual(all.ok && all.values.events, [ALL_EVENTS]);
  });

  test('values are trimmed; no model ticked and an empty description are sent as null', () => {
    assert.deepEqual(checkWebhookForm(input), {
      ok: true,
      values: { url: 'https://example.com/hook', events: ['record.created'], modelIds: null, description: null, active: true },
    });
    const some = checkWebhookForm({ ...input, modelIds: ['m1'], description: ' site rebuild ', active: false });
    assert.deepEqual(some.ok && some.values, {
      url: 'https://example.com/hook',
      events: ['record.created'],
      modelIds: ['m1'],
      description: 'site rebuild',
      active: false,
    });
  });

  test('a server message names its field, an index of a list field included', () => {
    assert.deepEqual(fieldOfMessage('url: must be https'), { field: 'url', text: 'must be https' });
    assert.deepEqual(fieldOfMessage('events[1]: unknown event'), { field: 'events', text: 'unknown event' });
    assert.equal(fieldOfMessage('Something failed'), null);
  });
});
