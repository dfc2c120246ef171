// The model editor's state (src/admin-ui/model-editor-state.ts): relation targets and the fields a save removes; the
// draft's drafts setting (model-draft.ts), read from the model and sent with a save.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mustConfirmRemoval, relationTargetSlugs, removedFields } from '../../src/admin-ui/model-editor-state.js';
import { draftOf, modelInput, type Draft } from '../../src/admin-ui/model-draft.js';
import type { ModelDefinition } from '../../src/admin-ui/types.js';

const model = (slug: string, part: Partial<ModelDefinition> = {}) =>
  ({
    id: slug,
    name: slug,
    slug,
    recordCount: 0,
    fields: [
      { key: 'title', label: 'Title', type: 'text', required: true },
      { key: 'price', label: 'Price', type: 'number', required: false },
    ],
    ...part,
  }) as unknown as ModelDefinition;

describe('model-editor-state', () => {
  test("relation targets: the workspace's models, sorted, and a new model's own slug", () => {
    const models = [model('tag'), model('author')];
    assert.deepEqual(relationTargetSlugs(models, null, 'post'), ['author', 'post', 'tag']);
    assert.deepEqual(relationTargetSlugs(models, null, ''), ['author', 'tag']);
    assert.deepEqual(relationTargetSlugs(models, models[0]!, 'other'), ['author', 'tag']);
    assert.deepEqual(relationTargetSlugs(models, null, 'tag'), ['author', 'tag']);
  });

  test('a field left out or renamed is removed; keys are compared trimmed', () => {
    const edited = model('product');
    assert.deepEqual(
      removedFields(edited, { fields: [{ key: ' title ' }, { key: 'cost' }] as unknown as Draft['fields'] }).map(
        (field) => field.key,
      ),
      ['price'],
    );
    assert.deepEqual(removedFields(edited, { fields: [{ key: 'title' }, { key: 'price' }] as unknown as Draft['fields'] }), []);
  });

  test('only a removal from a model with records is confirmed', () => {
    const removed = model('product').fields.slice(1);
    assert.equal(mustConfirmRemoval(model('product', { recordCount: 3 }), removed), true);
    assert.equal(mustConfirmRemoval(model('product', { recordCount: 0 }), removed), false);
    assert.equal(mustConfirmRemoval(model('product', { recordCount: 3 }), []), false);
  });

  test("drafts: a new model starts without; the draft reads the model's setting and a save sends what the box shows", () => {
    assert.equal(draftOf(null).drafts, false);
    assert.equal(modelInput(draftOf(null)).common.drafts, false);
    const withDrafts = draftOf(model('post', { drafts: true }));
    assert.equal(withDrafts.drafts, true);
    assert.equal(modelInput(withDrafts).common.drafts, true);
    withDrafts.drafts = false;
    assert.equal(
      modelInput(withDrafts).common.drafts,
      false,
      'turning it off is sent; the server refuses it while records are not published',
    );
  });
});
