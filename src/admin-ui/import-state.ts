// The CSV import page's state, without a DOM: the file checks, the column targets a select offers, how the
// mapping stands (its problems, the required fields no column fills, whether the import may start), the preview
// of the first rows as they will be sent, and the texts of the outcome. page-import.ts renders it (import-views.ts).
import { convertRow, mappingProblems, type ColumnMapping } from './cells.js';
import type { Cell, ParsedCsv } from './csv.js';
import type { ImportOutcome } from './import-run.js';
import type { FieldDefinition, JsonObject, JsonValue } from './types.js';

export const MAX_FILE_BYTES = 5 * 1024 * 1024;
export const PREVIEW_ROWS = 5;
export const SHOWN_ERRORS = 200;

export interface TargetOption {
  value: string;
  label: string;
  mapping: ColumnMapping;
}

/** Options of a column's select: ignore, each field, and each translatable field per locale. */
export function targetOptions(fields: readonly FieldDefinition[], locales: readonly string[]): TargetOption[] {
  const options: TargetOption[] = [{ value: '', label: '(ignore this column)', mapping: null }];
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

export function mappingValue(mapping: ColumnMapping): string {
  if (!mapping) return '';
  return mapping.locale === undefined ? mapping.field.key : `${mapping.field.key}.${mapping.locale}`;
}

/** The locales the header's names end in (`title.de`, `Title (fr)`), and English. */
export function headerLocales(header: readonly Cell[]): string[] {
  const named = header
    .map((name) => /[._ (]([a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)\)?$/.exec((name ?? '').trim())?.[1])
    .filter((locale): locale is string => Boolean(locale));
  return [...new Set([...named, 'en'])];
}

/** Why a parsed file cannot be imported (null when it can): no rows, or a header only. */
export function emptyFileProblem(fileName: string, parsed: Pick<ParsedCsv, 'rows'>): string | null {
  if (parsed.rows.length >= 2) return null;
  return `${fileName} has ${parsed.rows.length === 0 ? 'no rows' : 'a header but no rows'}.`;
}

export function isTooBig(size: number): boolean {
  return size > MAX_FILE_BYTES;
}

/** How the mapping stands. */
export interface MappingReport {
  problems: string[];
  /** Required fields no column fills: their rows fail unless the field is filled otherwise. */
  unmappedRequired: FieldDefinition[];
  /** False while the mapping has problems or maps no column. */
  canStart: boolean;
}

export function mappingReport(
  mappings: readonly ColumnMapping[],
  header: readonly Cell[],
  fields: readonly FieldDefinition[],
): MappingReport {
  const problems = mappingProblems(mappings, header);
  return {
    problems,
    unmappedRequired: fields.filter((field) => field.required && !mappings.some((mapping) => mapping?.field.key === field.key)),
    canStart: problems.length === 0 && !mappings.every((mapping) => mapping === null),
  };
}

/** One cell of the preview: the value that will be sent, a conversion problem, or nothing (left out). */
export type PreviewCell = { problem: string } | { value: JsonValue | undefined };

export interface Preview {
  /** The mapped columns' headings, in the order of the file. */
  headings: string[];
  rows: { row: number; cells: PreviewCell[] }[];
}

/** The first rows as they will be sent, for the mapped columns only. */
export function preview(rows: readonly Cell[][], mappings: readonly ColumnMapping[], count = PREVIEW_ROWS): Preview {
  const mapped = mappings
    .map((mapping, column) => ({ mapping, column }))
    .filter((entry): entry is { mapping: NonNullable<ColumnMapping>; column: number } => entry.mapping !== null);
  return {
    headings: mapped.map(({ mapping }) => mappingValue(mapping)),
    rows: rows.slice(0, count).map((cells, index) => {
      const converted = convertRow(cells, mappings);
      return {
        row: index + 1,
        cells: mapped.map(({ mapping, column }): PreviewCell => {
          const problem = converted.problems.find((candidate) => candidate.column === column);
          if (problem) return { problem: problem.message };
          const value =
            mapping.locale === undefined
              ? converted.data[mapping.field.key]
              : (converted.data[mapping.field.key] as JsonObject | undefined)?.[mapping.locale];
          return { value };
        }),
      };
    }),
  };
}

/** The first three values of a column, shortened, for the mapping table. */
export function columnSamples(rows: readonly Cell[][], column: number): string {
  return rows
    .slice(0, 3)
    .map((cells) => cells[column])
    .filter((cell): cell is string => cell !== null && cell !== undefined)
    .map((sample) => (sample.length > 30 ? `${sample.slice(0, 29)}…` : sample))
    .join(' · ');
}

export function progressText(done: number, total: number, imported: number, failed: number): string {
  return `${done.toLocaleString()} of ${total.toLocaleString()} rows: ${imported.toLocaleString()} imported, ${failed.toLocaleString()} failed`;
}

export function outcomeSummary(outcome: ImportOutcome): string {
  return `${outcome.imported.toLocaleString()} of ${outcome.total.toLocaleString()} rows imported, ${outcome.failed.toLocaleString()} failed.`;
}

export function outcomeTitle(outcome: ImportOutcome): string {
  if (outcome.stopped) return 'Import stopped';
  return outcome.failed > 0 ? 'Import finished with errors' : 'Import finished';
}

/** What the page shown next says when the user left during the import. */
export function leftDuringImportText(fileName: string, modelName: string, outcome: ImportOutcome): string {
  return `Import of ${fileName} into ${modelName}: ${outcome.imported.toLocaleString()} of ${outcome.total.toLocaleString()} rows imported, ${outcome.failed.toLocaleString()} failed${outcome.stopped ? ` (${outcome.stopped})` : ''}.`;
}

export function errorsFileName(fileName: string): string {
  return fileName.replace(/\.csv$/i, '') + '-errors.csv';
}

export function errorsCaption(count: number): string {
  return count > SHOWN_ERRORS ? `The first ${SHOWN_ERRORS} of ${count} failed rows` : 'Failed rows';
}
