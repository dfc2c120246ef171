// Pure helpers for forms and tables: server messages → the field they name, record data → a merge patch, values
// → short text for a table cell.
import { deepEqual, isPlainObject } from '../shared/json.js';
import type { FieldDefinition, JsonObject, JsonValue } from './types.js';

export interface FieldMessage {
  /** The path the message names: `sku`, `name.en`, `fields[2].key`, `product.skuField`. */
  path: string;
  reason: string;
}

/** `<path>: <reason>` → its parts; undefined when the message does not start with a path. */
export function splitFieldMessage(message: string): FieldMessage | undefined {
  const match = /^([A-Za-z_$][\w$-]*(?:\.[\w$-]+|\[\d+\])*): ([\s\S]+)$/.exec(message);
  if (!match) return undefined;
  return { path: match[1]!, reason: match[2]! };
}

/** The first key of a path: `name.en` → `name`, `fields[2].key` → `fields`. */
export function topKey(path: string): string {
  return path.split(/[.[]/)[0] ?? path;
}

/**
 * The paths from the most to the least specific: `fields[2].fields[0].key` → itself, `fields[2].fields[0]`,
 * `fields[2].fields`, `fields[2]`, `fields`.
 */
export function pathPrefixes(path: string): string[] {
  const prefixes: string[] = [path];
  let rest = path;
  for (;;) {
    const cut = Math.max(rest.lastIndexOf('.'), rest.lastIndexOf('['));
    if (cut <= 0) break;
    rest = rest.slice(0, cut);
    prefixes.push(rest);
  }
  return prefixes;
}

/**
 * The JSON merge patch (RFC 7386) that turns `before` into `after`: changed keys, `null` for removed ones,
 * objects patched key by key. Arrays are replaced whole. An empty object means no change.
 */
export function mergePatch(before: JsonObject, after: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const key of Object.keys(before)) {
    if (!(key in after) || after[key] === null) {
      if (before[key] !== null) patch[key] = null;
    }
  }
  for (const [key, value] of Object.entries(after)) {
    if (value === null) continue;
    const old = before[key];
    if (deepEqual(old, value)) continue;
    if (isPlainObject(old) && isPlainObject(value)) {
      const inner = mergePatch(old, value);
      if (Object.keys(inner).length > 0) patch[key] = inner;
    } else {
      patch[key] = value;
    }
  }
  return patch;
}

function truncate(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A translatable value in the reader's language if present, else English, else the first locale. */
export function pickLocale(value: Record<string, unknown>, preferred: readonly string[] = []): string | undefined {
  for (const locale of [...preferred, 'en']) {
    const text = value[locale];
    if (typeof text === 'string') return text;
  }
  const first = Object.values(value).find((text) => typeof text === 'string');
  return typeof first === 'string' ? first : undefined;
}

/** Short text for a table cell. */
export function cellText(
  value: JsonValue | undefined,
  field: FieldDefinition | undefined,
  preferred: readonly string[] = [],
): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number' || typeof value === 'string') return truncate(String(value));
  if (field?.type === 'translatable' && isPlainObject(value)) return truncate(pickLocale(value, preferred) ?? '');
  if (Array.isArray(value) && field?.type === 'relation') return truncate(`${value.length} linked`);
  if (Array.isArray(value) && field?.type === 'media') return `${value.length} asset${value.length === 1 ? '' : 's'}`;
  return truncate(JSON.stringify(value));
}

/** `Product` → `product`, `Blog post!` → `blog-post`: a slug suggestion (a-z, 0-9, "-"). */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}

/** `Unit price` → `unitPrice`: a field key suggestion (letters, digits, "_"; starts with a letter or "_"). */
export function keyify(label: string): string {
  const words = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  const key = words
    .map((word, index) => (index === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase()))
    .join('');
  return (/^[0-9]/.test(key) ? `_${key}` : key).slice(0, 64);
}

/** Bytes as `4.2 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

let dateTimeFormat: Intl.DateTimeFormat | undefined;
let secondsFormat: Intl.DateTimeFormat | undefined;

/** An ISO date-time as the reader's local date and time, to the minute (or to the second). */
export function formatDateTime(iso: string | null | undefined, options: { seconds?: boolean } = {}): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  // One formatter for all cells: making one per call costs more than the rest of a table row.
  const parts = { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' } as const;
  if (options.seconds) {
    secondsFormat ??= new Intl.DateTimeFormat(undefined, { ...parts, second: '2-digit' });
    return secondsFormat.format(date);
  }
  dateTimeFormat ??= new Intl.DateTimeFormat(undefined, parts);
  return dateTimeFormat.format(date);
}
