// CSV in the browser, read as the CLI reads it (src/client/csv.ts: the delimiter detected from the header line,
// a byte order mark skipped, quoted cells with "" escapes and line breaks, CRLF, LF or CR line ends, empty lines
// skipped; an empty unquoted cell is `null`, a quoted empty cell ("") the empty string) by csv-parse's browser
// build. That build is loaded the first time a file is read, not with the application.
import { csvParseOptions, csvRowReader, detectDelimiter, type CsvParseRecord } from '../client/csv.js';

export type Cell = string | null;

export interface ParsedCsv {
  /** The rows as found, the header first. */
  rows: Cell[][];
  /** For each row, the 1-based line of the file it starts on. */
  lines: number[];
  delimiter: string;
}

export class CsvSyntaxError extends Error {
  readonly line: number;
  constructor(line: number, message: string) {
    super(message);
    this.name = 'CsvSyntaxError';
    this.line = line;
  }
}

export async function parseCsv(text: string): Promise<ParsedCsv> {
  const { parse, CsvError } = await import('csv-parse/browser/esm/sync');
  const delimiter = detectDelimiter(text);
  let records: CsvParseRecord[];
  try {
    records = parse(text, csvParseOptions(delimiter)) as unknown as CsvParseRecord[];
  } catch (error) {
    // csv-parse's message names the line ("… at line 4").
    if (error instanceof CsvError) throw new CsvSyntaxError(typeof error.lines === 'number' ? error.lines : 0, error.message);
    throw error;
  }
  const toRow = csvRowReader(delimiter);
  const rows: Cell[][] = [];
  const lines: number[] = [];
  for (const record of records) {
    const row = toRow(record);
    rows.push(row.cells);
    lines.push(row.line);
  }
  return { rows, lines, delimiter };
}

/**
 * One CSV line (CRLF-terminated, RFC 4180); a cell is quoted when it needs to be. `null`/`undefined` is an empty
 * cell, the empty string `""`, so that the two read back as they were.
 */
export function csvLine(cells: readonly (string | number | null | undefined)[]): string {
  return (
    cells
      .map((cell) => {
        if (cell === null || cell === undefined) return '';
        const text = String(cell);
        return text === '' || /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
      })
      .join(',') + '\r\n'
  );
}
