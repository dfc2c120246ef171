// The CSV import page's views, built from its state (import-state.ts): the message for a file too big, the
// mapping table, the mapping's problems, the preview, the progress and the outcome.
import type { ColumnMapping } from './cells.js';
import type { Cell } from './csv.js';
import { h, scrollingTable, uid } from './dom.js';
import type { ImportOutcome } from './import-run.js';
import {
  SHOWN_ERRORS,
  columnSamples,
  errorsCaption,
  mappingValue,
  outcomeTitle,
  type MappingReport,
  type Preview,
  type TargetOption,
} from './import-state.js';
import type { ModelDefinition } from './types.js';
import { alertBox, button, linkButton, noticeBox } from './ui.js';
import { formatBytes } from './values.js';

export function tooBigMessage(file: File, model: ModelDefinition): HTMLElement {
  return alertBox([
    `${file.name} is ${formatBytes(file.size)}; the browser import takes files up to 5 MB. Import it with the command line instead (see docs/client.md): `,
    h('code', { class: 'block' }, `npx content-service import ${file.name} --model ${model.slug} --errors errors.csv`),
    ' It reads files of any size and sends them in batches of 1000 rows.',
  ]);
}

/** The mapping's problems and the required fields without a column. */
export function mappingProblemsView(report: MappingReport): HTMLElement[] {
  return [
    ...(report.problems.length > 0
      ? [
          alertBox(
            h(
              'ul',
              null,
              report.problems.map((problem) => h('li', null, problem)),
            ),
            { title: 'Fix the mapping:' },
          ),
        ]
      : []),
    ...(report.unmappedRequired.length > 0
      ? [
          h(
            'p',
            { class: 'warning' },
            `Required fields without a column: ${report.unmappedRequired.map((field) => field.key).join(', ')}. Rows will fail unless the field is filled.`,
          ),
        ]
      : []),
  ];
}

export function previewView(shown: Preview, rowCount: number): HTMLElement[] {
  return [
    h('h3', null, `Preview: the first ${shown.rows.length} of ${rowCount.toLocaleString()} rows as they will be sent`),
    h(
      'div',
      { class: 'table-scroll' },
      h(
        'table',
        { class: 'table preview' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', { scope: 'col' }, 'Row'),
            shown.headings.map((heading) => h('th', { scope: 'col' }, heading)),
          ),
        ),
        h(
          'tbody',
          null,
          shown.rows.map(({ row, cells }) =>
            h(
              'tr',
              null,
              h('th', { scope: 'row' }, String(row)),
              cells.map((cell) => {
                if ('problem' in cell) return h('td', { class: 'cell-error' }, cell.problem);
                return h(
                  'td',
                  null,
                  cell.value === undefined
                    ? h('span', { class: 'muted' }, '(empty)')
                    : h('code', null, JSON.stringify(cell.value)),
                );
              }),
            ),
          ),
        ),
      ),
    ),
  ];
}

/** The table of the file's columns, each with a select of the field it fills; `onChange` gets the new mapping. */
export function mappingTable(
  header: readonly Cell[],
  rows: readonly Cell[][],
  mappings: readonly ColumnMapping[],
  options: readonly TargetOption[],
  onChange: (column: number, mapping: ColumnMapping) => void,
): HTMLElement {
  const columnRow = (name: Cell, column: number) => {
    const selectId = uid('map');
    const control: HTMLSelectElement = h(
      'select',
      {
        id: selectId,
        'data-column': String(column),
        onchange: () => onChange(column, options.find((option) => option.value === control.value)?.mapping ?? null),
      },
      options.map((option) => h('option', { value: option.value }, option.label)),
    );
    control.value = mappingValue(mappings[column] ?? null);
    return h(
      'tr',
      null,
      h('th', { scope: 'row' }, h('label', { for: selectId }, name ?? `(column ${column + 1})`)),
      h('td', { class: 'muted' }, columnSamples(rows, column)),
      h('td', null, control),
    );
  };
  return scrollingTable(
    h(
      'table',
      { class: 'table mapping' },
      h('caption', null, 'Columns of the file and the fields they fill'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'Column'),
          h('th', { scope: 'col' }, 'First values'),
          h('th', { scope: 'col' }, 'Field'),
        ),
      ),
      h('tbody', null, header.map(columnRow)),
    ),
  );
}

export function progressSection(fileName: string, progress: HTMLElement, text: HTMLElement, cancel: HTMLElement) {
  return h(
    'section',
    { 'aria-labelledby': 'progress-title', class: 'import-progress' },
    h('h2', { id: 'progress-title' }, `Importing ${fileName}`),
    h('label', { for: 'import-progress' }, 'Progress'),
    progress,
    text,
    cancel,
  );
}

function failedRows(outcome: ImportOutcome, downloadErrors: () => void): HTMLElement[] {
  return [
    h(
      'p',
      null,
      button('Download failed rows (CSV)', downloadErrors, { class: 'button' }),
      ' ',
      h('span', { class: 'muted' }, 'The file has the failed rows with _line and _error columns; fix them and import it again.'),
    ),
    scrollingTable(
      h(
        'table',
        { class: 'table import-errors' },
        h('caption', null, errorsCaption(outcome.errors.length)),
        h(
          'thead',
          null,
          h('tr', null, h('th', { scope: 'col' }, 'Row'), h('th', { scope: 'col' }, 'Line'), h('th', { scope: 'col' }, 'Error')),
        ),
        h(
          'tbody',
          null,
          outcome.errors
            .slice(0, SHOWN_ERRORS)
            .map((error) =>
              h(
                'tr',
                null,
                h('td', { class: 'num' }, String(error.row)),
                h('td', { class: 'num' }, String(error.line)),
                h('td', null, error.message),
              ),
            ),
        ),
      ),
    ),
  ];
}

export function outcomeSection(
  model: ModelDefinition,
  outcome: ImportOutcome,
  summary: string,
  downloadErrors: () => void,
): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'outcome-title', class: 'import-outcome' },
    h('h2', { id: 'outcome-title', tabindex: '-1' }, outcomeTitle(outcome)),
    outcome.stopped ? alertBox(outcome.stopped) : null,
    outcome.failed > 0 ? alertBox(summary) : noticeBox(summary),
    outcome.errors.length > 0 ? failedRows(outcome, downloadErrors) : null,
    h(
      'p',
      null,
      linkButton(`See the records of ${model.name}`, `#/models/${model.id}/records`),
      ' ',
      h('span', { class: 'muted' }, 'or choose another file above.'),
    ),
  );
}

export function importBreadcrumbs(model: ModelDefinition): HTMLElement {
  return h(
    'p',
    { class: 'breadcrumbs' },
    h('a', { href: '#/models' }, 'Models'),
    ' / ',
    h('a', { href: `#/models/${model.id}/records` }, model.name),
    ' / Import',
  );
}

/** What an import does, and the model's fields. */
export function importFieldsNote(model: ModelDefinition): HTMLElement {
  return h(
    'p',
    { class: 'muted' },
    'Rows are added as new records (an import never updates). Fields: ',
    model.fields.map((field, index) => [
      index > 0 ? ', ' : '',
      h('code', null, field.key),
      ` ${field.type}${field.required ? ' (required)' : ''}`,
    ]),
    '.',
  );
}
