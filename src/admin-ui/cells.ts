// CSV columns → model fields, and cells → JSON values by field type, for the browser import. The conversion of a
// cell is the CLI's (`content-service import`, src/client/cells.ts, compiled for the browser too), so that one file
// imports the same way in both: an empty cell is no value, numbers are JSON numbers, booleans true/false/yes/no/1/0,
// dates ISO 8601, a hasMany relation `id1|id2` or a JSON array, translatable and object fields JSON objects, or a
// translatable field one column per locale (`title.en`). Columns whose name starts with `_` (the `_line` and
// `_error` of an errors file) are ignored.
import { cellValue } from '../client/cells.js';
import { LOCALE_PATTERN } from '../shared/field-types.js';
import { isPlainObject } from '../shared/json.js';
import type { Cell } from './csv.js';
import type { FieldDefinition, JsonObject, JsonValue } from './types.js';

/** Where a column goes: a field, or one locale of a translatable field; `null` ignores the column. */
export interface ColumnTarget {
  field: FieldDefinition;
  locale?: string;
}

export type ColumnMapping = ColumnTarget | null;

function normalise(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');
}

/**
 * Matches each header to a field by key or label (case, spaces and punctuation ignored); `title.en`,
 * `Title (en)` or `title_en` go to locale `en` of a translatable field. A field takes one column (the first).
 */
export function autoMap(header: readonly Cell[], fields: readonly FieldDefinition[]): ColumnMapping[] {
  const taken = new Set<string>();
  return header.map((raw) => {
    const name = (raw ?? '').trim();
    if (name === '' || name.startsWith('_')) return null;
    const whole = fields.find((field) => normalise(field.key) === normalise(name) || normalise(field.label) === normalise(name));
    if (whole && !taken.has(whole.key)) {
      taken.add(whole.key);
      return { field: whole };
    }
    const perLocale = /^(.+?)(?:\.|_|\s*\(|\s+)([a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)\)?$/.exec(name);
    if (perLocale) {
      const [, base, locale] = perLocale as unknown as [string, string, string];
      const field = fields.find(
        (candidate) =>
          candidate.type === 'translatable' &&
          (normalise(candidate.key) === normalise(base) || normalise(candidate.label) === normalise(base)),
      );
      const target = field ? `${field.key}.${locale}` : '';
      if (field && !taken.has(field.key) && !taken.has(target)) {
        taken.add(target);
        return { field, locale };
      }
    }
    return null;
  });
}

/** Problems with a mapping as a whole: a field given twice, a field given whole and per locale, a bad locale. */
export function mappingProblems(mappings: readonly ColumnMapping[], header: readonly Cell[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  const whole = new Set<string>();
  const perLocale = new Set<string>();
  mappings.forEach((mapping, index) => {
    if (!mapping) return;
    const name = `column ${index + 1} (${header[index] ?? ''})`;
    const target = mapping.locale === undefined ? mapping.field.key : `${mapping.field.key}.${mapping.locale}`;
    if (mapping.locale !== undefined && !LOCALE_PATTERN.test(mapping.locale)) {
      problems.push(`${name}: "${mapping.locale}" is not a locale code (such as en, pl or pt-BR)`);
    }
    const earlier = seen.get(target);
    if (earlier !== undefined) problems.push(`${name}: ${target} is already filled from column ${earlier + 1}`);
    else seen.set(target, index);
    (mapping.locale === undefined ? whole : perLocale).add(mapping.field.key);
  });
  for (const key of whole) {
    if (perLocale.has(key)) problems.push(`${key} is mapped both as a whole and per locale; choose one`);
  }
  return problems;
}

export interface CellProblem {
  /** 0-based column. */
  column: number;
  message: string;
}

export interface ConvertedRow {
  data: JsonObject;
  problems: CellProblem[];
}

/** One CSV row → record data. Empty cells are left out (no value). */
export function convertRow(cells: readonly Cell[], mappings: readonly ColumnMapping[]): ConvertedRow {
  const data: JsonObject = {};
  const problems: CellProblem[] = [];
  mappings.forEach((mapping, column) => {
    if (!mapping) return;
    const cell = cells[column] ?? null;
    let value: JsonValue | undefined;
    try {
      value = convertCell(mapping, cell);
    } catch (error) {
      problems.push({ column, message: `${mapping.field.key}: ${(error as Error).message}` });
      return;
    }
    if (value === undefined) return;
    if (mapping.locale !== undefined) {
      const current = data[mapping.field.key];
      const object: JsonObject = isPlainObject(current) ? current : {};
      object[mapping.locale] = value;
      data[mapping.field.key] = object;
    } else {
      data[mapping.field.key] = value;
    }
  });
  return { data, problems };
}

/**
 * A cell's value for its column; `undefined` for an empty cell. Throws with the reason for a bad cell. The
 * conversion is the CLI's own (`cellValue` of src/client/cells.ts), which says `null` for an empty cell.
 */
export function convertCell(target: ColumnTarget, cell: Cell): JsonValue | undefined {
  const value = cellValue(target.field, target.locale, cell);
  return value === null ? undefined : (value as JsonValue);
}
