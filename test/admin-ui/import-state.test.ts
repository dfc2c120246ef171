// The CSV import page's state (src/admin-ui/import-state.ts): file checks, the targets a column's select offers,
// how the mapping stands, the preview of the first rows, and the texts of the outcome. No DOM.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  MAX_FILE_BYTES,
  columnSamples,
  emptyFileProblem,
  errorsCaption,
  errorsFileName,
  headerLocales,
  isTooBig,
  leftDuringImportText,
  mappingReport,
  mappingValue,
  outcomeSummary,
  outcomeTitle,
  preview,
  targetOptions,
} from '../../src/admin-ui/import-state.js';
import type { ImportOutcome } from '../../src/admin-ui/import-run.js';
import type { FieldDefinition } from '../../src/admin-ui/types.js';

const fields: FieldDefinition[] = [
  { key: 'title', label: 'Title', type: 'text', required: true },
  { key: 'price', label: 'Unit price', type: 'number', required: false },
  { key: 'name', label: 'Name', type: 'translatable', required: false },
];
const field = (key: string) => fields.find((candidate) => candidate.key === key)!;

function outcome(part: Partial<ImportOutcome>): ImportOutcome {
  return { done: 10, total: 10, imported: 10, failed: 0, errors: [], ...part };
}

describe('import-state: the file and the column targets', () => {
  test('files over 5 MB go to the command line; a file without data rows has nothing to import', () => {
    assert.equal(isTooBig(MAX_FILE_BYTES), false);
    assert.equal(isTooBig(MAX_FILE_BYTES + 1), true);
    assert.equal(emptyFileProblem('a.csv', { rows: [] }), 'a.csv has no rows.');
    assert.equal(emptyFileProblem('a.csv', { rows: [['title']] }), 'a.csv has a header but no rows.');
    assert.equal(emptyFileProblem('a.csv', { rows: [['title'], ['x']] }), null);
  });

  test('ignore, each field, and each translatable field per locale of the header (and English)', () => {
    const locales = headerLocales(['title', 'name.de', 'Name (pt-BR)', null]);
    assert.deepEqual(locales, ['de', 'pt-BR', 'en']);
    const options = targetOptions(fields, locales);
    assert.deepEqual(
      options.map((option) => option.value),
      ['', 'title', 'price', 'name', 'name.de', 'name.pt-BR', 'name.en'],
    );
    assert.equal(options[0]!.mapping, null);
    assert.equal(options[2]!.label, 'Unit price (price, number)');
    assert.equal(options[3]!.label, 'Name (name, JSON of all locales)');
    assert.equal(options[4]!.label, 'Name in de (name.de)');
    assert.equal(mappingValue(options[5]!.mapping), 'name.pt-BR');
    assert.equal(mappingValue(null), '');
  });

  test('the first three values of a column, each cut at 30 characters', () => {
    const long = 'x'.repeat(40);
    assert.equal(columnSamples([['a'], [null], [long], ['d']], 0), `a · ${'x'.repeat(29)}…`);
  });
});

describe('import-state: the mapping and the preview', () => {
  const header = ['Title', 'Price', 'Again'];

  test('a field filled twice is a problem and stops the start; a required field left out is a warning', () => {
    const twice = mappingReport([{ field: field('title') }, null, { field: field('title') }], header, fields);
    assert.equal(twice.problems.length, 1);
    assert.match(twice.problems[0]!, /title is already filled from column 1/);
    assert.equal(twice.canStart, false);
    const noTitle = mappingReport([null, { field: field('price') }, null], header, fields);
    assert.deepEqual(noTitle.problems, []);
    assert.deepEqual(
      noTitle.unmappedRequired.map((entry) => entry.key),
      ['title'],
    );
    assert.equal(noTitle.canStart, true);
    assert.equal(mappingReport([null, null, null], header, fields).canStart, false);
  });

  test('the preview shows the converted values of the mapped columns, problems in their cells', () => {
    const rows = [
      ['Lamp', '12.5', 'x'],
      ['Desk', 'cheap', 'y'],
      ['Chair', '', 'z'],
    ];
    const shown = preview(rows, [{ field: field('title') }, { field: field('price') }, null], 2);
    assert.deepEqual(shown.headings, ['title', 'price']);
    assert.equal(shown.rows.length, 2);
    assert.deepEqual(shown.rows[0], { row: 1, cells: [{ value: 'Lamp' }, { value: 12.5 }] });
    assert.deepEqual(shown.rows[1]!.cells[0], { value: 'Desk' });
    assert.ok('problem' in shown.rows[1]!.cells[1]!);
    const empty = preview(rows, [null, { field: field('price') }, null]);
    assert.deepEqual(empty.rows[2], { row: 3, cells: [{ value: undefined }] });
  });

  test('a locale column previews the value for its locale', () => {
    const shown = preview([['Hallo']], [{ field: field('name'), locale: 'de' }]);
    assert.deepEqual(shown.headings, ['name.de']);
    assert.deepEqual(shown.rows[0]!.cells, [{ value: 'Hallo' }]);
  });
});

describe('import-state: the outcome', () => {
  test('titles, summary and the flash for a user who left', () => {
    assert.equal(outcomeTitle(outcome({})), 'Import finished');
    assert.equal(outcomeTitle(outcome({ failed: 2, imported: 8 })), 'Import finished with errors');
    assert.equal(outcomeTitle(outcome({ stopped: 'Cancelled.' })), 'Import stopped');
    assert.equal(outcomeSummary(outcome({ failed: 2, imported: 8 })), '8 of 10 rows imported, 2 failed.');
    assert.equal(
      leftDuringImportText('a.csv', 'Product', outcome({ imported: 4, failed: 0, stopped: 'cancelled' })),
      'Import of a.csv into Product: 4 of 10 rows imported, 0 failed (cancelled).',
    );
  });

  test('the failed rows file is named after the file; the table says when it shows only the first 200', () => {
    assert.equal(errorsFileName('Products.CSV'), 'Products-errors.csv');
    assert.equal(errorsFileName('data.txt'), 'data.txt-errors.csv');
    assert.equal(errorsCaption(3), 'Failed rows');
    assert.equal(errorsCaption(250), 'The first 200 of 250 failed rows');
  });
});
