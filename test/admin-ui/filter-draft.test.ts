// The filter bar's state (src/admin-ui/filter-draft.ts): the conditions being edited, what a change of field or
// operator does to one, the filter they build, and the condition a refusal names. No DOM.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  filterOfDrafts,
  focusAfterRemove,
  namedPath,
  newDraft,
  pathOf,
  reoperate,
  retarget,
  type Draft,
} from '../../src/admin-ui/filter-draft.js';
import type { FilterPath } from '../../src/admin-ui/record-filter.js';

const title: FilterPath = { path: 'title', label: 'Title', kind: 'text' };
const sku: FilterPath = { path: 'sku', label: 'SKU', kind: 'text' };
const price: FilterPath = { path: 'price', label: 'Price', kind: 'number' };
const name: FilterPath = { path: 'name', label: 'Name', kind: 'text', localized: true };
const category: FilterPath = { path: 'category', label: 'Category', kind: 'id', relationTo: 'category' };
const maker: FilterPath = { path: 'maker', label: 'Maker', kind: 'id', relationTo: 'maker' };
const paths = [title, sku, price, name, category, maker];

const draft = (part: Partial<Draft>): Draft => ({ target: title, locale: '', operator: 'eq', value: '', ...part });

describe('filter-draft: editing a condition', () => {
  test('a new condition starts on the first path with its first operator', () => {
    assert.deepEqual(newDraft(paths, 'de'), { target: title, locale: 'de', operator: 'eq', value: '' });
  });

  test('the path of a translatable field carries its locale, when one is given', () => {
    assert.equal(pathOf(draft({ target: name, locale: ' en ' })), 'name.en');
    assert.equal(pathOf(draft({ target: name, locale: '' })), 'name');
    assert.equal(pathOf(draft({ target: title, locale: 'en' })), 'title');
  });

  test('another field of the same kind keeps operator and value; another kind starts over', () => {
    const before = draft({ operator: 'contains', value: 'lamp' });
    assert.deepEqual(retarget(before, sku, 'en'), { ...before, target: sku });
    assert.deepEqual(retarget(before, price, 'en'), { target: price, locale: '', operator: 'eq', value: '' });
    assert.equal(before.target, title, 'the draft before is left as it was');
  });

  test("a relation's ids do not carry over to another relation's target; a translatable field gets a locale", () => {
    const chosen = draft({ target: category, operator: 'in', value: 'c1, c2' });
    assert.equal(retarget(chosen, maker, 'en').value, '');
    assert.equal(retarget(draft({ value: 'x' }), name, 'de').locale, 'de');
    assert.equal(retarget(draft({ value: 'x', locale: 'fr' }), name, 'de').locale, 'fr');
  });

  test('from a list operator to one value the first item stays; between single operators the value stays', () => {
    assert.equal(reoperate(draft({ operator: 'in', value: ' a , b' }), 'eq').value, 'a');
    assert.equal(reoperate(draft({ operator: 'eq', value: 'a, b' }), 'ne').value, 'a, b');
    assert.equal(reoperate(draft({ operator: 'eq', value: 'a, b' }), 'in').value, 'a');
    assert.equal(reoperate(draft({}), 'ne').operator, 'ne');
  });
});

describe('filter-draft: the filter and refusals', () => {
  test('complete drafts build a filter; a half-typed one is a problem', () => {
    const built = filterOfDrafts([draft({ value: 'Lamp' })], paths);
    assert.deepEqual(built.problems, []);
    assert.deepEqual(built.filter, { title: { $eq: 'Lamp' } });
    assert.deepEqual(filterOfDrafts([draft({ target: price, operator: 'gt', value: '' })], paths).problems, [
      'Condition 1 (Price): enter a value',
    ]);
  });

  test('the focus after a remove: the remove button in its place, or Add condition when none is left', () => {
    assert.equal(focusAfterRemove(2, 3), 'filter-remove-2');
    assert.equal(focusAfterRemove(3, 2), 'filter-remove-2');
    assert.equal(focusAfterRemove(1, 0), 'filter-add');
  });

  test('a refusal names the longest condition path that fits', () => {
    const conditions = ['name', 'name.en', 'price'];
    assert.equal(namedPath('filter.name.en.$contains: bad', conditions), 'name.en');
    assert.equal(namedPath('filter.price.$gte: not a number', conditions), 'price');
    assert.equal(namedPath('filter.tags[0]: nope', ['tags']), 'tags');
    assert.equal(namedPath('sort: unknown', conditions), undefined);
    assert.equal(namedPath('filter.other: bad', conditions), undefined);
  });
});
