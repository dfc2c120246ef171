// CSV import in the browser: a file of at most 5 MB is read and parsed here, its columns matched to the model's
// fields (changeable), a preview shows the converted values, and the rows go to `record.import` in calls of
// 1000 rows with a progress bar. Failed rows are listed with their row and line in the file and can be
// downloaded as CSV (fix them and import that file again). Bigger files: the CLI (`content-service import`).
// The page's state is import-state.ts, its calls import-api.ts, its views import-views.ts.
import { autoMap, type ColumnMapping } from './cells.js';
import { CsvSyntaxError, parseCsv, type Cell, type ParsedCsv } from './csv.js';
import { h, replaceChildren } from './dom.js';
import { loadImportModel, sendImportBatch } from './import-api.js';
import { errorsCsv, runImport, type ImportOutcome } from './import-run.js';
import {
  emptyFileProblem,
  errorsFileName,
  headerLocales,
  isTooBig,
  leftDuringImportText,
  mappingReport,
  outcomeSummary,
  preview,
  progressText,
  targetOptions,
} from './import-state.js';
import {
  importBreadcrumbs,
  importFieldsNote,
  mappingProblemsView,
  mappingTable,
  outcomeSection,
  previewView,
  progressSection,
  tooBigMessage,
} from './import-views.js';
import type { PageContext } from './page.js';
import type { ModelDefinition } from './types.js';
import { alertBox, announce, button, download, errorArea, labelled, pageHeader } from './ui.js';
import { formatBytes } from './values.js';

/** The parsed file being imported. */
interface ChosenFile {
  file: File;
  header: readonly Cell[];
  rows: readonly Cell[][];
  lines: readonly number[];
}

/** The page's parts that outlive one stage: the file input, the stage below it and the error area. */
interface ImportPage {
  ctx: PageContext;
  model: ModelDefinition;
  fileInput: HTMLInputElement;
  stage: HTMLElement;
  errors: ReturnType<typeof errorArea>;
}

async function readChosenFile(page: ImportPage): Promise<void> {
  const { fileInput, stage, errors, model } = page;
  errors.clear();
  stage.replaceChildren();
  const file = fileInput.files?.[0];
  if (!file) return;
  if (isTooBig(file.size)) {
    stage.append(tooBigMessage(file, model));
    announce('The file is too big for the browser import.');
    return;
  }
  let parsed: ParsedCsv;
  try {
    parsed = await parseCsv(await file.text());
  } catch (error) {
    errors.show(error instanceof CsvSyntaxError ? `${file.name}, ${error.message}` : error, 'The file could not be read as CSV.');
    return;
  }
  const empty = emptyFileProblem(file.name, parsed);
  if (empty !== null) {
    errors.show(empty, 'Nothing to import.');
    return;
  }
  showMapping(page, { file, header: parsed.rows[0]!, rows: parsed.rows.slice(1), lines: parsed.lines.slice(1) });
}

function showMapping(page: ImportPage, chosen: ChosenFile): void {
  const { model } = page;
  const { file, header, rows } = chosen;
  const mappings: ColumnMapping[] = autoMap(header, model.fields);
  const options = targetOptions(model.fields, headerLocales(header));
  const problemsArea = h('div');
  const previewArea = h('div');
  const startButton = h(
    'button',
    { type: 'button', class: 'button button-primary' },
    `Import ${rows.length.toLocaleString()} rows`,
  );
  const refresh = () => {
    const report = mappingReport(mappings, header, model.fields);
    problemsArea.replaceChildren(...mappingProblemsView(report));
    startButton.disabled = !report.canStart;
    previewArea.replaceChildren(...previewView(preview(rows, mappings), rows.length));
  };
  const table = mappingTable(header, rows, mappings, options, (column, mapping) => {
    mappings[column] = mapping;
    refresh();
  });
  startButton.addEventListener('click', () => void start(page, chosen, mappings));
  refresh();
  page.stage.replaceChildren(
    h(
      'section',
      { 'aria-labelledby': 'mapping-title' },
      h('h2', { id: 'mapping-title' }, `Map the columns of ${file.name}`),
      h('p', { class: 'muted' }, `${formatBytes(file.size)}, ${rows.length.toLocaleString()} rows, ${header.length} columns.`),
      table,
      problemsArea,
      previewArea,
    ),
    h('div', { class: 'form-actions' }, startButton),
  );
}

async function start(page: ImportPage, chosen: ChosenFile, mappings: readonly ColumnMapping[]): Promise<void> {
  const { ctx, model, fileInput, stage } = page;
  const { file, rows, lines } = chosen;
  fileInput.disabled = true;
  let cancelled = false;
  const progress = h('progress', { id: 'import-progress', max: String(rows.length), value: '0' });
  const text = h('p', { class: 'progress-text', 'aria-live': 'polite' }, `0 of ${rows.length.toLocaleString()} rows`);
  const cancel = button('Cancel', () => {
    cancelled = true;
    cancel.disabled = true;
    cancel.textContent = 'Cancelling after this batch…';
  });
  stage.replaceChildren(progressSection(file.name, progress, text, cancel));
  progress.focus();
  const outcome = await runImport({
    rows,
    lines,
    mappings,
    send: (batch) => sendImportBatch(model.id, batch),
    cancelled: () => cancelled,
    onProgress: (state) => {
      progress.value = state.done;
      text.textContent = progressText(state.done, state.total, state.imported, state.failed);
    },
  });
  if (!ctx.isCurrent()) {
    // Left during the import, which went on: say how it ended on the page shown next.
    ctx.flash(leftDuringImportText(file.name, model.name, outcome));
    return;
  }
  fileInput.disabled = false;
  showOutcome(page, chosen, outcome);
}

function showOutcome(page: ImportPage, chosen: ChosenFile, outcome: ImportOutcome): void {
  const summary = outcomeSummary(outcome);
  const section = outcomeSection(page.model, outcome, summary, () =>
    download(errorsFileName(chosen.file.name), errorsCsv(chosen.header, outcome.errors)),
  );
  page.stage.replaceChildren(section);
  section.querySelector<HTMLElement>('h2')?.focus();
  announce(summary);
}

export async function renderImport(ctx: PageContext): Promise<void> {
  const model = await loadImportModel(ctx.params.modelId!);
  if (!ctx.isCurrent()) return;
  if (!model) {
    replaceChildren(ctx.main, pageHeader('Model not found'), alertBox('This model does not exist in this workspace (any more).'));
    return;
  }
  ctx.setTitle(`Import CSV into ${model.name}`);
  const fileInput = h('input', { type: 'file', id: 'import-file', accept: '.csv,text/csv', name: 'file' });
  const fileRow = labelled('CSV file', fileInput, {
    hint: 'Up to 5 MB, with a header row. Columns are matched to fields by key or label; empty cells are left out. Bigger files: the command line, content-service import.',
  });
  const page: ImportPage = { ctx, model, fileInput, stage: h('div', { class: 'import-stage' }), errors: errorArea() };
  // Fire-and-forget (see Listener in dom.ts): reading the file shows its own failures.
  fileInput.addEventListener('change', () => void readChosenFile(page));
  replaceChildren(
    ctx.main,
    importBreadcrumbs(model),
    pageHeader(`Import CSV into ${model.name}`),
    importFieldsNote(model),
    page.errors.element,
    fileRow.element,
    page.stage,
  );
}
