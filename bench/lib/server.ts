import { execFile, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { onCleanup } from './cleanup.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = 'bin/content-service.js';
const execFileAsync = promisify(execFile);

export interface Workspace {
  token: string;
  workspaceId: string;
}

/** `content-service bootstrap --json` on the database: a workspace and a token for it. */
export async function bootstrap(databaseUrl: string, org = 'bench', workspace = 'main'): Promise<Workspace> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [CLI, 'bootstrap', '--org', org, '--workspace', workspace, '--json', '--database', databaseUrl],
    { cwd: REPO_ROOT },
  );
  const line = stdout.trim().split('\n').pop()!;
  const result = JSON.parse(line) as { token: string; workspaceId: string };
  return { token: result.token, workspaceId: result.workspaceId };
}

export interface ServerOptions {
  /** Write a V8 CPU profile of the server into this directory (node --cpu-prof); default env BENCH_CPU_PROF. */
  cpuProfDir?: string;
  env?: NodeJS.ProcessEnv;
}

export interface ServerHandle {
  baseUrl: string;
  pid: number;
  /** Server-side time of each request, by request id (the `durationMs` of the server's request log line). */
  readonly durations: Map<string, number>;
  /** The server-side times of these requests, waiting (up to 5 s) for their log lines. */
  serverTimes(requestIds: readonly string[]): Promise<number[]>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts `content-service serve` (the built dist/, as `npm run build` left it) on a free port with a write budget
 * that never binds, and resolves once it logs `listening`. Its stdout (one JSON log line per request) is parsed
 * for the server-side duration of every request.
 */
export async function startServer(databaseUrl: string, options: ServerOptions = {}): Promise<ServerHandle> {
  const port = await freePort();
  const cpuProfDir = options.cpuProfDir ?? process.env.BENCH_CPU_PROF;
  // BENCH_NODE_ARGS: more node flags for the server (e.g. --perf-basic-prof for `perf record`).
  const extraNodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : [];
  const nodeArgs = [...(cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : []), ...extraNodeArgs];
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      CLI,
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--database',
      databaseUrl,
      '--write-budget',
      '1000000000',
      '--no-init',
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } },
  );
  const durations = new Map<string, number>();
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));

  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 30 s: ${stderr.join('')}`)), 30_000);
    void exit.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening: ${stderr.join('').slice(-2000)}`));
    });
    // BENCH_SERVER_STDOUT: a copy of the server's stdout (its log lines) in this file.
    const copy = process.env.BENCH_SERVER_STDOUT ? createWriteStream(process.env.BENCH_SERVER_STDOUT) : null;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      copy?.write(`${line}\n`);
      if (!line.startsWith('{')) return;
      let entry: { level?: number; msg?: string; requestId?: string; durationMs?: number };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        return;
      }
      // Errors the server logs (e.g. the cause of an INTERNAL answer) are shown, not swallowed.
      if ((entry.level ?? 0) >= 50) console.error(`server: ${line.slice(0, 2000)}`);
      if (entry.msg === 'request' && entry.requestId && typeof entry.durationMs === 'number') {
        durations.set(entry.requestId, entry.durationMs);
        for (const wake of waiters) wake();
      } else if (entry.msg === 'listening') {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr.push(chunk.toString());
    if (stderr.length > 200) stderr.shift();
  });

  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exit;
    clearTimeout(timer);
  };
  const unregister = onCleanup(stop);
  try {
    await ready;
  } catch (error) {
    await stop();
    unregister();
    throw error;
  }

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    durations,
    async serverTimes(requestIds) {
      const deadline = Date.now() + 5_000;
      while (requestIds.some((id) => !durations.has(id)) && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          const wake = () => (waiters.delete(wake), resolve());
          waiters.add(wake);
          setTimeout(wake, 50);
        });
      }
      return requestIds.map((id) => durations.get(id) ?? NaN);
    },
    async stop() {
      unregister();
      await stop();
    },
  };
}
