// CSV cells ↔ record data, by the model's field types. A CSV has a header row; a translatable field takes one
// column per locale (`title.en`, `title.pl`); columns whose name starts with `_` are ignored (so an errors file,
// with its `_line` and `_error` columns, can be fixed and imported as it is).
// The conversion of one cell (`cellValue`) is also the admin web application's (src/admin-ui/cells.ts), so that a
// file imports the same way in both: this module is compiled for the browser too and imports nothing Node-only.
import { isIsoDate, LOCALE_PATTERN } from '../shared/field-types.js';
import { isPlainObject } from '../shared/json.js';
import type { FieldDefinition, JsonObject } from './types.js';

export interface CsvColumn {
  /** 0-based position in the row. */
  index: number;
  name: string;
  /** Undefined for an ignored column. */
  field: FieldDefinition | undefined;
  /** For a `title.en` column of a translatable field. */
  locale: string | undefined;
}

export interface CellIssue {
  line: number;
  /** 1-based column number. */
  column: number;
  columnName: string;
  message: string;
}

/** One or more bad cells of a row (or a bad header): the row is reported, not sent. */
export class CellError extends Error {
  readonly issues: CellIssue[];
  constructor(issues: CellIssue[]) {
    super(issues.map((issue) => `line ${issue.line}, column ${issue.column} (${issue.columnName}): ${issue.message}`).join('; '));
    this.name = 'CellError';
    this.issues = issues;
  }
}

const NUMBER_PATTERN = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const TRUE = new Set(['true', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'no', 'n', '0']);

/** Maps a header row to the model's fields; throws CellError (line 1) for unknown or repeated columns. */
export function csvColumns(header: readonly (string | null)[], fields: readonly FieldDefinition[], headerLine = 1): CsvColumn[] {
  const byKey = new Map(fields.map((field) => [field.key, field]));
  const issues: CellIssue[] = [];
  const seen = new Set<string>();
  const columns: CsvColumn[] = [];
  header.forEach((raw, index) => {
    const name = (raw ?? '').trim();
    const issue = (message: string) =>
      issues.push({ line: headerLine, column: index + 1, columnName: name || '(empty)', message });
    if (name.startsWith('_')) {
      columns.push({ index, name, field: undefined, locale: undefined });
      return;
    }
    if (name === '') return issue('empty column name');
    if (seen.has(name)) return issue('column given twice');
    seen.add(name);
    let field = byKey.get(name);
    let locale: string | undefined;
    if (!field && name.includes('.')) {
      const dot = name.indexOf('.');
      field = byKey.get(name.slice(0, dot));
      locale = name.slice(dot + 1);
      if (field && field.type !== 'translatable') {
        return issue(
          `"${field.key}" is a ${field.type} field; only translatable fields take one column per locale (give ${field.key} as one column)`,
        );
      }
      if (field && !LOCALE_PATTERN.test(locale)) return issue(`"${locale}" is not a locale code (such as en, pl or pt-BR)`);
    }
    if (!field) return issue(`unknown column: the model has the fields ${fields.map((f) => f.key).join(', ')}`);
    columns.push({ index, name, field, locale });
  });
  const fieldsWithWhole = new Set(columns.filter((c) => c.field && c.locale === undefined).map((c) => c.field!.key));
  for (const column of columns) {
    if (column.locale !== undefined && fieldsWithWhole.has(column.field!.key)) {
      issues.push({
        line: headerLine,
        column: column.index + 1,
        columnName: column.name,
        message: `"${column.field!.key}" is also given as a whole column`,
      });
    }
  }
  if (issues.length > 0) throw new CellError(issues);
  return columns;
}

/**
 * Converts one CSV row to record data. An empty cell (unquoted) is `null`: left out of a new record, removed from
 * an existing one by sync. `""` (quoted) is an empty string for a text field. Throws CellError naming every bad
 * cell of the row.
 */
export function csvRowToData(cells: readonly (string | null)[], columns: readonly CsvColumn[], line: number): JsonObject {
  const data: JsonObject = {};
  const issues: CellIssue[] = [];
  const { width, perLocale } = shapeOf(columns);
  if (cells.length > width && cells.slice(width).some((cell) => cell !== null && cell !== '')) {
    issues.push({
      line,
      column: width + 1,
      columnName: '(none)',
      message: `the row has ${cells.length} cells, the header ${width}`,
    });
  }
  for (const column of columns) {
    const field = column.field;
    if (!field) continue;
    const cell = cells[column.index] ?? null;
    try {
      const value = cellValue(field, column.locale, cell);
      if (column.locale !== undefined) {
        const current = data[field.key];
        const object = isPlainObject(current) ? current : {};
        object[column.locale] = value;
        data[field.key] = object;
      } else {
        data[field.key] = value;
      }
    } catch (error) {
      issues.push({ line, column: column.index + 1, columnName: column.name, message: (error as Error).message });
    }
  }
  if (issues.length > 0) throw new CellError(issues);
  // A translatable field whose locale cells are all empty is no value at all.
  for (const [key, value] of Object.entries(data)) {
    if (perLocale.has(key) && isPlainObject(value) && Object.values(value).every((v) => v === null)) {
      data[key] = null;
    }
  }
  return data;
}

const shapes = new WeakMap<readonly CsvColumn[], { width: number; perLocale: Set<string> }>();

/** Worked out once per header, not once per row. */
function shapeOf(columns: readonly CsvColumn[]): { width: number; perLocale: Set<string> } {
  let shape = shapes.get(columns);
  if (!shape) {
    shape = {
      width: columns.reduce((max, column) => Math.max(max, column.index + 1), 0),
      perLocale: new Set(columns.filter((column) => column.locale !== undefined).map((column) => column.field!.key)),
    };
    shapes.set(columns, shape);
  }
  return shape;
}

function show(cell: string): string {
  return JSON.stringify(cell.length > 60 ? `${cell.slice(0, 57)}...` : cell);
}

/**
 * One cell's value for its field (or for one locale of a translatable field): `null` for an empty cell, and for
 * nothing else. Throws with the reason for a bad cell (the caller says where it is).
 */
export function cellValue(field: FieldDefinition, locale: string | undefined, cell: string | null): unknown {
  if (cell === null) return null;
  if (locale !== undefined || field.type === 'text') return cell;
  const trimmed = cell.trim();
  if (trimmed === '') return null;
  switch (field.type) {
    case 'number': {
      if (!NUMBER_PATTERN.test(trimmed)) throw new Error(`${show(cell)} is not a number (such as 149.99)`);
      const number = Number(trimmed);
      if (!Number.isFinite(number)) throw new Error(`${show(cell)} is out of range`);
      return number;
    }
    case 'boolean': {
      const lower = trimmed.toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      throw new Error(`${show(cell)} is not a boolean (true or false)`);
    }
    case 'date':
      if (!isIsoDate(trimmed))
        throw new Error(`${show(cell)} is not an ISO 8601 date (such as 2024-05-01 or 2024-05-01T12:00:00Z)`);
      return trimmed;
    case 'relation':
      return field.relationType === 'hasMany' ? idList(cell, trimmed, 'record ids') : trimmed;
    case 'media':
      return field.multiple === true ? idList(cell, trimmed, 'asset ids') : trimmed;
    case 'translatable': {
      const parsed = parseJson(cell);
      if (!isPlainObject(parsed))
        throw new Error(`${show(cell)} is not a JSON object of locale to text; or give one column per locale (${field.key}.en)`);
      return parsed;
    }
    case 'object': {
      const parsed = parseJson(cell);
      if (!isPlainObject(parsed)) throw new Error(`${show(cell)} is not a JSON object`);
      return parsed;
    }
    default:
      // A field type this client does not know: JSON if it parses, else the text.
      return parseJson(cell) ?? cell;
  }
}

/**
 * The cell of a multi-value field (a hasMany relation, a multiple media field): a JSON array, or values separated
 * by `|` (`a|b|c`). Exported: `import --assets-dir` reads the file paths of a media cell the same way.
 */
export function idList(cell: string, trimmed: string, what: string): string[] {
  if (trimmed.startsWith('[')) {
    const parsed = parseJson(cell);
    if (!Array.isArray(parsed) || !parsed.every((id) => typeof id === 'string' && id !== '')) {
      throw new Error(`${show(cell)} is not a JSON array of ${what}`);
    }
    return parsed as string[];
  }
  return trimmed
    .split('|')
    .map((id) => id.trim())
    .filter((id) => id !== '');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Export columns: model fields in order, a translatable field as one column per locale found. */
export function exportColumns(
  fields: readonly FieldDefinition[],
  locales: ReadonlyMap<string, ReadonlySet<string>>,
): CsvColumn[] {
  const columns: CsvColumn[] = [];
  for (const field of fields) {
    if (field.type === 'translatable') {
      for (const locale of [...(locales.get(field.key) ?? [])].sort()) {
        columns.push({ index: columns.length, name: `${field.key}.${locale}`, field, locale });
      }
    } else {
      columns.push({ index: columns.length, name: field.key, field, locale: undefined });
    }
  }
  return columns;
}

/** Cells of one record for `exportColumns`; undefined is an empty (unquoted) cell. */
export function dataToCsvRow(data: JsonObject, columns: readonly CsvColumn[]): (string | undefined)[] {
  return columns.map((column) => {
    const field = column.field!;
    let value = data[field.key];
    if (column.locale !== undefined) value = isPlainObject(value) ? value[column.locale] : undefined;
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    if (
      Array.isArray(value) &&
      (field.type === 'relation' || field.type === 'media') &&
      value.every((id) => typeof id === 'string' && !id.includes('|') && id.trim() === id && id !== '')
    ) {
      return value.length === 0 ? '[]' : value.join('|');
    }
    return JSON.stringify(value);
  });
}
