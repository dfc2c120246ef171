// content-service import FILE --model SLUG [--key FIELD] [--prune] [--dry-run] [--errors FILE] [--assets-dir DIR]
import { createWriteStream, type WriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { stringify } from 'csv-stringify/sync';
import { CellError, csvColumns, csvRowToData } from '../client/cells.js';
import { ContentServiceError } from '../client/errors.js';
import type { JsonObject, ModelDefinition, RowError } from '../client/types.js';
import type { LoadSummary } from '../client/load-types.js';
import type { ContentClient } from '../client/client.js';
import {
  connectionOptions,
  fileProblem,
  formatDuration,
  makeClient,
  parseNonNegativeNumber,
  ProgressReporter,
  runCommand,
  UsageError,
  type ConnectionOptions,
} from './client-options.js';
import { formatOf, openInput, type InputRow, type InputSource } from './client-sources.js';
import { alreadyStoredMessage, peek, ROWS_LOOKED_UP, storedAlready } from './already-imported.js';
import { DryRunChecks } from './dry-run-checks.js';
import { parsePositiveInt } from './options.js';
import { readTypedModel } from './types.js';
import { mediaColumns, withAssets, type AssetRow } from './import-assets.js';

interface ImportOptions extends ConnectionOptions {
  model: string;
  key?: string;
  prune?: boolean;
  dryRun?: boolean;
  errors?: string;
  format?: string;
  batchSize?: number;
  quiet?: boolean;
  progressInterval?: number;
  checkExisting?: string;
  allowExisting?: boolean;
  assetsDir?: string;
}

/** Writes failed rows, with their line and message, as CSV (`_line,_error,…cells`) or JSON Lines. */
class ErrorsFile {
  private readonly out: WriteStream;
  private readonly json: boolean;
  private wroteHeader = false;
  count = 0;

  constructor(
    readonly path: string,
    private readonly source: InputSource,
  ) {
    this.out = createWriteStream(path);
    this.json = /\.(jsonl|ndjson|json)$/i.test(path);
  }

  write(error: RowError<InputRow>): void {
    this.count += 1;
    const item = error.item as InputRow | { id: string };
    const line = 'line' in item ? item.line : '';
    if (this.json) {
      const row = 'line' in item ? (item.cells ?? item.value ?? null) : item;
      this.out.write(JSON.stringify({ line: line === '' ? null : line, error: error.message, row }) + '\n');
      return;
    }
    if (!this.wroteHeader) {
      this.wroteHeader = true;
      const header = this.source.format === 'csv' ? (this.source.header ?? []).map((cell) => cell ?? '') : ['_row'];
      this.out.write(stringify([['_line', '_error', ...header]]));
    }
    let cells: (string | undefined)[];
    if ('line' in item) {
      cells =
        this.source.format === 'csv'
          ? (item.cells ?? []).map((cell) => cell ?? undefined)
          : [item.value === undefined ? undefined : JSON.stringify(item.value)];
    } else {
      cells = [JSON.stringify(item)];
    }
    this.out.write(stringify([[String(line), error.message, ...cells]], { quoted_match: /^$/ }));
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => this.out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
}

export function registerImport(program: Command): void {
  connectionOptions(
    program
      .command('import')
      .argument('<file>', 'CSV (header row), JSON Lines (.jsonl) or JSON (an array of rows); - for stdin (give --format)')
      .description(
        'Import rows into a model through the admin API: calls of at most 1000 rows and at most the write budget, ' +
          'waits out HTTP 429, splits on 413. With --key, loads by that field instead (create new, patch changed, ' +
          'skip unchanged): running it again changes nothing, and a rerun after a crash makes no duplicates. ' +
          'Exit code 0 only when every row landed; 1 when a row failed; 2 for a usage error.',
      )
      .requiredOption('--model <slug>', 'slug of the model to import into')
      .option('--key <field>', 'load by this field (the SKU, or any field): create, update or leave alone, never duplicate')
      .option('--prune', 'with --key: delete records whose key is not in the file')
      .option('--dry-run', 'read and convert every row, report what would happen, write nothing')
      .option(
        '--check-existing <field>',
        'before a plain import, stop when the first rows are already stored by this field (default: the SKU of a product model)',
      )
      .option('--allow-existing', 'import even when the first rows are already stored (a plain import only inserts)')
      .option(
        '--assets-dir <dir>',
        'CSV: media columns name files in this directory; each distinct file is uploaded once and its asset id stored',
      )
      .option('--errors <file>', 'write every failed row with its line and message (CSV, or JSON Lines for .jsonl)')
      .option('--format <format>', 'csv, jsonl or json (default: from the file name)')
      .option('--batch-size <n>', 'rows per import call, at most 1000 (default 1000)', parsePositiveInt)
      .option(
        '--max-wait <seconds>',
        'longest total wait for the write budget of one request (default 600)',
        parseNonNegativeNumber,
      )
      .option('--quiet', 'no progress output')
      .option(
        '--progress-interval <seconds>',
        'seconds between progress lines when not on a terminal (default 5)',
        parseNonNegativeNumber,
      ),
  ).action(async (file: string, options: ImportOptions) => runCommand(() => runImport(file, options)));
}

async function runImport(file: string, options: ImportOptions): Promise<number> {
  if (options.prune && !options.key) throw new UsageError('--prune needs --key');
  if (options.batchSize !== undefined && options.batchSize > 1000) throw new UsageError('--batch-size: at most 1000');
  let format;
  try {
    format = formatOf(file, options.format);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const abort = new AbortController();
  const onSignal = () => {
    if (abort.signal.aborted) process.exit(130);
    process.stderr.write('\nInterrupted: stopping after the request in flight (Ctrl+C again to quit at once)\n');
    abort.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let progress: ProgressReporter | undefined;
  const client = makeClient(options, { signal: abort.signal, onWait: (info) => progress?.wait(info) });
  const model = await client.findModel(options.model).catch((error: unknown) => {
    if (error instanceof ContentServiceError && error.code === 'NOT_FOUND') throw new UsageError(error.message);
    throw error;
  });
  let source: InputSource;
  try {
    source = await openInput(file, format);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  let toData = rowConverter(source, model, file, options.key);
  let rows = source.rows;
  let uploaded: (() => number) | undefined;
  if (options.assetsDir !== undefined) {
    ({ rows, toData, uploaded } = await withAssetsDir(options.assetsDir, source, model, client, toData, options.dryRun));
  }

  const skuField = model.product?.enabled ? model.product.skuField : null;
  const convertRow = toData;
  if (options.dryRun) {
    const deep = await readTypedModel(client, model.id);
    // Loading by the SKU itself: a SKU given twice is a key given twice, which the load reports in its own words.
    const checks = new DryRunChecks(deep?.fields ?? model.fields, options.key === skuField ? null : skuField);
    const convert = toData;
    toData = (row) => {
      const data = convert(row);
      checks.check(data, `line ${row.line}`);
      return data;
    };
  }

  const checkField = options.key || options.allowExisting ? undefined : (options.checkExisting ?? skuField ?? undefined);
  if (checkField !== undefined) {
    if (!model.fields.some((field) => field.key === checkField)) {
      source.close();
      throw new UsageError(`--check-existing ${checkField}: the model "${model.slug}" has no field "${checkField}"`);
    }
    const peeked = await peek(rows, ROWS_LOOKED_UP);
    rows = peeked.all;
    const firstRows = peeked.head.flatMap((row) => {
      try {
        return [convertRow(row)];
      } catch {
        return [];
      }
    });
    const found = await storedAlready(client, model.id, checkField, firstRows);
    if (found) {
      source.close();
      throw new Error(alreadyStoredMessage(found, file, checkField === skuField));
    }
  }

  const errorsFile = options.errors ? new ErrorsFile(options.errors, source) : undefined;
  const firstErrors: string[] = [];
  const onRowError = (error: RowError<InputRow>) => {
    errorsFile?.write(error);
    if (firstErrors.length < 10) {
      const where = 'line' in (error.item as object) ? `line ${error.item.line}` : 'record';
      firstErrors.push(/^line \d+/.test(error.message) ? error.message : `${where}: ${error.message}`);
    }
  };
  progress = new ProgressReporter({
    label: options.dryRun ? 'dry run' : 'import',
    position: () => ({ done: source.bytesRead(), total: source.totalBytes }),
    // Rows whose outcome is known (written, unchanged or refused), not rows read ahead of the writes.
    rows: (state) => state.created + state.updated + state.unchanged + state.failed,
    inputRows: (state) => state.read,
    quiet: options.quiet ?? false,
    ...(options.progressInterval !== undefined ? { intervalMs: options.progressInterval * 1000 } : {}),
  });
  const common = {
    toData,
    onRowError,
    onProgress: (state: Parameters<ProgressReporter['update']>[0]) => progress?.update(state),
    signal: abort.signal,
    dryRun: options.dryRun ?? false,
    ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
  };
  let summary;
  try {
    summary = options.key
      ? await client.sync(model, rows, {
          ...common,
          key: options.key,
          prune: options.prune ?? false,
          position: { name: 'line', of: (row) => row.line },
        })
      : await client.importRows(model, rows, common);
  } finally {
    progress.stop();
    source.close();
    await errorsFile?.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  const lines = summaryLines(file, model.slug, options, summary, progress.waitSummary, firstErrors, errorsFile);
  if (uploaded) lines.splice(2, 0, `  files of --assets-dir ${options.dryRun ? 'found' : 'uploaded'}: ${uploaded()}`);
  process.stdout.write(lines.join('\n') + '\n');
  return summary.ok ? 0 : 1;
}

/** The rows with their media cells uploaded from `--assets-dir`, and the conversion of such rows. */
async function withAssetsDir(
  dir: string,
  source: InputSource,
  model: ModelDefinition,
  client: ContentClient,
  convert: (row: InputRow) => JsonObject,
  dryRun: boolean | undefined,
) {
  const withFiles = withAssets(source.rows, await assetsDir(dir, source, model), dir, client, dryRun ?? false);
  const toData = (row: AssetRow) => {
    if (row.assetError !== undefined) throw new Error(row.assetError);
    return convert(row.assetCells ? { ...row, cells: row.assetCells } : row);
  };
  return { rows: withFiles.rows, toData, uploaded: withFiles.uploaded };
}

/** The media columns `--assets-dir` fills, after checking the directory and the input. */
async function assetsDir(dir: string, source: InputSource, model: ModelDefinition) {
  const fail = (message: string) => {
    source.close();
    return new UsageError(`--assets-dir ${dir}: ${message}`);
  };
  if (source.format !== 'csv') throw fail('only for CSV input (media columns naming files)');
  try {
    if (!(await stat(dir)).isDirectory()) throw fail('not a directory');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw fail(fileProblem(error, 'no such directory'));
  }
  const columns = mediaColumns(source.header ?? [], model.fields);
  if (columns.length === 0) throw fail(`the file has no column of a media field of model "${model.slug}"`);
  return columns;
}

/** How a row of the file becomes a record's data: by the CSV header's columns, or the JSON line's object. */
function rowConverter(
  source: InputSource,
  model: ModelDefinition,
  file: string,
  key: string | undefined,
): (row: InputRow) => JsonObject {
  if (source.format === 'csv') {
    let columns;
    try {
      columns = csvColumns(source.header ?? [], model.fields, source.headerLine);
    } catch (error) {
      source.close();
      if (error instanceof CellError) throw new UsageError(`header of ${file}: ${error.message}`);
      throw error;
    }
    if (key && !columns.some((column) => column.field?.key === key)) {
      source.close();
      throw new UsageError(`--key ${key}: the file has no column "${key}"`);
    }
    return (row) => csvRowToData(row.cells ?? [], columns, row.line);
  } else {
    return (row) => {
      if (row.parseError) throw new Error(row.parseError);
      if (typeof row.value !== 'object' || row.value === null || Array.isArray(row.value)) {
        throw new Error(`line ${row.line}: a row must be a JSON object of field key to value`);
      }
      return row.value as JsonObject;
    };
  }
}

/** The summary printed at the end of an import or a load by key. */
function summaryLines(
  file: string,
  modelSlug: string,
  options: ImportOptions,
  summary: LoadSummary<InputRow>,
  waited: { waits: number; waitedMs: number },
  firstErrors: readonly string[],
  errorsFile: ErrorsFile | undefined,
): string[] {
  const { waits, waitedMs } = waited;
  const lines: string[] = [];
  const what = options.dryRun ? 'Dry run (nothing written)' : options.key ? `Loaded by key "${options.key}"` : 'Imported';
  lines.push(`${what}: ${file} → model ${modelSlug}: ${summary.total} rows read`);
  const would = options.dryRun ? 'would be ' : '';
  const counts = options.key
    ? `${would}created ${summary.created}, ${would}updated ${summary.updated}, unchanged ${summary.unchanged}, ${would}deleted ${summary.deleted}, failed ${summary.failed}`
    : `${options.dryRun ? 'valid' : 'created'} ${summary.created}, failed ${summary.failed}`;
  lines.push(`  ${counts}`);
  if (summary.duplicateKeysInStore > 0) {
    lines.push(
      `  note: ${summary.duplicateKeysInStore} stored records share a key with an earlier record${options.prune ? '' : ' (left alone; --prune deletes them)'}`,
    );
  }
  if (waits > 0) lines.push(`  waited ${formatDuration(waitedMs)} for the write budget (${waits} wait${waits === 1 ? '' : 's'})`);
  if (summary.stopped) lines.push(`  stopped: ${summary.stopped.message}`);
  for (const message of firstErrors) lines.push(`  ${message}`);
  if (summary.failed > firstErrors.length) lines.push(`  … and ${summary.failed - firstErrors.length} more`);
  if (errorsFile && errorsFile.count > 0) lines.push(`  failed rows written to ${errorsFile.path}`);
  lines.push(summary.ok ? '  OK: every row landed' : '  FAILED: not every row landed');
  return lines;
}
