// One CSV reader on both sides: every fixture of test/fixtures/csv read through the CLI's path (openInput: a
// file stream into csv-parse) and through the browser's (parseCsv on the file's text, csv-parse's browser build),
// each giving the fixture's expected delimiter, header and rows with the lines they start on.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseCsv } from '../../src/admin-ui/csv.js';
import { openInput } from '../../src/cli/client-sources.js';
import { detectDelimiter } from '../../src/client/csv.js';
import { REPO_ROOT } from '../support/server.js';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'csv');

interface Fixture {
  delimiter: string;
  header: string[];
  rows: { line: number; cells: (string | null)[] }[];
}

const names = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.csv'))
  .map((name) => name.slice(0, -'.csv'.length))
  .sort();

async function readByCli(path: string): Promise<Omit<Fixture, 'delimiter'> & { headerLine: number }> {
  const source = await openInput(path, 'csv');
  const rows: Fixture['rows'] = [];
  for await (const row of source.rows) rows.push({ line: row.line, cells: row.cells ?? [] });
  return { header: (source.header ?? []) as string[], headerLine: source.headerLine, rows };
}

async function readByBrowser(text: string): Promise<Fixture & { headerLine: number }> {
  const parsed = await parseCsv(text);
  return {
    delimiter: parsed.delimiter,
    header: parsed.rows[0] as string[],
    headerLine: parsed.lines[0]!,
    rows: parsed.rows.slice(1).map((cells, index) => ({ line: parsed.lines[index + 1]!, cells })),
  };
}

describe('the CSV fixtures, read by the CLI and by the browser', () => {
  test('there are fixtures to read', () => {
    assert.ok(names.length >= 10, names.join(', '));
  });

  for (const name of names) {
    test(name, async () => {
      const path = join(FIXTURES, `${name}.csv`);
      const text = readFileSync(path, 'utf8');
      const expected = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as Fixture;
      assert.equal(detectDelimiter(text), expected.delimiter, 'detected delimiter');
      const cli = await readByCli(path);
      const browser = await readByBrowser(text);
      const { headerLine, ...cliRows } = cli;
      assert.deepEqual(cliRows, { header: expected.header, rows: expected.rows }, 'CLI');
      assert.deepEqual(browser, { ...expected, headerLine }, 'browser (the same rows and header line as the CLI)');
    });
  }
});

test('the CLI reads on until the header line ends: a quoted header cell over several chunks of the stream', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'content-service-csv-'));
  try {
    const long = 'x, y\n'.repeat(120_000); // 720 KB of commas and line breaks inside quotes: chunks of 256 KB
    const path = join(dir, 'long-header.csv');
    writeFileSync(path, `"${long}";b\n1;2\n`);
    const cli = await readByCli(path);
    assert.deepEqual(cli.header, [long, 'b']);
    assert.deepEqual(cli.rows, [{ line: 120_002, cells: ['1', '2'] }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
