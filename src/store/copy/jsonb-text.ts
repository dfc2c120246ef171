// A JSON text as PostgreSQL's jsonb prints it (`data::text`), made from any valid JSON text without a round trip
// through JavaScript values, so that a copy's checksum can be computed over the same bytes on both ends: by
// PostgreSQL itself over its stored jsonb, and here over the text SQLite holds.
//
// jsonb's text form: the keys of an object ordered by their length in UTF-8 bytes, then by those bytes, the last of
// a repeated key kept; ", " between elements and ": " after a key; strings with only `"`, `\` and the control
// characters escaped (\b \f \n \r \t, the others as \u00xx); numbers as `numeric` prints the token it was read from
// (the digits kept, an exponent written out: `1e-7` is `0.0000001`, `1.20e1` is `12.0`, `-0` is `0`). The number
// tokens are converted as text, never through a double, so `1.0` stays `1.0` and 20-digit integers keep their digits.

let text = '';
let position = 0;

/** The jsonb text of the JSON `json` (throws on text that is not JSON). */
export function jsonbText(json: string): string {
  text = json;
  position = 0;
  try {
    const result = value();
    skipSpace();
    if (position !== text.length) fail();
    return result;
  } finally {
    text = '';
  }
}

function fail(): never {
  throw new SyntaxError(`not a JSON text (at offset ${position})`);
}

function skipSpace(): void {
  for (;;) {
    const code = text.charCodeAt(position);
    // space, \t, \n, \r
    if (code === 32 || code === 9 || code === 10 || code === 13) position++;
    else return;
  }
}

function value(): string {
  skipSpace();
  const code = text.charCodeAt(position);
  if (code === 123) return object(); // {
  if (code === 91) return array(); // [
  if (code === 34) return stringOutput(stringToken()); // "
  if (code === 116) return literal('true');
  if (code === 102) return literal('false');
  if (code === 110) return literal('null');
  return number();
}

function literal(word: string): string {
  if (!text.startsWith(word, position)) fail();
  position += word.length;
  return word;
}

/** The raw token of a string, quotes included. */
function stringToken(): string {
  const start = position;
  position++;
  for (;;) {
    const next = text.indexOf('"', position);
    if (next < 0) fail();
    // A quote preceded by an odd number of backslashes is escaped.
    let backslashes = 0;
    while (text.charCodeAt(next - 1 - backslashes) === 92) backslashes++;
    position = next + 1;
    if (backslashes % 2 === 0) return text.slice(start, position);
  }
}

/** An escape that jsonb writes otherwise than it reads (`\/`, `\uXXXX`); a `\\` before another letter may be flagged too. */
const REWRITTEN_ESCAPE = /\\[^"\\bfnrt]/;

/**
 * jsonb's text of a string token: as it is unless it has escapes that jsonb writes its own way. jsonb writes `\"`,
 * `\\`, `\b`, `\f`, `\n`, `\r` and `\t` as they are read (JSON.stringify writes those too); any other escape is decoded
 * and written again.
 */
function stringOutput(token: string): string {
  if (!token.includes('\\') || !REWRITTEN_ESCAPE.test(token)) return token;
  return JSON.stringify(JSON.parse(token) as string);
}

function stringValue(token: string): string {
  return token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
}

interface Member {
  key: string;
  bytes: number;
  output: string;
}

/** Steps over an opening bracket and the space after it; true, and past `closing` too, when the object or array is empty. */
function opensEmpty(closing: number): boolean {
  position++;
  skipSpace();
  if (text.charCodeAt(position) !== closing) return false;
  position++;
  return true;
}

function object(): string {
  if (opensEmpty(125)) return '{}'; // }
  const members: Member[] = [];
  let wide = false;
  for (;;) {
    skipSpace();
    if (text.charCodeAt(position) !== 34) fail();
    const token = stringToken();
    const key = stringValue(token);
    let bytes = key.length;
    // Not all ASCII: the length and order in UTF-8 bytes differ from those of the UTF-16 string.
    if (/[\u0080-\uffff]/.test(key)) {
      bytes = Buffer.byteLength(key);
      wide = true;
    }
    skipSpace();
    if (text.charCodeAt(position) !== 58) fail(); // :
    position++;
    members.push({ key, bytes, output: `${stringOutput(token)}: ${value()}` });
    skipSpace();
    const code = text.charCodeAt(position++);
    if (code === 125) break; // }
    if (code !== 44) fail(); // ,
  }
  if (members.length > 1) {
    // Stable: of equal keys the one read last stays last, and is the one kept.
    members.sort(wide ? compareWide : compareAscii);
  }
  let output = '{';
  for (let index = 0; index < members.length; index++) {
    const member = members[index]!;
    const next = members[index + 1];
    if (next !== undefined && next.key === member.key) continue;
    output += (output.length > 1 ? ', ' : '') + member.output;
  }
  return output + '}';
}

function compareAscii(a: Member, b: Member): number {
  if (a.bytes !== b.bytes) return a.bytes - b.bytes;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function compareWide(a: Member, b: Member): number {
  if (a.bytes !== b.bytes) return a.bytes - b.bytes;
  return Buffer.compare(Buffer.from(a.key), Buffer.from(b.key));
}

function array(): string {
  if (opensEmpty(93)) return '[]'; // ]
  let output = '[';
  for (;;) {
    output += value();
    skipSpace();
    const code = text.charCodeAt(position++);
    if (code === 93) return output + ']'; // ]
    if (code !== 44) fail(); // ,
    output += ', ';
  }
}

const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

function number(): string {
  NUMBER.lastIndex = position;
  const match = NUMBER.exec(text);
  if (!match) fail();
  position = NUMBER.lastIndex;
  const [token, integer, fraction, exponent] = match;
  if (exponent === undefined) {
    // -0, -0.00: numeric has no negative zero.
    return token.charCodeAt(0) === 45 && /^-0(\.0+)?$/.test(token) ? token.slice(1) : token;
  }
  return numericText(token.charCodeAt(0) === 45, integer!, fraction === undefined ? '' : fraction.slice(1), exponent.slice(1));
}

/** numeric's text of digits × 10^exponent: the digits written out, as many after the point as the token had less the exponent. */
function numericText(negative: boolean, integer: string, fraction: string, exponentText: string): string {
  const exponent = Number(exponentText);
  const digits = integer + fraction;
  // Where the point falls in `digits`.
  const point = integer.length + exponent;
  let whole: string;
  let decimals: string;
  if (point <= 0) {
    whole = '0';
    decimals = '0'.repeat(-point) + digits;
  } else if (point >= digits.length) {
    whole = digits + '0'.repeat(point - digits.length);
    decimals = '';
  } else {
    whole = digits.slice(0, point);
    decimals = digits.slice(point);
  }
  whole = whole.replace(/^0+(?=\d)/, '');
  const zero = /^0*$/.test(whole) && /^0*$/.test(decimals);
  return (negative && !zero ? '-' : '') + whole + (decimals ? `.${decimals}` : '');
}
