// CSV import in the browser: a file of at most 5 MB is read and parsed here, its columns matched to the model's
// fields (changeable), a preview shows the converted values, and the rows go to `record.import` in calls of
// 1000 rows with a progress bar. Failed rows are listed with their row and line in the file and can be
// downloaded as CSV (fix them and import that file again). Bigger files: the CLI (`content-service import`).
import { gql } from './api.js';
import { autoMap, convertRow, mappingProblems, type ColumnMapping } from './cells.js';
import { CsvSyntaxError, parseCsv, type Cell, type ParsedCsv } from './csv.js';
import { h, replaceChildren, uid, scrollingTable } from './dom.js';
import { errorsCsv, runImport, type ImportBatchResult, type ImportOutcome } from './import-run.js';
import { MODEL_SELECTION } from './models-cache.js';
import type { PageContext } from './page.js';
import type { FieldDefinition, JsonObject, ModelDefinition } from './types.js';
import { alertBox, announce, button, download, errorArea, labelled, linkButton, noticeBox, pageHeader } from './ui.js';
import { formatBytes } from './values.js';

export const MAX_FILE_BYTES = 5 * 1024 * 1024;
const PREVIEW_ROWS = 5;
const SHOWN_ERRORS = 200;

/** Options of a column's select: ignore, each field, and each translatable field per locale. */
function targetOptions(
  fields: readonly FieldDefinition[],
  locales: readonly string[],
): { value: string; label: string; mapping: ColumnMapping }[] {
  const options: { value: string; label: string; mapping: ColumnMapping }[] = [
    { value: '', label: '(ignore this column)', mapping: null },
  ];
  for (const field of fields) {
    options.push({
      value: field.key,
      label: `${field.label} (${field.key}, ${field.type === 'translatable' ? 'JSON of all locales' : field.type})`,
      mapping: { field },
    });
    if (field.type === 'translatable') {
      for (const locale of locales) {
        options.push({
          value: `${field.key}.${locale}`,
          label: `${field.label} in ${locale} (${field.key}.${locale})`,
          mapping: { field, locale },
        });
      }
    }
  }
  return options;
}

function mappingValue(mapping: ColumnMapping): string {
  if (!mapping) return '';
  return mapping.locale === undefined ? mapping.field.key : `${mapping.field.key}.${mapping.locale}`;
}

function tooBigMessage(file: File, model: ModelDefinition): HTMLElement {
  return alertBox([
    `${file.name} is ${formatBytes(file.size)}; the browser import takes files up to 5 MB. Import it with the command line instead (see docs/client.md): `,
    h('code', { class: 'block' }, `npx content-service import ${file.name} --model ${model.slug} --errors errors.csv`),
    ' It reads files of any size and sends them in batches of 1000 rows.',
  ]);
}

export async function renderImport(ctx: PageContext): Promise<void> {
  const modelId = ctx.params.modelId!;
  const data = await gql<{ model: { get: ModelDefinition | null } }>(
    `query AdminModel($id: ID!) { model { get(id: $id) { ${MODEL_SELECTION} } } }`,
    { id: modelId },
  );
  if (!ctx.isCurrent()) return;
  const model = data.model.get;
  if (!model) {
    replaceChildren(ctx.main, pageHeader('Model not found'), alertBox('This model does not exist in this workspace (any more).'));
    return;
  }
  ctx.setTitle(`Import CSV into ${model.name}`);

  const errors = errorArea();
  const stage = h('div', { class: 'import-stage' });
  const fileInput = h('input', { type: 'file', id: 'import-file', accept: '.csv,text/csv', name: 'file' });
  const fileRow = labelled('CSV file', fileInput, {
    hint: 'Up to 5 MB, with a header row. Columns are matched to fields by key or label; empty cells are left out. Bigger files: the command line, content-service import.',
  });

  const readChosenFile = async () => {
    errors.clear();
    stage.replaceChildren();
    const file = fileInput.files?.[0];
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) {
      stage.append(tooBigMessage(file, model));
      announce('The file is too big for the browser import.');
      return;
    }
    let parsed: ParsedCsv;
    try {
      parsed = await parseCsv(await file.text());
    } catch (error) {
      errors.show(
        error instanceof CsvSyntaxError ? `${file.name}, ${error.message}` : error,
        'The file could not be read as CSV.',
      );
      return;
    }
    if (parsed.rows.length < 2) {
      errors.show(`${file.name} has ${parsed.rows.length === 0 ? 'no rows' : 'a header but no rows'}.`, 'Nothing to import.');
      return;
    }
    showPreview(file, parsed);
  };
  // Fire-and-forget (see Listener in dom.ts): reading the file shows its own failures.
  fileInput.addEventListener('change', () => void readChosenFile());

  const showPreview = (file: File, parsed: ParsedCsv) => {
    const header = parsed.rows[0]!;
    const rows = parsed.rows.slice(1);
    const lines = parsed.lines.slice(1);
    const mappings: ColumnMapping[] = autoMap(header, model.fields);
    const headerLocales = header
      .map((name) => /[._ (]([a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)\)?$/.exec((name ?? '').trim())?.[1])
      .filter((locale): locale is string => Boolean(locale));
    const locales = [...new Set([...headerLocales, 'en'])];
    const options = targetOptions(model.fields, locales);

    const problemsArea = h('div');
    const previewArea = h('div');
    const startButton = h(
      'button',
      { type: 'button', class: 'button button-primary' },
      `Import ${rows.length.toLocaleString()} rows`,
    );

    const refresh = () => {
      const problems = mappingProblems(mappings, header);
      const unmappedRequired = model.fields.filter(
        (field) => field.required && !mappings.some((mapping) => mapping?.field.key === field.key),
      );
      problemsArea.replaceChildren(
        ...(problems.length > 0
          ? [
              alertBox(
                h(
                  'ul',
                  null,
                  problems.map((problem) => h('li', null, problem)),
                ),
                { title: 'Fix the mapping:' },
              ),
            ]
          : []),
        ...(unmappedRequired.length > 0
          ? [
              h(
                'p',
                { class: 'warning' },
                `Required fields without a column: ${unmappedRequired.map((field) => field.key).join(', ')}. Rows will fail unless the field is filled.`,
              ),
            ]
          : []),
      );
      startButton.disabled = problems.length > 0 || mappings.every((mapping) => mapping === null);
      const mapped = mappings.map((mapping, column) => ({ mapping, column })).filter((entry) => entry.mapping !== null);
      const sample = rows.slice(0, PREVIEW_ROWS).map((cells, index) => ({ index, converted: convertRow(cells, mappings) }));
      previewArea.replaceChildren(
        h('h3', null, `Preview: the first ${sample.length} of ${rows.length.toLocaleString()} rows as they will be sent`),
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
                mapped.map(({ mapping }) => h('th', { scope: 'col' }, mappingValue(mapping))),
              ),
            ),
            h(
              'tbody',
              null,
              sample.map(({ index, converted }) =>
                h(
                  'tr',
                  null,
                  h('th', { scope: 'row' }, String(index + 1)),
                  mapped.map(({ mapping, column }) => {
                    const problem = converted.problems.find((candidate) => candidate.column === column);
                    if (problem) return h('td', { class: 'cell-error' }, problem.message);
                    const value =
                      mapping!.locale === undefined
                        ? converted.data[mapping!.field.key]
                        : (converted.data[mapping!.field.key] as JsonObject | undefined)?.[mapping!.locale];
                    return h(
                      'td',
                      null,
                      value === undefined ? h('span', { class: 'muted' }, '(empty)') : h('code', null, JSON.stringify(value)),
                    );
                  }),
                ),
              ),
            ),
          ),
        ),
      );
    };

    const mappingTable = scrollingTable(
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
        h(
          'tbody',
          null,
          header.map((name, column) => {
            const selectId = uid('map');
            const control = h(
              'select',
              {
                id: selectId,
                'data-column': String(column),
                onchange: () => {
                  mappings[column] = options.find((option) => option.value === control.value)?.mapping ?? null;
                  refresh();
                },
              },
              options.map((option) => h('option', { value: option.value }, option.label)),
            );
            control.value = mappingValue(mappings[column] ?? null);
            const samples = rows
              .slice(0, 3)
              .map((cells) => cells[column])
              .filter((cell): cell is string => cell !== null && cell !== undefined);
            return h(
              'tr',
              null,
              h('th', { scope: 'row' }, h('label', { for: selectId }, name ?? `(column ${column + 1})`)),
              h(
                'td',
                { class: 'muted' },
                samples.map((sample) => (sample.length > 30 ? `${sample.slice(0, 29)}…` : sample)).join(' · '),
              ),
              h('td', null, control),
            );
          }),
        ),
      ),
    );

    startButton.addEventListener('click', () => void start(file, header, rows, lines, mappings));
    refresh();
    stage.replaceChildren(
      h(
        'section',
        { 'aria-labelledby': 'mapping-title' },
        h('h2', { id: 'mapping-title' }, `Map the columns of ${file.name}`),
        h('p', { class: 'muted' }, `${formatBytes(file.size)}, ${rows.length.toLocaleString()} rows, ${header.length} columns.`),
        mappingTable,
        problemsArea,
        previewArea,
      ),
      h('div', { class: 'form-actions' }, startButton),
    );
  };

  const start = async (
    file: File,
    header: readonly Cell[],
    rows: readonly Cell[][],
    lines: readonly number[],
    mappings: readonly ColumnMapping[],
  ) => {
    fileInput.disabled = true;
    let cancelled = false;
    const progress = h('progress', { id: 'import-progress', max: String(rows.length), value: '0' });
    const progressText = h('p', { class: 'progress-text', 'aria-live': 'polite' }, `0 of ${rows.length.toLocaleString()} rows`);
    const cancel = button('Cancel', () => {
      cancelled = true;
      cancel.disabled = true;
      cancel.textContent = 'Cancelling after this batch…';
    });
    stage.replaceChildren(
      h(
        'section',
        { 'aria-labelledby': 'progress-title', class: 'import-progress' },
        h('h2', { id: 'progress-title' }, `Importing ${file.name}`),
        h('label', { for: 'import-progress' }, 'Progress'),
        progress,
        progressText,
        cancel,
      ),
    );
    progress.focus();
    const send = async (batch: JsonObject[]): Promise<ImportBatchResult> => {
      const result = await gql<{ record: { import: ImportBatchResult } }>(
        'mutation ImportRecords($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount errors { row message } } } }',
        { input: { modelId: model.id, rows: batch } },
      );
      return result.record.import;
    };
    const outcome = await runImport({
      rows,
      lines,
      mappings,
      send,
      cancelled: () => cancelled,
      onProgress: (state) => {
        progress.value = state.done;
        progressText.textContent = `${state.done.toLocaleString()} of ${state.total.toLocaleString()} rows: ${state.imported.toLocaleString()} imported, ${state.failed.toLocaleString()} failed`;
      },
    });
    if (!ctx.isCurrent()) {
      // Left during the import, which went on: say how it ended on the page shown next.
      ctx.flash(
        `Import of ${file.name} into ${model.name}: ${outcome.imported.toLocaleString()} of ${outcome.total.toLocaleString()} rows imported, ${outcome.failed.toLocaleString()} failed${outcome.stopped ? ` (${outcome.stopped})` : ''}.`,
      );
      return;
    }
    fileInput.disabled = false;
    showOutcome(file, header, outcome);
  };

  const showOutcome = (file: File, header: readonly Cell[], outcome: ImportOutcome) => {
    const summary = `${outcome.imported.toLocaleString()} of ${outcome.total.toLocaleString()} rows imported, ${outcome.failed.toLocaleString()} failed.`;
    const errorsName = file.name.replace(/\.csv$/i, '') + '-errors.csv';
    const section = h(
      'section',
      { 'aria-labelledby': 'outcome-title', class: 'import-outcome' },
      h(
        'h2',
        { id: 'outcome-title', tabindex: '-1' },
        outcome.stopped ? 'Import stopped' : outcome.failed > 0 ? 'Import finished with errors' : 'Import finished',
      ),
      outcome.stopped ? alertBox(outcome.stopped) : null,
      outcome.failed > 0 ? alertBox(summary) : noticeBox(summary),
      outcome.errors.length > 0
        ? [
            h(
              'p',
              null,
              button('Download failed rows (CSV)', () => download(errorsName, errorsCsv(header, outcome.errors)), {
                class: 'button',
              }),
              ' ',
              h(
                'span',
                { class: 'muted' },
                'The file has the failed rows with _line and _error columns; fix them and import it again.',
              ),
            ),
            scrollingTable(
              h(
                'table',
                { class: 'table import-errors' },
                h(
                  'caption',
                  null,
                  outcome.errors.length > SHOWN_ERRORS
                    ? `The first ${SHOWN_ERRORS} of ${outcome.errors.length} failed rows`
                    : 'Failed rows',
                ),
                h(
                  'thead',
                  null,
                  h(
                    'tr',
                    null,
                    h('th', { scope: 'col' }, 'Row'),
                    h('th', { scope: 'col' }, 'Line'),
                    h('th', { scope: 'col' }, 'Error'),
                  ),
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
          ]
        : null,
      h(
        'p',
        null,
        linkButton(`See the records of ${model.name}`, `#/models/${model.id}/records`),
        ' ',
        h('span', { class: 'muted' }, 'or choose another file above.'),
      ),
    );
    stage.replaceChildren(section);
    section.querySelector<HTMLElement>('h2')?.focus();
    announce(summary);
  };

  replaceChildren(
    ctx.main,
    h(
      'p',
      { class: 'breadcrumbs' },
      h('a', { href: '#/models' }, 'Models'),
      ' / ',
      h('a', { href: `#/models/${model.id}/records` }, model.name),
      ' / Import',
    ),
    pageHeader(`Import CSV into ${model.name}`),
    h(
      'p',
      { class: 'muted' },
      'Rows are added as new records (an import never updates). Fields: ',
      model.fields.map((field, index) => [
        index > 0 ? ', ' : '',
        h('code', null, field.key),
        ` ${field.type}${field.required ? ' (required)' : ''}`,
      ]),
      '.',
    ),
    errors.element,
    fileRow.element,
    stage,
  );
}
