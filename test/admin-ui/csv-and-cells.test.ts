// The admin application's pure parts, without a browser: the CSV reader, column mapping, cell conversion,
// the import run (batches, row numbers of the file, splitting on 413), merge patches and field messages.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { autoMap, convertCell, convertRow, mappingProblems } from '../../src/admin-ui/cells.js';
import { csvLine, CsvSyntaxError, parseCsv } from '../../src/admin-ui/csv.js';
import { csvColumns, csvRowToData, type CellError } from '../../src/client/cells.js';
import { errorsCsv, runImport, type ImportBatchResult } from '../../src/admin-ui/import-run.js';
import type { FieldDefinition, JsonObject } from '../../src/admin-ui/types.js';
import { keyify, mergePatch, pathPrefixes, slugify, splitFieldMessage } from '../../src/admin-ui/values.js';

const fields: FieldDefinition[] = [
  { key: 'title', label: 'Title', type: 'text', required: true },
  { key: 'sku', label: 'SKU', type: 'text', required: true },
  { key: 'price', label: 'Unit price', type: 'number', required: false },
  { key: 'inStock', label: 'In stock', type: 'boolean', required: false },
  { key: 'released', label: 'Released', type: 'date', required: false },
  { key: 'name', label: 'Name', type: 'translatable', required: false },
  {
    key: 'dims',
    label: 'Dimensions',
    type: 'object',
    required: false,
    fields: [{ key: 'w', label: 'W', type: 'number', required: false }],
  },
  { key: 'tags', label: 'Tags', type: 'relation', required: false, relationTo: 'model:tag', relationType: 'hasMany' },
  { key: 'maker', label: 'Maker', type: 'relation', required: false, relationTo: 'model:maker', relationType: 'hasOne' },
];
const field = (key: string) => fields.find((candidate) => candidate.key === key)!;

describe('parseCsv (RFC 4180, csv-parse as in the CLI; the shared fixtures: test/client/csv-reading.test.ts)', () => {
  test('quoted cells with commas, doubled quotes and line breaks; CRLF; the line each row starts on', async () => {
    const parsed = await parseCsv('a,b,c\r\n1,"x, y","say ""hi"""\r\n2,"two\r\nlines",\r\n3,,""\r\n');
    assert.deepEqual(parsed.rows, [
      ['a', 'b', 'c'],
      ['1', 'x, y', 'say "hi"'],
      ['2', 'two\r\nlines', null],
      ['3', null, ''],
    ]);
    assert.deepEqual(parsed.lines, [1, 2, 3, 5]);
  });

  test('LF and CR line ends, a byte order mark, no final line break, empty lines skipped', async () => {
    const parsed = await parseCsv('\uFEFFa,b\n1,2\r\r\n3,4');
    assert.deepEqual(parsed.rows, [
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
    ]);
    assert.deepEqual(parsed.lines, [1, 2, 4]);
  });

  test('a semicolon or tab header line picks that delimiter; a comma inside quotes does not count', async () => {
    assert.deepEqual((await parseCsv('a;b\n1;"x;y"\n')).rows, [
      ['a', 'b'],
      ['1', 'x;y'],
    ]);
    assert.deepEqual((await parseCsv('a\tb\n1\t2\n')).rows, [
      ['a', 'b'],
      ['1', '2'],
    ]);
    assert.deepEqual((await parseCsv('"a,b";c\n1;2\n')).rows, [
      ['a,b', 'c'],
      ['1', '2'],
    ]);
  });

  test('an unclosed quote, text after a closing quote and a quote inside an unquoted cell are refused with their line', async () => {
    await assert.rejects(
      parseCsv('a\n1\n"open\nstill open'),
      (error: unknown) => error instanceof CsvSyntaxError && error.line === 4 && /Quote Not Closed/.test(error.message),
    );
    await assert.rejects(
      parseCsv('a,b\n"x"y,2\n'),
      (error: unknown) =>
        error instanceof CsvSyntaxError && error.line === 2 && /Invalid Closing Quote: got "y" at line 2/.test(error.message),
    );
    await assert.rejects(
      parseCsv('a,b\n1,x"y\n'),
      (error: unknown) => error instanceof CsvSyntaxError && error.line === 2 && /Invalid Opening Quote/.test(error.message),
    );
  });

  test('csvLine quotes what needs it and reads back the same', async () => {
    const cells = ['plain', 'a,b', 'say "hi"', 'two\nlines', '', null, ' padded '];
    const line = csvLine(cells);
    assert.equal(line, 'plain,"a,b","say ""hi""","two\nlines","",," padded "\r\n');
    assert.deepEqual((await parseCsv(`h1,h2,h3,h4,h5,h6,h7\r\n${line}`)).rows[1], cells);
  });
});

describe('column mapping', () => {
  test('by key or label, any case and punctuation; per-locale columns; `_` columns and unknown ones ignored', () => {
    const header = ['TITLE', 'sku', 'Unit Price', 'in_stock', 'name.en', 'Name (pl)', '_line', 'unknown', 'title'];
    const mapped = autoMap(header, fields).map((mapping) =>
      mapping ? `${mapping.field.key}${mapping.locale ? `.${mapping.locale}` : ''}` : null,
    );
    assert.deepEqual(mapped, ['title', 'sku', 'price', 'inStock', 'name.en', 'name.pl', null, null, null]);
  });

  test('problems: a field filled twice, whole and per locale, a bad locale', () => {
    const header = ['a', 'b', 'c', 'd'];
    const problems = mappingProblems(
      [{ field: field('title') }, { field: field('title') }, { field: field('name') }, { field: field('name'), locale: 'EN!' }],
      header,
    );
    assert.deepEqual(problems, [
      'column 2 (b): title is already filled from column 1',
      'column 4 (d): "EN!" is not a locale code (such as en, pl or pt-BR)',
      'name is mapped both as a whole and per locale; choose one',
    ]);
  });
});

describe('cell conversion by field type', () => {
  test('numbers, booleans, dates, relations, JSON objects; empty cells are no value', () => {
    assert.equal(convertCell({ field: field('price') }, ' 149.99 '), 149.99);
    assert.equal(convertCell({ field: field('price') }, '-1e3'), -1000);
    assert.equal(convertCell({ field: field('inStock') }, 'Yes'), true);
    assert.equal(convertCell({ field: field('inStock') }, '0'), false);
    assert.equal(convertCell({ field: field('released') }, '2024-02-29'), '2024-02-29');
    assert.equal(convertCell({ field: field('released') }, '2024-05-01T12:00:00Z'), '2024-05-01T12:00:00Z');
    assert.deepEqual(convertCell({ field: field('tags') }, 'a | b|'), ['a', 'b']);
    assert.deepEqual(convertCell({ field: field('tags') }, '["a","b"]'), ['a', 'b']);
    assert.equal(convertCell({ field: field('maker') }, ' id-1 '), 'id-1');
    assert.deepEqual(convertCell({ field: field('name') }, '{"en":"Ball"}'), { en: 'Ball' });
    assert.deepEqual(convertCell({ field: field('dims') }, '{"w":2}'), { w: 2 });
    assert.equal(convertCell({ field: field('price') }, null), undefined);
    assert.equal(convertCell({ field: field('price') }, '  '), undefined);
    assert.equal(convertCell({ field: field('title') }, ''), '');
    assert.equal(convertCell({ field: field('name'), locale: 'pl' }, 'Piłka'), 'Piłka');
  });

  test('bad cells say why', () => {
    assert.throws(() => convertCell({ field: field('price') }, '149,99'), /"149,99" is not a number/);
    assert.throws(() => convertCell({ field: field('price') }, '1e999'), /out of range/);
    assert.throws(() => convertCell({ field: field('inStock') }, 'maybe'), /not a boolean/);
    assert.throws(() => convertCell({ field: field('released') }, '2023-02-29'), /not an ISO 8601 date/);
    assert.throws(() => convertCell({ field: field('name') }, 'Ball'), /not a JSON object of locale to text/);
    assert.throws(() => convertCell({ field: field('dims') }, '[1]'), /not a JSON object/);
    assert.throws(() => convertCell({ field: field('tags') }, '[1,2]'), /not a JSON array of record ids/);
  });

  test("the conversion is the CLI's: the same values, and the same messages for bad cells", () => {
    const cases: [string, string | null][] = [
      ['price', ' 149.99 '],
      ['price', 'x'.repeat(80)],
      ['inStock', 'maybe'],
      ['released', '2023-02-29'],
      ['tags', 'a|b'],
      ['tags', '[1]'],
      ['name', 'Ball'],
      ['dims', '{"w":2}'],
      ['dims', '[1]'],
      ['maker', ' id-1 '],
      ['price', ' '],
    ];
    for (const [key, cell] of cases) {
      const columns = csvColumns([key], fields);
      let cli: unknown;
      try {
        cli = csvRowToData([cell], columns, 2)[key];
      } catch (error) {
        cli = (error as CellError).issues[0]!.message;
      }
      let browser: unknown;
      try {
        browser = convertCell({ field: field(key) }, cell) ?? null;
      } catch (error) {
        browser = (error as Error).message;
      }
      assert.deepEqual(browser, cli, `${key}: ${cell}`);
    }
  });

  test('a row: per-locale columns make one object; every bad cell is named by its field', () => {
    const mappings = [
      { field: field('title') },
      { field: field('name'), locale: 'en' },
      { field: field('name'), locale: 'pl' },
      { field: field('price') },
      null,
    ];
    assert.deepEqual(convertRow(['Ball', 'Ball', 'Piłka', '9.5', 'ignored'], mappings), {
      data: { title: 'Ball', name: { en: 'Ball', pl: 'Piłka' }, price: 9.5 },
      problems: [],
    });
    assert.deepEqual(convertRow(['Ball', null, null, 'x'], mappings).problems, [
      { column: 3, message: 'price: "x" is not a number (such as 149.99)' },
    ]);
  });
});

describe('runImport', () => {
  const mappings = [{ field: field('title') }, { field: field('price') }];

  test('batches of at most N rows; server row numbers (1-based per call) and bad cells map to rows and lines of the file', async () => {
    const rows = [
      ['a', '1'],
      ['b', 'x'],
      ['c', '3'],
      ['d', '4'],
      ['e', '5'],
    ];
    const lines = [2, 3, 5, 6, 7];
    const calls: JsonObject[][] = [];
    const progress: number[] = [];
    const outcome = await runImport({
      rows,
      lines,
      mappings,
      batchRows: 2,
      send: async (batch) => {
        calls.push(batch);
        // The second row of each call fails on the server.
        return {
          importedCount: batch.length - (batch.length > 1 ? 1 : 0),
          errors: batch.length > 1 ? [{ row: 2, message: 'title: refused' }] : [],
        };
      },
      onProgress: (state) => progress.push(state.done),
    });
    assert.deepEqual(calls, [
      [{ title: 'a', price: 1 }],
      [
        { title: 'c', price: 3 },
        { title: 'd', price: 4 },
      ],
      [{ title: 'e', price: 5 }],
    ]);
    assert.deepEqual(progress, [2, 4, 5]);
    assert.deepEqual(
      outcome.errors.map((error) => [error.row, error.line, error.message]),
      [
        [2, 3, 'price: "x" is not a number (such as 149.99)'],
        [4, 6, 'title: refused'],
      ],
    );
    assert.equal(outcome.imported, 3);
    assert.equal(outcome.failed, 2);
    assert.equal(outcome.stopped, undefined);
    assert.equal(
      errorsCsv(['title', 'price'], outcome.errors),
      '_line,_error,title,price\r\n3,"price: ""x"" is not a number (such as 149.99)",b,x\r\n6,title: refused,d,4\r\n',
    );
  });

  test('a call refused as too large is split in halves; another request error stops the run and says where', async () => {
    const rows = Array.from({ length: 5 }, (_, index) => [`r${index}`, String(index)]);
    const lines = rows.map((_, index) => index + 2);
    const sizes: number[] = [];
    const tooLarge = Object.assign(new Error('Request body is larger than 10 bytes'), { code: 'PAYLOAD_TOO_LARGE' });
    const outcome = await runImport({
      rows,
      lines,
      mappings,
      send: async (batch): Promise<ImportBatchResult> => {
        sizes.push(batch.length);
        if (batch.length > 2) throw tooLarge;
        return { importedCount: batch.length, errors: [] };
      },
    });
    assert.deepEqual(sizes, [5, 3, 2, 1, 2]);
    assert.equal(outcome.imported, 5);

    let calls = 0;
    const stopped = await runImport({
      rows,
      lines,
      mappings,
      batchRows: 2,
      send: async (batch) => {
        calls++;
        if (calls === 2) throw Object.assign(new Error('Not authorized'), { code: 'UNAUTHENTICATED' });
        return { importedCount: batch.length, errors: [] };
      },
    });
    assert.equal(stopped.stopped, 'Stopped at row 3: Not authorized');
    assert.equal(stopped.imported, 2);
    assert.equal(stopped.done, 2);
  });

  test('cancelling stops before the next call', async () => {
    let cancelled = false;
    const outcome = await runImport({
      rows: [
        ['a', '1'],
        ['b', '2'],
        ['c', '3'],
      ],
      lines: [2, 3, 4],
      mappings,
      batchRows: 1,
      cancelled: () => cancelled,
      send: async (batch) => {
        cancelled = true;
        return { importedCount: batch.length, errors: [] };
      },
    });
    assert.equal(outcome.imported, 1);
    assert.equal(outcome.stopped, 'Cancelled after 1 of 3 rows.');
  });
});

describe('forms', () => {
  test('mergePatch: changed keys, null for removed ones, objects key by key, arrays whole', () => {
    const before = { title: 'Ball', price: 1, name: { en: 'Ball', pl: 'Piłka' }, tags: ['a', 'b'], gone: 'x' };
    const after = { title: 'Ball', price: 2, name: { en: 'Ball' }, tags: ['a'] };
    assert.deepEqual(mergePatch(before, after), { price: 2, name: { pl: null }, tags: ['a'], gone: null });
    assert.deepEqual(mergePatch(before, { ...before }), {});
    assert.deepEqual(mergePatch({}, { dims: { w: 1 } }), { dims: { w: 1 } });
  });

  test('field messages: the path and the reason; paths from the most specific', () => {
    assert.deepEqual(splitFieldMessage('sku: A record with this SKU already exists'), {
      path: 'sku',
      reason: 'A record with this SKU already exists',
    });
    assert.deepEqual(splitFieldMessage('fields[2].relationTo: no model with slug "x"'), {
      path: 'fields[2].relationTo',
      reason: 'no model with slug "x"',
    });
    assert.deepEqual(splitFieldMessage('name.pt-BR: must be a string'), { path: 'name.pt-BR', reason: 'must be a string' });
    assert.equal(splitFieldMessage('Not authorized'), undefined);
    assert.deepEqual(pathPrefixes('fields[2].fields[0].key'), [
      'fields[2].fields[0].key',
      'fields[2].fields[0]',
      'fields[2].fields',
      'fields[2]',
      'fields',
    ]);
  });

  test('slug and key suggestions', () => {
    assert.equal(slugify('Blog post: Déjà vu!'), 'blog-post-deja-vu');
    assert.equal(keyify('Unit price (EUR)'), 'unitPriceEur');
    assert.equal(keyify('3D model'), '_3dModel');
  });
});
