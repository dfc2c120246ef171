// The renderer of `content-service types`, models in, exact text out: naming (PascalCase, collisions, reserved
// names, leading digits), order (by slug, in code-unit order; fields as defined), comments made safe, quoting,
// unknown field types. And the short diff `--check` prints.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pascalCase, renderModelTypes, TYPES_HEADER, type TypedModel } from '../../src/client/render-types.js';
import { lineDiff } from '../../src/cli/line-diff.js';
import type { FieldDefinition } from '../../src/client/types.js';

function field(key: string, type: string, extra: Partial<FieldDefinition> = {}): FieldDefinition {
  return { key, label: key, type, required: false, ...extra };
}

function model(slug: string, fields: FieldDefinition[], name = slug): TypedModel {
  return { slug, name, fields };
}

/** The text after the header. */
function body(models: TypedModel[]): string {
  const text = renderModelTypes(models);
  const header = `${TYPES_HEADER.join('\n')}\n\n`;
  assert.ok(text.startsWith(header));
  return text.slice(header.length);
}

describe('renderModelTypes', () => {
  test('no models: an empty Models map', () => {
    assert.equal(
      body([]),
      '/** Every model of the workspace by slug: `new ContentClient<Models>(…)` types reads and writes by slug. */\n' +
        'export interface Models {}\n',
    );
  });

  test('slugs in PascalCase; a leading digit gets "Model"; collisions numbered in slug order; Models and Record reserved', () => {
    assert.equal(pascalCase('blog-post'), 'BlogPost');
    assert.equal(pascalCase('blog_post'), 'BlogPost');
    assert.equal(pascalCase('3d-scan'), 'Model3dScan');
    assert.equal(pascalCase('a--b__c'), 'ABC');
    const fields = [field('title', 'text')];
    const text = body([
      model('models', fields),
      model('blog_post', fields),
      model('item2', fields),
      model('item_', fields),
      model('blog-post', fields),
      model('record', fields),
      model('item', fields),
    ]);
    const names = [...text.matchAll(/^export interface (\w+)/gm)].map((match) => match[1]);
    assert.deepEqual(names, ['BlogPost', 'BlogPost2', 'Item', 'Item2', 'Item3', 'Models2', 'Record2', 'Models']);
    assert.match(
      text,
      /export interface Models \{\n {2}"blog-post": BlogPost;\n {2}"blog_post": BlogPost2;\n {2}"item": Item;\n {2}"item2": Item2;\n {2}"item_": Item3;\n {2}"models": Models2;\n {2}"record": Record2;\n\}\n$/,
    );
  });

  test('models claim their names before object fields do: a nested interface takes the next free name', () => {
    const text = body([
      model('product', [field('dimensions', 'object', { fields: [field('width', 'number', { required: true })] })]),
      model('product-dimensions', [field('title', 'text')]),
    ]);
    assert.match(text, /export interface Product \{\n {2}dimensions\?: ProductDimensions2;\n\}/);
    assert.match(text, /export interface ProductDimensions2 \{\n {2}width: number;\n\}/);
    assert.match(text, /"product-dimensions": ProductDimensions;/);
  });

  test('the same models in any order, and read again, give the same bytes; fields stay in their defined order', () => {
    const models = [
      model('b', [field('z', 'text'), field('a', 'number', { required: true })]),
      model('a', [field('one', 'boolean')]),
      model('B', [field('x', 'date')]),
    ];
    const text = renderModelTypes(models);
    assert.equal(renderModelTypes([...models].reverse()), text);
    assert.equal(renderModelTypes(JSON.parse(JSON.stringify(models)) as TypedModel[]), text);
    // Code-unit order: "B" (0x42) before "a" and "b", whatever the locale.
    assert.deepEqual(
      [...text.matchAll(/^ {2}"(\w+)": /gm)].map((match) => match[1]),
      ['B', 'a', 'b'],
    );
    assert.match(text, /export interface B2 \{\n {2}z\?: string;\n {2}a: number;\n\}/);
  });

  test('labels, names and descriptions cannot end a comment early or break a line; keys that are not identifiers are quoted', () => {
    const text = body([
      model('x', [field('a', 'text', { label: 'Ends */ here\nand goes on' }), field('weird-key', 'number')], 'Name */ x'),
    ]);
    assert.match(text, /^\/\*\* Name \*\\\/ x \(model "x"\) \*\/$/m);
    assert.match(text, /^ {2}\/\*\* Ends \*\\\/ here and goes on \*\/$/m);
    assert.match(text, /^ {2}"weird-key"\?: number;$/m);
  });

  test('every field type; relations default to hasOne; media is asset ids; an object with no sub-fields listed holds any JSON', () => {
    const text = body([
      model('every', [
        field('text', 'text', { required: true }),
        field('number', 'number'),
        field('boolean', 'boolean'),
        field('date', 'date'),
        field('one', 'relation', { relationTo: 'model:every' }),
        field('many', 'relation', { relationTo: 'model:every', relationType: 'hasMany' }),
        field('name', 'translatable'),
        field('free', 'object'),
        field('empty', 'object', { fields: [] }),
        field('photo', 'media', { label: 'Photo', acceptedTypes: ['image'], required: true }),
        field('files', 'media', { multiple: true, acceptedTypes: [] }),
        field('future', 'geo-point'),
      ]),
    ]);
    assert.equal(
      text.split('\n\n')[0],
      [
        '/** Model "every" */',
        'export interface Every {',
        '  text: string;',
        '  number?: number;',
        '  boolean?: boolean;',
        '  /** ISO 8601 date or date-time */',
        '  date?: string;',
        '  /** id of a record of model "every" */',
        '  one?: string;',
        '  /** ids of records of model "every" */',
        '  many?: string[];',
        '  /** text by locale code, such as { en: "…" } */',
        '  name?: Record<string, string>;',
        '  free?: Record<string, unknown>;',
        '  empty?: Record<string, never>;',
        '  /** id of an asset (image); populated: PopulatedAsset */',
        '  photo: string;',
        '  /** ids of assets; populated: PopulatedAsset[] */',
        '  files?: string[];',
        '  /** field type "geo-point", unknown to this version */',
        '  future?: unknown;',
        '}',
      ].join('\n'),
    );
  });
});

describe('lineDiff', () => {
  test('the same texts: no diff', () => {
    assert.equal(lineDiff('a\nb\n', 'a\nb\n', ['old', 'new']), '');
  });

  test('separate changes make separate hunks with two lines of context', () => {
    const old = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', ''].join('\n');
    const changed = ['1', 'two', '3', '4', '5', '6', '7', '8', '9', '10', '11', ''].join('\n');
    assert.equal(
      lineDiff(old, changed, ['a', 'b']),
      ['--- a', '+++ b', '@@ -1,4 +1,4 @@', ' 1', '-2', '+two', ' 3', ' 4', '@@ -9,2 +9,3 @@', ' 9', ' 10', '+11', ''].join('\n'),
    );
  });

  test('a long diff is cut, saying how many lines are left out', () => {
    const old = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const changed = Array.from({ length: 100 }, (_, i) => `LINE ${i}`).join('\n');
    const diff = lineDiff(old, changed, ['a', 'b'], { maxLines: 10 }).split('\n');
    assert.equal(diff.length, 12);
    assert.equal(diff[10], '… 193 more lines of diff');
  });
});
