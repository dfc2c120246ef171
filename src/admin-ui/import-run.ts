// Sends converted CSV rows with `record.import` in calls of at most 1000 rows, one call at a time, and maps the
// server's row errors (1-based within a call) back to rows of the file. Rows with bad cells are reported and
// not sent. A call refused as too large (PAYLOAD_TOO_LARGE) is split in halves and sent again.
import { convertRow, type ColumnMapping } from './cells.js';
import { csvLine, type Cell } from './csv.js';
import type { JsonObject } from './types.js';

export const BATCH_ROWS = 1000;

export interface RowError {
  /** 1-based data row of the file (the header is not counted). */
  row: number;
  /** 1-based line of the file the row starts on (the header is line 1). */
  line: number;
  message: string;
  cells: readonly Cell[];
}

export interface ImportBatchResult {
  importedCount: number;
  errors: { row: number; message: string }[];
}

export interface ImportProgress {
  /** Rows handled so far (imported or failed). */
  done: number;
  total: number;
  imported: number;
  failed: number;
}

export interface ImportOutcome extends ImportProgress {
  errors: RowError[];
  /** Set when the run stopped before the end: the reason (a request error, or cancelled). */
  stopped?: string;
}

export interface ImportRunOptions {
  /** Data rows (without the header) and the line each starts on. */
  rows: readonly (readonly Cell[])[];
  lines: readonly number[];
  mappings: readonly ColumnMapping[];
  send: (rows: JsonObject[]) => Promise<ImportBatchResult>;
  onProgress?: (progress: ImportProgress) => void;
  /** Asked before each call; true stops the run. */
  cancelled?: () => boolean;
  batchRows?: number;
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export async function runImport(options: ImportRunOptions): Promise<ImportOutcome> {
  const { rows, lines, mappings, send } = options;
  const batchRows = options.batchRows ?? BATCH_ROWS;
  const outcome: ImportOutcome = { done: 0, total: rows.length, imported: 0, failed: 0, errors: [] };
  const fail = (index: number, message: string) => {
    outcome.errors.push({ row: index + 1, line: lines[index] ?? index + 2, message, cells: rows[index] ?? [] });
    outcome.failed++;
  };

  // Sends rows (file indexes with their data); splits on PAYLOAD_TOO_LARGE down to single rows.
  const sendPart = async (part: { index: number; data: JsonObject }[]): Promise<void> => {
    if (part.length === 0) return;
    let result: ImportBatchResult;
    try {
      result = await send(part.map((item) => item.data));
    } catch (error) {
      if (errorCode(error) === 'PAYLOAD_TOO_LARGE' && part.length > 1) {
        const half = Math.ceil(part.length / 2);
        await sendPart(part.slice(0, half));
        await sendPart(part.slice(half));
        return;
      }
      if (errorCode(error) === 'PAYLOAD_TOO_LARGE') {
        fail(part[0]!.index, (error as Error).message);
        return;
      }
      throw error;
    }
    outcome.imported += result.importedCount;
    for (const rowError of result.errors) {
      const item = part[rowError.row - 1];
      if (item) fail(item.index, rowError.message);
    }
  };

  for (let start = 0; start < rows.length; start += batchRows) {
    if (options.cancelled?.()) {
      outcome.stopped = `Cancelled after ${outcome.done} of ${rows.length} rows.`;
      break;
    }
    const end = Math.min(rows.length, start + batchRows);
    const part: { index: number; data: JsonObject }[] = [];
    for (let index = start; index < end; index++) {
      const converted = convertRow(rows[index]!, mappings);
      if (converted.problems.length > 0) fail(index, converted.problems.map((problem) => problem.message).join('; '));
      else part.push({ index, data: converted.data });
    }
    try {
      await sendPart(part);
    } catch (error) {
      // The rows of this call are in an unknown state only if the answer was lost; the server writes nothing
      // for a refused request. Stop and say where.
      outcome.stopped = `Stopped at row ${start + 1}: ${(error as Error).message}`;
      outcome.errors.sort((a, b) => a.row - b.row);
      return outcome;
    }
    outcome.done = end;
    outcome.errors.sort((a, b) => a.row - b.row);
    options.onProgress?.({ done: outcome.done, total: outcome.total, imported: outcome.imported, failed: outcome.failed });
  }
  return outcome;
}

/** The failed rows as CSV: `_line`, `_error`, then the file's own columns, so it can be fixed and imported again. */
export function errorsCsv(header: readonly Cell[], errors: readonly RowError[]): string {
  let text = csvLine(['_line', '_error', ...header]);
  for (const error of errors) text += csvLine([error.line, error.message, ...error.cells]);
  return text;
}
