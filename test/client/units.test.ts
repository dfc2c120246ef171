// Pieces of the client that need no content server: comparing data, CSV cells, Retry-After, the JSON array reader,
// the words of its errors (against a plain node:http server on 127.0.0.1).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CellError, ContentServiceError, csvColumns, csvRowToData, deepEqual, mergeDiff } from '../../src/client/index.js';
import { retryAfterSeconds, Transport, withJitter } from '../../src/client/http.js';
import type { FieldDefinition } from '../../src/client/types.js';
import { openInput } from '../../src/cli/client-sources.js';
import { ProgressReporter, resolveConnection } from '../../src/cli/client-options.js';

describe('comparing data', () => {
  test('key order does not matter (jsonb returns keys in its own order); array order does', () => {
    const stored = { name: { pl: 'b', en: 'a' }, meta: { z: [1, { y: 2, x: 1 }], a: null }, price: 1 };
    const input = { price: 1, meta: { a: null, z: [1, { x: 1, y: 2 }] }, name: { en: 'a', pl: 'b' } };
    assert.notEqual(JSON.stringify(stored), JSON.stringify(input));
    assert.equal(deepEqual(stored, input), true);
    assert.equal(deepEqual([1, 2], [2, 1]), false);
    assert.equal(mergeDiff(stored, input), undefined);
  });

  test('mergeDiff gives only what changes: null removes only what is stored, objects compared member by member', () => {
    const stored = { title: 't', price: 1, name: { en: 'a', pl: 'b' } };
    assert.deepEqual(mergeDiff(stored, { title: 't', price: 2, note: null, name: { pl: 'c', en: 'a' } }), {
      price: 2,
      name: { pl: 'c' },
    });
    assert.deepEqual(mergeDiff(stored, { price: null }), { price: null });
    assert.deepEqual(mergeDiff(stored, { name: { pl: null } }), { name: { pl: null } });
    assert.equal(mergeDiff(stored, { name: { de: null } }), undefined);
  });
});

describe('CSV cells', () => {
  const fields: FieldDefinition[] = [
    { key: 'title', label: 'Title', type: 'text', required: true },
    { key: 'price', label: 'Price', type: 'number', required: false },
    { key: 'active', label: 'Active', type: 'boolean', required: false },
    { key: 'day', label: 'Day', type: 'date', required: false },
    { key: 'name', label: 'Name', type: 'translatable', required: false },
    { key: 'tags', label: 'Tags', type: 'relation', required: false, relationTo: 'model:tag', relationType: 'hasMany' },
    { key: 'meta', label: 'Meta', type: 'object', required: false },
  ];

  test('cells converted by field type; empty cell is null, quoted "" an empty text', () => {
    const columns = csvColumns(['title', 'price', 'active', 'day', 'name.en', 'name.pl', 'tags', 'meta', '_note'], fields);
    assert.deepEqual(
      csvRowToData(['Ball', ' 1e3 ', 'Yes', '2024-02-29', 'Ball', null, 'a| b', '{"x":[1]}', 'ignored'], columns, 2),
      {
        title: 'Ball',
        price: 1000,
        active: true,
        day: '2024-02-29',
        name: { en: 'Ball', pl: null },
        tags: ['a', 'b'],
        meta: { x: [1] },
      },
    );
    assert.deepEqual(csvRowToData(['', null, null, null, null, null, '[]', null], columns, 3), {
      title: '',
      price: null,
      active: null,
      day: null,
      name: null,
      tags: [],
      meta: null,
    });
  });

  test('every bad cell of a row is named with line and column', () => {
    const columns = csvColumns(['title', 'price', 'active', 'day', 'meta'], fields);
    assert.throws(
      () => csvRowToData(['x', '12,5', 'maybe', '2023-02-29', '[1]'], columns, 7),
      (error: unknown) =>
        error instanceof CellError &&
        error.issues.map((issue) => `${issue.line}:${issue.column}:${issue.columnName}`).join(' ') ===
          '7:2:price 7:3:active 7:4:day 7:5:meta',
    );
  });

  test('header: unknown column, locale on a non-translatable field, column twice', () => {
    assert.throws(() => csvColumns(['title', 'colour'], fields), /line 1, column 2 \(colour\): unknown column/);
    assert.throws(() => csvColumns(['title', 'price.en'], fields), /only translatable fields take one column per locale/);
    assert.throws(() => csvColumns(['title', 'title'], fields), /column given twice/);
  });
});

describe('Retry-After', () => {
  test('seconds or an HTTP date; jitter only adds, at most 1 s', () => {
    assert.equal(retryAfterSeconds('17', {}), 17);
    assert.equal(retryAfterSeconds(null, { retryAfter: 5 }), 5);
    const inTen = new Date(Date.now() + 10_000).toUTCString();
    assert.ok(Math.abs(retryAfterSeconds(inTen, {}) - 10) <= 1);
    assert.equal(
      withJitter(30, () => 0),
      30_000,
    );
    assert.equal(
      withJitter(30, () => 1),
      31_000,
    );
    assert.equal(
      withJitter(1, () => 1),
      1100,
    );
  });
});

describe('input readers', () => {
  test('a JSON array is read element by element, with the line each starts on; CSV rows with their first line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'content-service-units-'));
    try {
      const json = join(dir, 'rows.json');
      writeFileSync(json, '[\n {"a": "x,]}"},\n {"b": [1, {"c": "\\"]"}]},\n 3\n]\n');
      const source = await openInput(json, 'json');
      const rows = [];
      for await (const row of source.rows) rows.push([row.line, row.value]);
      assert.deepEqual(rows, [
        [2, { a: 'x,]}' }],
        [3, { b: [1, { c: '"]' }] }],
        [4, 3],
      ]);
      const csv = join(dir, 'rows.csv');
      writeFileSync(csv, '\uFEFFa,b\r\n1,"x\r\ny"\r\n\r\n3,""\r\n');
      const csvSource = await openInput(csv, 'csv');
      assert.deepEqual(csvSource.header, ['a', 'b']);
      const csvRows = [];
      for await (const row of csvSource.rows) csvRows.push([row.line, row.cells]);
      assert.deepEqual(csvRows, [
        [2, ['1', 'x\r\ny']],
        [5, ['3', '']],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('connection options of the client commands', () => {
  function withoutEnv<T>(run: () => T): T {
    const saved = { ...process.env };
    delete process.env.CONTENT_SERVICE_URL;
    process.env.CONTENT_SERVICE_TOKEN = 'cs_from_env';
    process.env.CONTENT_SERVICE_WORKSPACE_ID = 'w-env';
    try {
      return run();
    } finally {
      process.env = saved;
    }
  }

  test('--url defaults to the local server; the token and workspace can come from the environment', () => {
    assert.deepEqual(
      withoutEnv(() => resolveConnection({})),
      { baseUrl: 'http://127.0.0.1:4000', token: 'cs_from_env', workspaceId: 'w-env' },
    );
  });

  test('a flag wins over the environment, CONTENT_SERVICE_URL over the default', () => {
    const connection = withoutEnv(() => {
      process.env.CONTENT_SERVICE_URL = 'http://cms.internal:8080';
      return resolveConnection({ token: 'cs_flag' });
    });
    assert.deepEqual(connection, { baseUrl: 'http://cms.internal:8080', token: 'cs_flag', workspaceId: 'w-env' });
  });
});

describe('import progress', () => {
  function lastLine(setup: (reporter: ProgressReporter) => void, position: { done: number; total: number }): string {
    const written: string[] = [];
    const stream = { isTTY: false, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream;
    const reporter = new ProgressReporter({
      label: 'import',
      position: () => position,
      stream,
      intervalMs: 3_600_000,
      rows: (state) => state.created + state.updated + state.unchanged + state.failed,
      inputRows: (state) => state.read,
    });
    setup(reporter);
    reporter.stop();
    return written.at(-1)!;
  }
  const state = { phase: 'writing' as const, existing: 0, updated: 0, unchanged: 0, deleted: 0 };

  test('counts rows whose outcome is known, not rows read ahead; the percentage is of the rows the file holds', () => {
    // Half the file read = 400 rows read, so about 800 rows in all; 90 written and 10 refused so far: 12 %.
    const line = lastLine((reporter) => reporter.update({ ...state, read: 400, created: 90, failed: 10 }), {
      done: 500,
      total: 1000,
    });
    assert.match(line, /^import: 100 rows \(12%\), /);
  });

  test('while waiting for the write budget the line says so and for how long', () => {
    const line = lastLine(
      (reporter) => {
        reporter.update({ ...state, read: 1000, created: 1000, failed: 0 });
        reporter.wait({
          retryAfterSeconds: 30,
          waitMs: 30_000,
          until: Date.now() + 30_000,
          operation: 'importRecords',
          attempt: 1,
        });
      },
      { done: 1000, total: 4000 },
    );
    assert.match(line, /^import: 1000 rows \(25%\), \d+ rows\/s, ETA \S+; waiting 30s for the write budget \(HTTP 429\)\n$/);
  });
});

describe('the words of a request that got no answer, or waited too long', () => {
  /** A server on 127.0.0.1 that answers every request 429 with Retry-After: 2, or never answers. */
  async function localServer(answer: boolean): Promise<{ url: string; close: () => Promise<void> }> {
    const server = createServer((_request, response) => {
      if (!answer) return;
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' });
      response.end(
        JSON.stringify({ errors: [{ message: 'Record write budget exceeded', extensions: { code: 'RATE_LIMITED' } }] }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(() => resolve()));
      },
    };
  }

  test('a wait limit under a whole second is written as it was given', async () => {
    const local = await localServer(true);
    try {
      const transport = new Transport({ baseUrl: local.url, token: 't', workspaceId: 'w', maxRateLimitWaitMs: 1500 });
      const error = await transport
        .request('mutation { x }', {}, { operation: 'write', idempotent: false })
        .catch((e: unknown) => e);
      assert.ok(error instanceof ContentServiceError);
      assert.equal(error.code, 'RATE_LIMIT_WAIT_EXCEEDED');
      assert.match(error.message, /waited 0 s in total, the next wait of 2 s would pass the limit of 1\.5 s$/);
    } finally {
      await local.close();
    }
  });

  test('a timed-out write says its outcome is unknown; a read does not', async () => {
    const local = await localServer(false);
    try {
      const transport = new Transport({ baseUrl: local.url, token: 't', workspaceId: 'w', timeoutMs: 100 });
      const send = (idempotent: boolean) =>
        transport.request('{ x }', {}, { operation: idempotent ? 'read' : 'write', idempotent }).catch((e: unknown) => e);
      const write = await send(false);
      assert.ok(write instanceof ContentServiceError);
      assert.match(write.message, /^write: no answer from .* within 100 ms \(the outcome is unknown\)$/);
      const read = await send(true);
      assert.ok(read instanceof ContentServiceError);
      assert.equal(read.code, 'TIMEOUT');
      assert.match(read.message, /^read: no answer from .* within 100 ms$/);
    } finally {
      await local.close();
    }
  });
});
