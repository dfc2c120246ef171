// Finding a JSON object's top-level members in its text without parsing it: populate reads and replaces the
// relation ids of a page's records, whose data is otherwise passed through as the text the database returned
// (parsing each record only to find one value cost more than the page's query).

/** Where a member's value lies in the object's text: `text.slice(start, end)` is the value's JSON. */
export interface MemberSpan {
  start: number;
  end: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * The spans of the members of `keys` in the JSON object `text` (as `JSON.parse` reads it: of a key written twice,
 * the last). Null when the text is not a JSON object, or not one this scanner can read to its end; the caller then
 * parses it. `text` is valid JSON (the database's text of stored data): the scanner checks only what it needs to
 * find its way, so a malformed text may give null or spans of no use, never a loop.
 */
export function memberSpans(text: string, keys: { has(key: string): boolean }): Map<string, MemberSpan> | null {
  const spans = new Map<string, MemberSpan>();
  let at = skipSpace(text, 0);
  if (text.charCodeAt(at) !== OPEN_BRACE) return null;
  at = skipSpace(text, at + 1);
  if (text.charCodeAt(at) === CLOSE_BRACE) return spans;
  for (;;) {
    if (text.charCodeAt(at) !== QUOTE) return null;
    const keyEnd = stringEnd(text, at);
    if (keyEnd < 0) return null;
    const key = keyOf(text, at, keyEnd);
    if (key === null) return null;
    at = skipSpace(text, keyEnd);
    if (text.charCodeAt(at) !== COLON) return null;
    const start = skipSpace(text, at + 1);
    const end = valueEnd(text, start);
    if (end <= start) return null;
    if (keys.has(key)) spans.set(key, { start, end });
    at = skipSpace(text, end);
    const next = text.charCodeAt(at);
    if (next === CLOSE_BRACE) return spans;
    if (next !== COMMA) return null;
    at = skipSpace(text, at + 1);
  }
}

/**
 * `JSON.stringify` of a string, cheaper for the ids and times populate writes a hundred of in every answer: a
 * string with nothing to escape is quoted as it is.
 */
export function jsonString(text: string): string {
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at);
    // Control characters, the quote, the backslash and surrogates (a lone one is written escaped).
    if (char < 0x20 || char === QUOTE || char === BACKSLASH || (char >= 0xd800 && char <= 0xdfff)) {
      return JSON.stringify(text);
    }
  }
  return `"${text}"`;
}

/** The value of a member as `JSON.parse` gives it; a string without escapes is sliced, not parsed. */
export function spanValue(text: string, span: MemberSpan): unknown {
  if (text.charCodeAt(span.start) === QUOTE) return stringValue(text, span.start, span.end);
  return JSON.parse(text.slice(span.start, span.end));
}

/** The JSON string written from `start` (its opening quote) to `end` (after its closing quote), unescaped. */
function stringValue(text: string, start: number, end: number): string {
  const inner = text.slice(start + 1, end - 1);
  return inner.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : inner;
}

/** A member's key, or null when its escapes are not JSON's. */
function keyOf(text: string, start: number, end: number): string | null {
  try {
    return stringValue(text, start, end);
  } catch {
    return null;
  }
}

function skipSpace(text: string, at: number): number {
  for (;;) {
    const char = text.charCodeAt(at);
    // JSON's whitespace: space, tab, line feed, carriage return.
    if (char !== 0x20 && char !== 0x09 && char !== 0x0a && char !== 0x0d) return at;
    at += 1;
  }
}

/** The index after the closing quote of the string opening at `start`; -1 if it never closes. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The index after the value starting at `start`; `start` itself (or less) if there is none to read. */
function valueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === QUOTE) return stringEnd(text, start);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) return nestedEnd(text, start);
  // A number, true, false or null: up to the next delimiter.
  let at = start;
  while (at < text.length) {
    const char = text.charCodeAt(at);
    if (char === COMMA || char === CLOSE_BRACE || char === CLOSE_BRACKET || char <= 0x20) break;
    at += 1;
  }
  return at;
}

/** The index after the object or array opening at `start`; -1 if it never closes. */
function nestedEnd(text: string, start: number): number {
  let depth = 0;
  let at = start;
  while (at < text.length) {
    const char = text.charCodeAt(at);
    if (char === QUOTE) {
      at = stringEnd(text, at);
      if (at < 0) return -1;
      continue;
    }
    if (char === OPEN_BRACE || char === OPEN_BRACKET) depth += 1;
    else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) return at + 1;
    }
    at += 1;
  }
  return -1;
}
