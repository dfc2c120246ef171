import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServiceError } from '../../src/domain/errors.js';
import { normaliseModelShape, type ModelDefinitionInput } from '../../src/domain/model-definition.js';

const product: ModelDefinitionInput = {
  name: 'Product',
  slug: 'product',
  displayField: 'title',
  product: { enabled: true, skuField: 'sku', priceField: 'price' },
  fields: [
    { key: 'title', label: 'Title', type: 'text', required: true },
    { key: 'sku', label: 'SKU', type: 'text', required: true },
    { key: 'price', label: 'Price', type: 'number' },
  ],
};

function refusal(input: ModelDefinitionInput, targets: string[] = []): string {
  try {
    normaliseModelShape(input, new Set(targets));
  } catch (error) {
    assert.ok(error instanceof ServiceError);
    assert.equal(error.code, 'BAD_USER_INPUT');
    return error.message;
  }
  assert.fail('expected the definition to be refused');
}

test('model.create: a product model is normalised with defaults', () => {
  const shape = normaliseModelShape(product, new Set());
  assert.equal(shape.deliveryAccess, 'none');
  assert.equal(shape.fields[2]?.required, false);
  assert.deepEqual(shape.product, { enabled: true, skuField: 'sku', priceField: 'price' });
});

test('model.create: field types outside the list are refused naming the field', () => {
  const message = refusal({ ...product, fields: [{ key: 'title', type: 'string' }] });
  assert.match(message, /^fields\[0\]\.type: must be one of text, number, boolean, date, relation, translatable, object, media$/);
});

test('model.create: a relation names an existing model as model:<slug>', () => {
  const relation = (relationTo: string) => ({
    ...product,
    product: null,
    displayField: null,
    fields: [{ key: 'author', type: 'relation', relationTo }],
  });
  assert.match(refusal(relation('author')), /^fields\[0\]\.relationTo: must be "model:<slug>"/);
  assert.match(refusal(relation('model:author')), /no model with slug "author"/);
  assert.equal(normaliseModelShape(relation('model:author'), new Set(['author'])).fields[0]?.relationType, 'hasOne');
  assert.equal(normaliseModelShape(relation('model:product'), new Set()).fields[0]?.relationTo, 'model:product');
});

test('model.create: only a text field can be the SKU, only a number field the price', () => {
  assert.match(
    refusal({ ...product, product: { enabled: true, skuField: 'price' } }),
    /^product\.skuField: must be the key of a text field/,
  );
  assert.match(
    refusal({ ...product, product: { enabled: true, skuField: 'sku', priceField: 'title' } }),
    /^product\.priceField:/,
  );
  assert.match(refusal({ ...product, product: { enabled: true } }), /^product\.skuField: is required/);
});

test('model.create: keys are unique and safe', () => {
  assert.match(
    refusal({
      ...product,
      fields: [
        { key: 'a', type: 'text' },
        { key: 'a', type: 'number' },
      ],
    }),
    /^fields\[1\]\.key:/,
  );
  assert.match(refusal({ ...product, fields: [{ key: '__proto__', type: 'text' }] }), /^fields\[0\]\.key:/);
  assert.match(refusal({ ...product, fields: [{ key: 'has space', type: 'text' }] }), /^fields\[0\]\.key:/);
});

test('model.create: displayField names a field, with a suggestion', () => {
  assert.equal(
    refusal({ ...product, displayField: 'titel' }),
    'displayField: must be the key of one of the model\'s fields (did you mean "title"?)',
  );
});

test('model.create: slug and name are checked', () => {
  assert.match(refusal({ ...product, slug: 'Bad Slug' }), /^slug:/);
  assert.match(refusal({ ...product, name: '' }), /^name:/);
  assert.match(refusal({ ...product, deliveryAccess: 'everyone' }), /^deliveryAccess:/);
  assert.equal(refusal({ ...product, product: null, displayField: null, fields: [] }), 'fields: must define at least one field');
});

test('a media field takes multiple and acceptedTypes; other fields refuse them, naming them', () => {
  const shape = normaliseModelShape(
    {
      ...product,
      fields: [
        ...(product.fields as object[]),
        { key: 'photo', type: 'media', acceptedTypes: ['image', 'image'] },
        { key: 'files', type: 'media', multiple: true },
      ],
    },
    new Set(),
  );
  assert.deepEqual(shape.fields.at(-2), {
    key: 'photo',
    label: 'photo',
    type: 'media',
    required: false,
    acceptedTypes: ['image'],
  });
  assert.deepEqual(shape.fields.at(-1), { key: 'files', label: 'files', type: 'media', required: false, multiple: true });
  assert.equal(
    refusal({ ...product, fields: [{ key: 'photo', type: 'media', acceptedTypes: ['picture'] }] }),
    'fields[0].acceptedTypes[0]: must be one of image, video, audio, document',
  );
  assert.equal(
    refusal({ ...product, fields: [{ key: 'title', type: 'text', multiple: true }] }),
    'fields[0].multiple: is only allowed on media fields',
  );
  assert.equal(
    refusal({ ...product, fields: [{ key: 'box', type: 'object', fields: [{ key: 'photo', type: 'media' }] }] }),
    'fields[0].fields[0].type: media fields cannot be sub-fields of an object field',
  );
});
