import type { FieldDefinition, RecordData } from './fields.js';

/**
 * A character JSON.stringify may write escaped: a quote, backslash, control character or surrogate (a surrogate
 * pair is written as it is, but a string holding one takes the engine's own serialiser here, as every such string does).
 */
const ESCAPED_CHARACTER = /[^ !#-[\]-\ud7ff\ue000-\uffff]/;

/** Each field's `"key":` (JSON-quoted), with the comma that comes before every member but the first. */
interface FieldHeads {
  keys: string[];
  first: string[];
  later: string[];
}

const headsByFields = new WeakMap<readonly FieldDefinition[], FieldHeads>();

function fieldHeads(fields: readonly FieldDefinition[]): FieldHeads {
  let heads = headsByFields.get(fields);
  if (!heads) {
    const keys = fields.map((field) => field.key);
    const quoted = keys.map((key) => `${JSON.stringify(key)}:`);
    heads = { keys, first: quoted.map((head) => `{${head}`), later: quoted.map((head) => `,${head}`) };
    headsByFields.set(fields, heads);
  }
  return heads;
}

/**
 * The JSON text of checked record data: the same text as `JSON.stringify(data)`, made faster for the common
 * record. Checked data holds only its model's fields, in the fields' order (record-data.ts makes it so), which is
 * the order JSON.stringify writes them in; its strings and numbers are written here, anything else (objects,
 * arrays, strings that need escapes) by JSON.stringify. Data with keys that are not fields goes to JSON.stringify
 * whole. An import serialises a thousand records a call, and the engine's generic serialiser was a sixth of its
 * time.
 */
export function recordText(fields: readonly FieldDefinition[], data: RecordData): string {
  const { keys, first, later } = fieldHeads(fields);
  let text = '';
  let written = 0;
  for (let index = 0; index < keys.length; index++) {
    const value = data[keys[index]!];
    if (value === undefined) continue;
    text += written === 0 ? first[index] : later[index];
    written++;
    if (typeof value === 'string') text += ESCAPED_CHARACTER.test(value) ? JSON.stringify(value) : `"${value}"`;
    else if (typeof value === 'number' && Number.isFinite(value)) text += String(value);
    else if (typeof value === 'boolean') text += value ? 'true' : 'false';
    else text += JSON.stringify(value);
  }
  if (written !== Object.keys(data).length) return JSON.stringify(data);
  return written === 0 ? '{}' : `${text}}`;
}
