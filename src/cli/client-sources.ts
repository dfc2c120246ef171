// Streaming readers of import files: CSV (header row), JSON Lines, JSON (an array of rows). Each keeps only the
// row at hand in memory, whatever the size of the file, and reports how many bytes it has read (for the ETA).
// CSV is read as the admin application's import reads it (src/client/csv.ts: delimiter, csv-parse options, rows).
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable, Transform } from 'node:stream';
import { parse } from 'csv-parse';
import {
  csvParseOptions,
  csvRowReader,
  delimiterKnown,
  detectDelimiter,
  type CsvDelimiter,
  type CsvParseRecord,
} from '../client/csv.js';

export type InputFormat = 'csv' | 'jsonl' | 'json';

export interface InputRow {
  /** 1-based line of the file where the row starts. */
  line: number;
  /** CSV: the cells; an unquoted empty cell is null. */
  cells?: (string | null)[];
  /** JSON / JSON Lines: the parsed value. */
  value?: unknown;
  /** JSON / JSON Lines: why the row could not be parsed. */
  parseError?: string;
}

export interface InputSource {
  format: InputFormat;
  /** CSV only. */
  header: (string | null)[] | undefined;
  headerLine: number;
  rows: AsyncIterable<InputRow>;
  bytesRead(): number;
  /** Size of the file; undefined for stdin. */
  totalBytes: number | undefined;
  close(): void;
}

export function formatOf(path: string, given?: string): InputFormat {
  if (given) {
    if (given === 'csv' || given === 'jsonl' || given === 'json') return given;
    throw new Error(`--format: must be csv, jsonl or json, got "${given}"`);
  }
  const lower = path.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  if (lower.endsWith('.json')) return 'json';
  throw new Error(`cannot tell the format of "${path}" from its name: give --format csv, jsonl or json`);
}

export async function openInput(path: string, format: InputFormat): Promise<InputSource> {
  let bytes = 0;
  let stream: Readable;
  let totalBytes: number | undefined;
  if (path === '-') {
    stream = process.stdin;
  } else {
    totalBytes = statSync(path).size; // throws ENOENT with the path in the message
    stream = createReadStream(path, { highWaterMark: 256 * 1024 });
  }
  // Counts the bytes as the parser pulls them (a 'data' listener would start the flow before the parser is there).
  const source = stream;
  stream = source.pipe(
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        done(null, chunk);
      },
    }),
  );
  source.on('error', (error) => stream.destroy(error));
  const counted = stream;
  const base = {
    format,
    bytesRead: () => bytes,
    totalBytes,
    close: () => {
      source.destroy();
      counted.destroy();
    },
  };
  if (format === 'jsonl') return { ...base, header: undefined, headerLine: 0, rows: jsonLines(stream) };
  if (format === 'json') return { ...base, header: undefined, headerLine: 0, rows: jsonArray(stream) };
  return openCsv(stream, base);
}

async function openCsv(
  stream: Readable,
  base: Omit<InputSource, 'header' | 'headerLine' | 'rows' | 'format'>,
): Promise<InputSource> {
  const { delimiter, rest } = await withDelimiter(stream).catch((error: Error) => {
    throw new Error(`CSV: ${error.message}`);
  });
  const parser = rest.pipe(parse(csvParseOptions(delimiter)));
  rest.on('error', (error) => parser.destroy(error));
  const iterator = parser[Symbol.asyncIterator]() as AsyncIterator<CsvParseRecord>;
  const toRow = csvRowReader(delimiter);
  const first = await iterator.next().catch((error: Error) => {
    throw new Error(`CSV: ${error.message}`);
  });
  if (first.done) throw new Error('CSV: the file is empty; it needs a header row');
  const header = toRow(first.value);
  async function* rows(): AsyncGenerator<InputRow> {
    for (;;) {
      let next: IteratorResult<CsvParseRecord>;
      try {
        next = await iterator.next();
      } catch (error) {
        throw new Error(`CSV: ${(error as Error).message}`, { cause: error });
      }
      if (next.done) return;
      yield toRow(next.value);
    }
  }
  return { ...base, format: 'csv', header: header.cells, headerLine: header.line, rows: rows() };
}

/** Beyond this much of a file without the end of its header line, the delimiter is told from what was read. */
const HEADER_SCAN_BYTES = 1024 * 1024;

/**
 * Reads the beginning of the file until its header line ends, tells the delimiter from it, and gives a stream of
 * the whole file again (the chunks read, then the rest).
 */
async function withDelimiter(stream: Readable): Promise<{ delimiter: CsvDelimiter; rest: Readable }> {
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let size = 0;
  // Delimiters, quotes and line breaks are ASCII, never part of a UTF-8 sequence: a character cut at the end of
  // a chunk cannot hide one.
  const text = () => Buffer.concat(head).toString('utf8');
  while (size < HEADER_SCAN_BYTES && !delimiterKnown(text())) {
    const next = await chunks.next();
    if (next.done) break;
    head.push(next.value);
    size += next.value.length;
  }
  const delimiter = detectDelimiter(text());
  async function* whole(): AsyncGenerator<Buffer> {
    yield* head;
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { delimiter, rest: Readable.from(whole(), { objectMode: false }) };
}

async function* jsonLines(stream: Readable): AsyncGenerator<InputRow> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() === '') continue;
    yield parsed(text, line);
  }
}

function parsed(text: string, line: number): InputRow {
  try {
    return { line, value: JSON.parse(text) };
  } catch (error) {
    return { line, parseError: `line ${line}: not valid JSON (${(error as Error).message})` };
  }
}

/** The elements of a top-level JSON array, one at a time, without holding the array. */
async function* jsonArray(stream: Readable): AsyncGenerator<InputRow> {
  stream.setEncoding('utf8');
  let state: 'before' | 'between' | 'in' | 'after' = 'before';
  let depth = 0;
  let inString = false;
  let escape = false;
  let line = 1;
  let elementLine = 1;
  let carry = '';
  for await (const chunk of stream as AsyncIterable<string>) {
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (state === 'in') {
        if (c === 10) line += 1;
        if (inString) {
          if (escape) escape = false;
          else if (c === 92) escape = true;
          else if (c === 34) inString = false;
          continue;
        }
        if (c === 34) inString = true;
        else if (c === 123 || c === 91) depth += 1;
        else if ((c === 125 || c === 93) && depth > 0) depth -= 1;
        else if (depth === 0 && (c === 44 || c === 93)) {
          yield parsed(carry + chunk.slice(start, i), elementLine);
          carry = '';
          state = c === 44 ? 'between' : 'after';
        }
        continue;
      }
      if (c === 10) line += 1;
      if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xfeff) continue;
      if (state === 'before') {
        if (c !== 91) throw new Error(`JSON: line ${line}: the file must hold an array of rows ([{…}, {…}])`);
        state = 'between';
      } else if (state === 'between') {
        if (c === 93) {
          state = 'after';
          continue;
        }
        if (c === 44) throw new Error(`JSON: line ${line}: unexpected ","`);
        state = 'in';
        start = i;
        elementLine = line;
        depth = c === 123 || c === 91 ? 1 : 0;
        inString = c === 34;
        escape = false;
      } else {
        throw new Error(`JSON: line ${line}: text after the closing "]"`);
      }
    }
    if (state === 'in') carry += chunk.slice(start);
  }
  const end = state as string;
  if (end === 'before') throw new Error('JSON: the file holds no array of rows');
  if (end !== 'after') throw new Error('JSON: the file ends inside the array (no closing "]")');
}
