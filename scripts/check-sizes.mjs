// `npm run lint`'s size limit for what ESLint does not read: no stylesheet in src/ over 400 lines (the TypeScript
// is held to the same limit by ESLint's max-lines, eslint.config.js). Lines are counted as `wc -l` counts them
// (a last line without its line feed counts too). Prints each file over the limit with its count, exits 1 if any.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAX_LINES = 400;
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SRC = join(ROOT, 'src');

function lineCount(text) {
  if (text === '') return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

const stylesheets = readdirSync(SRC, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.css'))
  .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
  .sort();

const over = stylesheets
  .map((file) => ({ file: relative(ROOT, file), lines: lineCount(readFileSync(file, 'utf8')) }))
  .filter(({ lines }) => lines > MAX_LINES);

for (const { file, lines } of over) console.error(`${file}: ${lines} lines (at most ${MAX_LINES})`);
process.exit(over.length > 0 ? 1 : 0);
