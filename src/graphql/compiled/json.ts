// Writing the answer's JSON text: names made cheap to read and to join, leaf values quoted (JSON text copied as
// it is), an object's fields and a list's items joined.
import { JsonText } from '../../domain/json-text.js';
import type { FieldPlan, Json } from './plan.js';

/**
 * The string table's copy of a name: reading `source[name]` with a name cut out of the query text made V8 look
 * the name up in its string table on every read.
 */
export function internalised(name: string): string {
  return Object.keys({ [name]: true })[0]!;
}

/**
 * A fresh sequential copy of an ASCII string. Names from the parsed document can be internalised ("thin")
 * strings, which V8 marks two-byte: text joined with them becomes two-byte, doubling the answer's memory and
 * the work of writing it out as UTF-8.
 */
export function flatOneByte(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** Characters JSON.stringify might escape (and, to be safe, everything outside printable ASCII, ` ` to `~`). */
const NEEDS_ESCAPING = /[^\u0020\u0021\u0023-\u005b\u005d-\u007e]/;

/** JSON.stringify of a string; ids and times (most strings of an answer) need no escaping and skip its setup. */
function quote(text: string): string {
  return text.length <= 256 && !NEEDS_ESCAPING.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** JSON text of a serialised leaf value: JSON text is copied as it is. */
export function jsonOf(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (value instanceof JsonText) return value.text;
  return JSON.stringify(value) ?? 'null';
}

export function objectJson(fields: readonly FieldPlan[], texts: readonly Json[]): string {
  let json = '{';
  for (let index = 0; index < fields.length; index++) {
    if (index > 0) json += ',';
    const text = texts[index]!;
    json += fields[index]!.prefix + (typeof text === 'string' ? text : listJson(text));
  }
  return `${json}}`;
}

export function listJson(items: readonly Json[]): string {
  let json = '[';
  for (let index = 0; index < items.length; index++) {
    if (index > 0) json += ',';
    const item = items[index]!;
    json += typeof item === 'string' ? item : listJson(item);
  }
  return `${json}]`;
}
