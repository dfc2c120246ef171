import type { Spread } from './stats.js';

/** Prints a plain-text table with right-aligned figures, and returns it (for logs). */
export function printTable(title: string, headers: string[], rows: (string | number)[][]): string {
  const cells = rows.map((row) => row.map((cell) => String(cell)));
  const widths = headers.map((header, column) => Math.max(header.length, ...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  const text = ['', title, line(headers), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.map(line), ''].join('\n');
  console.log(text);
  return text;
}

/** 12345.6 → "12,346". */
export function fmtInt(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a';
}

/** Milliseconds with precision that suits the size. */
export function fmtMs(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (value < 10) return value.toFixed(2);
  if (value < 100) return value.toFixed(1);
  return value.toFixed(0);
}

export function fmtRatio(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : 'n/a';
}

/** "median (min–max)". */
export function fmtSpread(value: Spread, format: (value: number) => string): string {
  return `${format(value.median)} (${format(value.min)}–${format(value.max)})`;
}
