// The CLI contract's "SIGTERM/SIGINT drain in-flight requests and exit 0" as users start the server: through npm
// (`npx content-service serve`, `npm start`), which runs it through a shell and forwards signals to that shell.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CLI, freePort, REPO_ROOT, TEST_PROCESS_ENV } from '../support/server.js';
import { waitFor, withDeadline } from '../support/wait-for.js';

const scratch: string[] = [];
/** Every process group started here: one a failed test leaves running is killed, or its pipes would hold this file open. */
const started: ChildProcess[] = [];
after(() => {
  for (const child of started) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

// Servers on SQLite, whatever the suite's database: the run on PostgreSQL would only start them a second time.
const skip =
  process.env.TEST_SERVER_DATABASE === 'postgres' ? 'starts its servers on SQLite: run once, in the main suite' : undefined;

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Resolves when every process holding the child's stdout has exited (the server included). */
  allGone: Promise<void>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function start(command: string, args: (port: number, database: string) => string[], env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'content-service-signals-'));
  scratch.push(dir);
  const port = await freePort();
  const child = spawn(command, args(port, `sqlite:${join(dir, 'content.db')}`), {
    cwd: REPO_ROOT,
    env: { ...process.env, ...TEST_PROCESS_ENV, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A group of its own, which after() can kill whole (npm, the shell, the server).
    detached: true,
  });
  started.push(child);
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const allGone = new Promise<void>((resolve) => child.stdout!.on('close', resolve));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`the server exited before it was ready:\n${text}`);
      return fetch(`${url}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
    },
    { timeoutMs: 60_000, intervalMs: 100, message: () => `the server did not start:\n${text}` },
  );
  return { child, url, output: () => text, allGone, exit } satisfies Started;
}

async function refusesConnections(url: string): Promise<boolean> {
  return fetch(`${url}/healthz`).then(
    () => false,
    () => true,
  );
}

describe('cli serve started through npm', { skip }, () => {
  test('cli serve: SIGTERM to `npx content-service serve` reaches the server, which drains and exits 0 (npx too)', async () => {
    const server = await start('npx', (port, database) => [
      'content-service',
      'serve',
      '--port',
      String(port),
      '--database',
      database,
    ]);
    server.child.kill('SIGTERM');
    const exit = await withDeadline(server.exit, { timeoutMs: 20_000, message: 'npx exit' });
    await withDeadline(server.allGone, { timeoutMs: 20_000, message: 'the server exits' });
    assert.deepEqual(exit, { code: 0, signal: null }, server.output());
    assert.match(server.output(), /"signal":"SIGTERM".*shutting down/);
    assert.ok(await refusesConnections(server.url));
  });

  test('cli serve: a server whose parent shell dies of the signal (dash under npm) stops as on SIGTERM', async () => {
    // `; exit $?` keeps any sh in place as the server's parent, as dash does for npm.
    const server = await start(
      '/bin/sh',
      (port, database) => ['-c', `node ${CLI} serve --port ${port} --database ${database}; exit $?`],
      { npm_lifecycle_event: 'npx' },
    );
    server.child.kill('SIGTERM');
    await withDeadline(server.exit, { timeoutMs: 10_000, message: 'the shell dies' });
    await withDeadline(server.allGone, { timeoutMs: 20_000, message: 'the orphaned server exits' });
    assert.match(server.output(), /"signal":"parent exited".*shutting down/);
    assert.ok(await refusesConnections(server.url));
  });
});
