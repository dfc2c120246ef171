// The media library in the admin application without a DOM (src/admin-ui/media-state.ts): the Media page's search,
// type and page as the URL carries them, the pager, thumbnail addresses on the page's origin, the focal point of a
// click, alt text and tags as the panel edits them, the server's refusal of a delete said for the page, a media
// field's value as the picker keeps it, the ids a records page reads; and a media field's settings in the model
// editor's draft (src/admin-ui/model-draft.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  MEDIA_PAGE_SIZE,
  acceptsType,
  altText,
  altWith,
  assetHref,
  emptyMediaText,
  fileBadge,
  focalPointAt,
  focalPointText,
  mediaHref,
  mediaIds,
  mediaPager,
  mediaValue,
  moved,
  pageMediaIds,
  parseMediaView,
  parseTags,
  pastEndOffset,
  pickerTypeOptions,
  stillUsedText,
  tagsText,
  thumbnailSrc,
  typeFilterOptions,
  uploadPercent,
  usageText,
  withChosen,
} from '../../src/admin-ui/media-state.js';
import { draftOf, modelInput } from '../../src/admin-ui/model-draft.js';
import type { JsonObject, ModelDefinition } from '../../src/admin-ui/types.js';

describe('admin media state', () => {
  test('the view round-trips through the address; unknown types and bad offsets are dropped', () => {
    const view = parseMediaView(new URLSearchParams('search=%20ball%20&type=image&offset=48'));
    assert.deepEqual(view, { search: 'ball', type: 'image', offset: 48 });
    assert.equal(mediaHref(view), '#/media?search=ball&type=image&offset=48');
    assert.equal(mediaHref(view, { search: '', offset: 0 }), '#/media?type=image');
    assert.equal(mediaHref(view, { type: null, offset: 0 }), '#/media?search=ball');
    assert.deepEqual(parseMediaView(new URLSearchParams('type=spreadsheet&offset=-3')), { search: '', type: null, offset: 0 });
    assert.equal(mediaHref(), '#/media');
  });

  test('the pager and the page past the end', () => {
    const items = Array.from({ length: MEDIA_PAGE_SIZE }, () => ({}) as never);
    assert.deepEqual(mediaPager({ total: 60, hasMore: true, items }, 24), {
      status: '25–48 of 60 assets',
      previousOffset: 0,
      nextOffset: 48,
    });
    assert.deepEqual(mediaPager({ total: 0, hasMore: false, items: [] }, 0), {
      status: 'No assets',
      previousOffset: null,
      nextOffset: null,
    });
    assert.equal(pastEndOffset({ total: 30, items: [] }, 48), 24);
    assert.equal(pastEndOffset({ total: 0, items: [] }, 48), null);
    assert.equal(pastEndOffset({ total: 30, items }, 24), null);
    assert.equal(emptyMediaText({ search: 'x', type: null }), 'No assets match.');
    assert.match(emptyMediaText({ search: '', type: null }), /No assets yet/);
  });

  test('type options: the filter, and the picker by acceptedTypes', () => {
    assert.equal(typeFilterOptions()[0]!.value, '');
    assert.equal(typeFilterOptions().length, 6);
    assert.deepEqual(
      pickerTypeOptions(['image']).map((option) => option.value),
      ['image'],
    );
    assert.deepEqual(
      pickerTypeOptions(['image', 'document', 'bogus']).map((option) => option.value),
      ['image', 'document'],
    );
    assert.equal(pickerTypeOptions(null).length, 6);
    assert.equal(acceptsType(['image'], 'image'), true);
    assert.equal(acceptsType(['image'], 'document'), false);
    assert.equal(acceptsType([], 'other'), true);
  });

  test('thumbnails and links are on the page origin, whatever origin the server named', () => {
    const url = 'https://cdn.example.com/assets/ws/a1/red%20ball.jpg';
    assert.equal(thumbnailSrc(url), '/assets/ws/a1/red%20ball.jpg?w=240&h=240&fit=cover&format=auto');
    assert.equal(thumbnailSrc('/assets/ws/a1/x.png', 96), '/assets/ws/a1/x.png?w=96&h=96&fit=cover&format=auto');
    assert.equal(assetHref('http://127.0.0.1:4000/assets/ws/a1/x.pdf'), '/assets/ws/a1/x.pdf');
    assert.equal(fileBadge({ filename: 'manual.pdf', type: 'document' }), 'PDF');
    assert.equal(fileBadge({ filename: 'README', type: 'other' }), 'File');
  });

  test('the focal point of a click, clamped to 0..1 and rounded', () => {
    assert.deepEqual(focalPointAt(50, 150, 200, 200), { x: 0.25, y: 0.75 });
    assert.deepEqual(focalPointAt(-5, 400, 200, 200), { x: 0, y: 1 });
    assert.deepEqual(focalPointAt(1, 1, 3, 0), { x: 0.333, y: 0.5 });
    assert.equal(focalPointText({ x: 0.3, y: 0.6 }), 'x 0.3, y 0.6');
    assert.match(focalPointText(null), /Not set/);
  });

  test('alt text of one locale, tags, usage, upload share', () => {
    assert.equal(altText({ en: 'A ball', pl: 'Piłka' }, 'pl'), 'Piłka');
    assert.equal(altText(null, 'en'), '');
    assert.deepEqual(altWith({ pl: 'Piłka' }, 'en', 'A ball'), { pl: 'Piłka', en: 'A ball' });
    assert.deepEqual(altWith({ en: 'A ball', pl: 'Piłka' }, 'en', '  '), { pl: 'Piłka' });
    assert.equal(altWith({ en: 'A ball' }, 'en', ''), null);
    assert.deepEqual(parseTags(' red, summer ,,red '), ['red', 'summer']);
    assert.equal(tagsText(['red', 'summer']), 'red, summer');
    assert.equal(usageText(0), 'Not used by any record');
    assert.equal(usageText(1), 'Used by 1 record');
    assert.equal(usageText(1200), 'Used by 1,200 records');
    assert.equal(uploadPercent(50, 200), 25);
    assert.equal(uploadPercent(300, 200), 100);
    assert.equal(uploadPercent(0, 0), 0);
  });

  test("the server's refusal of a delete, said for the page", () => {
    assert.equal(
      stillUsedText(
        'id: the asset is used by a record (model "product", field "photo"); delete with force: true to remove it from them',
      ),
      'The asset is used by a record (model "product", field "photo").',
    );
  });

  test('a media value as the picker keeps it: one id, or an ordered list', () => {
    assert.deepEqual(mediaIds('a'), ['a']);
    assert.deepEqual(mediaIds(['a', 3, 'b'] as never), ['a', 'b']);
    assert.deepEqual(mediaIds(undefined), []);
    assert.equal(mediaValue([], true), undefined);
    assert.equal(mediaValue(['a', 'b'], false), 'a');
    assert.deepEqual(mediaValue(['a', 'b'], true), ['a', 'b']);
    assert.deepEqual(withChosen(['a'], 'b', false), ['b']);
    assert.deepEqual(withChosen(['a'], 'b', true), ['a', 'b']);
    assert.deepEqual(withChosen(['a', 'b'], 'a', true), ['a', 'b']);
    assert.deepEqual(moved(['a', 'b', 'c'], 2, -1), ['a', 'c', 'b']);
    assert.deepEqual(moved(['a', 'b'], 0, -1), ['a', 'b']);
  });

  test('the ids a records page reads: the first few of each media cell, once', () => {
    const records: { data: JsonObject }[] = [
      { data: { photo: 'p1', files: ['f1', 'f2', 'f3', 'f4'], title: 'x' } },
      { data: { photo: 'p1' } },
    ];
    const fields = [
      { key: 'title', type: 'text' },
      { key: 'photo', type: 'media' },
      { key: 'files', type: 'media' },
    ];
    assert.deepEqual(pageMediaIds(records, fields), ['p1', 'f1', 'f2', 'f3']);
  });

  test("the model editor's draft keeps a media field's settings and sends them only for media fields", () => {
    const model = {
      id: 'm',
      name: 'Product',
      slug: 'product',
      description: null,
      displayField: 'title',
      deliveryAccess: 'none',
      recordCount: 0,
      product: null,
      updatedAt: '',
      fields: [
        { key: 'title', label: 'Title', type: 'text', required: true, multiple: false, acceptedTypes: null },
        { key: 'gallery', label: 'Gallery', type: 'media', required: false, multiple: true, acceptedTypes: ['image'] },
        { key: 'file', label: 'File', type: 'media', required: false, multiple: false, acceptedTypes: null },
      ],
    } as ModelDefinition;
    const draft = draftOf(model);
    assert.deepEqual(draft.fields[1]!.acceptedTypes, ['image']);
    const fields = modelInput(draft).common.fields as Record<string, unknown>[];
    assert.deepEqual(fields[0], { key: 'title', label: 'Title', type: 'text', required: true });
    assert.deepEqual(fields[1], {
      key: 'gallery',
      label: 'Gallery',
      type: 'media',
      required: false,
      multiple: true,
      acceptedTypes: ['image'],
    });
    assert.deepEqual(fields[2], { key: 'file', label: 'File', type: 'media', required: false });
    draft.fields[0]!.type = 'text';
    draft.fields[0]!.multiple = true;
    assert.equal('multiple' in (modelInput(draft).common.fields as Record<string, unknown>[])[0]!, false);
  });
});
