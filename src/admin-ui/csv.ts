// CSV in the browser (RFC 4180): quoted fields with "" escapes and line breaks inside quotes, CRLF, LF or CR
// line ends, an optional UTF-8 byte order mark. Like the CLI's import, an empty unquoted cell is `null` and a
// quoted empty cell ("") is the empty string; lines that are entirely empty are skipped.

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
    super(`line ${line}: ${message}`);
    this.name = 'CsvSyntaxError';
    this.line = line;
  }
}

/** The delimiter of the header line: a comma unless the line has none and has semicolons or tabs. */
export function detectDelimiter(text: string): string {
  let end = text.search(/[\r\n]/);
  if (end < 0) end = text.length;
  const first = text.slice(0, end);
  if (first.includes(',')) return ',';
  if (first.includes(';')) return ';';
  if (first.includes('\t')) return '\t';
  return ',';
}

export function parseCsv(input: string, delimiter = detectDelimiter(stripBom(input))): ParsedCsv {
  const text = stripBom(input);
  const rows: Cell[][] = [];
  const lines: number[] = [];
  let row: Cell[] = [];
  let line = 1;
  let rowLine = 1;
  let i = 0;
  const n = text.length;
  // True while the current row has any content (a delimiter or a cell); an empty line is skipped.
  let rowStarted = false;

  const endRow = () => {
    if (rowStarted) {
      rows.push(row);
      lines.push(rowLine);
    }
    row = [];
    rowStarted = false;
  };

  while (i < n) {
    const ch = text[i];
    if (ch === '"') {
      // A quoted cell: runs to the next lone quote.
      const openedOn = line;
      let value = '';
      i++;
      for (;;) {
        if (i >= n) throw new CsvSyntaxError(openedOn, 'a quoted cell is not closed (a " is missing)');
        const c = text[i]!;
        if (c === '"') {
          if (text[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (c === '\r') {
          if (text[i + 1] === '\n') {
            value += '\r\n';
            i += 2;
          } else {
            value += '\r';
            i++;
          }
          line++;
          continue;
        }
        if (c === '\n') line++;
        value += c;
        i++;
      }
      row.push(value);
      rowStarted = true;
      const next = text[i];
      if (next === undefined || next === delimiter || next === '\r' || next === '\n') {
        if (next === delimiter) {
          i++;
          if (atLineEnd(text, i)) row.push(null);
        }
        continue;
      }
      throw new CsvSyntaxError(line, `unexpected ${JSON.stringify(next)} after a closing quote (a quote inside a quoted cell is written "")`);
    }
    if (ch === '\r' || ch === '\n') {
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
      endRow();
      line++;
      rowLine = line;
      continue;
    }
    // An unquoted cell: runs to the delimiter or the line end. A quote inside it is kept as it is.
    let end = i;
    while (end < n && text[end] !== delimiter && text[end] !== '\r' && text[end] !== '\n') end++;
    const value = text.slice(i, end);
    row.push(value === '' ? null : value);
    rowStarted = true;
    i = end;
    if (text[i] === delimiter) {
      i++;
      if (atLineEnd(text, i)) row.push(null);
    }
  }
  endRow();
  return { rows, lines, delimiter };
}

function atLineEnd(text: string, i: number): boolean {
  return i >= text.length || text[i] === '\r' || text[i] === '\n';
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
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
