// How a CSV file is read, the same in the CLI (`content-service import`, csv-parse streaming a file) and in the
// admin application's import (csv-parse's browser build on the file's text): the delimiter detected from the
// header line, the csv-parse options, and csv-parse's records turned into rows (cells, with an unquoted empty
// cell as null, and the line of the file each row starts on). Pure code: no I/O, no Node API, so the admin
// application's build compiles it for the browser as it is.

export type CsvDelimiter = ',' | ';' | '\t';

/** A record as csv-parse gives it with the options of `csvParseOptions` (`info` and `raw`). */
export interface CsvParseRecord {
  record: string[];
  info: { empty_lines: number };
  raw: string;
}

export interface CsvRow {
  /** The cells; an unquoted empty cell is null, a quoted one ("") the empty string. */
  cells: (string | null)[];
  /** 1-based line of the file where the row starts. */
  line: number;
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

interface HeaderScan {
  delimiter: CsvDelimiter;
  /** Whether the text holds the header line to its end (a line break outside quotes after it). */
  complete: boolean;
}

/**
 * Reads the header line (the first line that is not empty; a line break inside quotes does not end it):
 * a comma outside quotes makes it a comma-separated file; else a semicolon, else a tab; else a comma.
 */
function scanHeader(input: string): HeaderScan {
  const text = stripBom(input);
  let start = 0;
  while (text[start] === '\r' || text[start] === '\n') start += 1;
  let inQuotes = false;
  let semicolon = false;
  let tab = false;
  let index = start;
  for (; index < text.length; index++) {
    const char = text[index];
    // A doubled quote inside quotes closes and reopens them: the state after it is the same.
    if (char === '"') inQuotes = !inQuotes;
    else if (inQuotes) continue;
    else if (char === ',') return { delimiter: ',', complete: true };
    else if (char === ';') semicolon = true;
    else if (char === '\t') tab = true;
    else if (char === '\r' || char === '\n') break;
  }
  return { delimiter: semicolon ? ';' : tab ? '\t' : ',', complete: index < text.length };
}

/** The delimiter of a CSV file from its beginning (a byte order mark is skipped). */
export function detectDelimiter(text: string): CsvDelimiter {
  return scanHeader(text).delimiter;
}

/** Whether the beginning of a file read so far is enough for `detectDelimiter` (more text would not change it). */
export function delimiterKnown(textSoFar: string): boolean {
  return scanHeader(textSoFar).complete;
}

/**
 * The csv-parse options of both readers: a byte order mark skipped, rows of any width (the columns are checked
 * against the header later), empty lines skipped, and each of CRLF, LF and CR ending a row even when a file
 * mixes them (csv-parse's own detection would take the first line's end for the whole file). A quote inside an
 * unquoted cell, or text after a closing quote, is refused (csv-parse's default).
 */
export function csvParseOptions(delimiter: CsvDelimiter) {
  return {
    bom: true,
    delimiter,
    record_delimiter: ['\r\n', '\n', '\r'],
    info: true,
    raw: true,
    relax_column_count: true,
    skip_empty_lines: true,
  };
}

/**
 * Turns csv-parse's records, in the order of the file, into rows with the line each starts on. One per file:
 * it counts the lines of the records it has seen.
 */
export function csvRowReader(delimiter: CsvDelimiter): (parsed: CsvParseRecord) => CsvRow {
  // The line a record starts on: the lines of the records before it (one each, plus the line breaks inside
  // their quoted cells) and the empty lines skipped so far (csv-parse counts those, from the start).
  let consumed = 0;
  return (parsed) => {
    const line = consumed + parsed.info.empty_lines + 1;
    consumed += 1;
    for (const cell of parsed.record) if (cell) consumed += lineBreaks(cell);
    return { cells: withNulls(parsed.record, parsed.raw, delimiter), line };
  };
}

/**
 * An unquoted empty cell is "no value" (null); a quoted one ("") is an empty string. (csv-parse's `cast` option
 * tells them apart too, but makes parsing five times slower; this looks at the raw text only of rows that have
 * an empty cell.)
 */
function withNulls(cells: string[], raw: string, delimiter: CsvDelimiter): (string | null)[] {
  if (!cells.includes('')) return cells;
  const quoted: boolean[] = [];
  let inQuotes = false;
  let fieldStart = true;
  let index = 0;
  while (index < raw.length && (raw[index] === '\r' || raw[index] === '\n')) index += 1;
  for (; index < raw.length; index++) {
    const char = raw[index];
    if (fieldStart) {
      quoted.push(char === '"');
      fieldStart = false;
      if (char === '"') {
        inQuotes = true;
        continue;
      }
    }
    if (inQuotes) {
      if (char === '"') {
        if (raw[index + 1] === '"') index += 1;
        else inQuotes = false;
      }
    } else if (char === delimiter) {
      fieldStart = true;
    }
  }
  if (fieldStart) quoted.push(false);
  return cells.map((cell, position) => (cell === '' && !quoted[position] ? null : cell));
}

/** Line breaks in a cell: \r\n, \n or \r, each one. */
function lineBreaks(text: string): number {
  if (!text.includes('\n') && !text.includes('\r')) return 0;
  return text.match(/\r\n|\r|\n/g)?.length ?? 0;
}
