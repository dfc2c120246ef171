// Black-box harness: a real server against a fresh database (a SQLite file in a temporary directory, or a PostgreSQL
// schema), on a free port, that the tests talk to over HTTP only. One server per test file: start it in `before`,
// stop it in `after`.
// By default the server runs in the test's own process: what `serve` does (the built dist/ code: openStore, the write
// budget, buildApp, the webhook worker), listening on a real socket on port 0. That saves a process start (most of a
// second of CPU) per server. A server runs as the real CLI process (`node bin/content-service.js serve ...`) instead
// when the process is the point or the options need one: `process: true`, a second server on an earlier one's data
// (`dir`: two processes on one database), environment variables other than LOG_LEVEL (their parsing is the CLI's),
// flags other than --webhook-allow-private and --write-budget-window, `omit`; and every server with
// TEST_SERVERS=process (to check that the suite passes both ways).
// The setup a test needs before it talks to the server (`bootstrap`, `createToken`) runs the functions of the CLI's
// `bootstrap` and `token create` in this process, on the server's database: the same code without a process start
// per call (a third of a second of CPU each, hundreds of them in the suite). The commands themselves, as processes,
// are what test/http/cli.test.ts checks (bootstrapWithCli, createTokenWithCli).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Store } from '../../src/store/store.js';
import { dropSchemaOf, freshPostgresUrl } from './databases.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(REPO_ROOT, 'bin', 'content-service.js');

/** Listens on port 0, reads the port the OS gave, closes, and returns it. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      if (address === null || typeof address === 'string') {
        probe.close();
        reject(new Error('could not read the probe port'));
        return;
      }
      const { port } = address;
      probe.close(() => resolvePort(port));
    });
  });
}

/**
 * What every server and CLI process the tests start gets in its environment, before the test's own variables:
 * password hashes at scrypt's lowest accepted cost (PASSWORD_HASH_COST=10, 32 times cheaper than the default 15), so
 * that sign-ins cost the suite milliseconds, not a third of a second each. Tests of the cost itself, and of sign-in
 * floods (where the hash's time is the point), set it back.
 */
export const TEST_PROCESS_ENV: Readonly<Record<string, string>> = { PASSWORD_HASH_COST: '10' };

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/content-service.js ...args` to completion. Never throws on a non-zero exit. */
export function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolveRun) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, ...TEST_PROCESS_ENV, ...options.env },
        timeout: options.timeoutMs ?? 30_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolveRun({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

export interface BootstrapArgs {
  org: string;
  workspace: string;
  email?: string;
  role?: 'owner' | 'admin' | 'editor' | 'viewer';
}

export interface BootstrapResult {
  org: string;
  workspace: string;
  workspaceId: string;
  userId: string;
  token: string;
}

export interface CreateTokenArgs {
  workspaceId: string;
  email: string;
  role?: 'owner' | 'admin' | 'editor' | 'viewer';
}

export interface CreateTokenResult {
  workspaceId: string;
  userId: string;
  email: string;
  role: string;
  token: string;
}

function parseJsonLine<T>(what: string, result: CliResult): T {
  if (result.code !== 0) {
    throw new Error(`${what} exited with ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
  try {
    return JSON.parse(result.stdout.trim()) as T;
  } catch {
    throw new Error(`${what} did not print one JSON line\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

export function bootstrapArgs(args: BootstrapArgs, databaseUrl: string): string[] {
  const argv = ['bootstrap', '--org', args.org, '--workspace', args.workspace, '--json', '--database', databaseUrl];
  if (args.email !== undefined) argv.push('--email', args.email);
  if (args.role !== undefined) argv.push('--role', args.role);
  return argv;
}

export function createTokenArgs(args: CreateTokenArgs, databaseUrl: string): string[] {
  const argv = [
    'token',
    'create',
    '--workspace-id',
    args.workspaceId,
    '--email',
    args.email,
    '--json',
    '--database',
    databaseUrl,
  ];
  if (args.role !== undefined) argv.push('--role', args.role);
  return argv;
}

export interface StartOptions {
  /** Record write budget per minute; the harness default is large so that ordinary tests never hit it. */
  writeBudget?: number;
  env?: Record<string, string | undefined>;
  extraArgs?: string[];
  /** Flags the harness normally passes that this start leaves out (to test env variables and first-start init). */
  omit?: ('--database' | '--write-budget' | '--no-init')[];
  /** Reuse the temporary directory (and database) of an earlier server, e.g. to restart on the same data. */
  dir?: string;
  /** A database URL to use instead of the SQLite file in the temporary directory (e.g. postgres://…). */
  databaseUrl?: string;
  readyTimeoutMs?: number;
  /** Run the real CLI process even where an in-process server would do (signals, crashes, pids, several processes). */
  process?: boolean;
  /** Where assets are kept (--storage); default a temporary directory. */
  storage?: string;
  /** --max-upload-mb. */
  maxUploadMb?: number;
  /** UPLOAD_EXPIRY_HOURS: how long an unfinished tus upload is kept. */
  uploadExpiryHours?: number;
}

/** Whether `options` need the server to be a process of its own (see the top of this file). */
export function needsProcess(options: StartOptions): boolean {
  if (options.process === true || process.env.TEST_SERVERS === 'process') return true;
  if (options.dir !== undefined || (options.omit ?? []).length > 0 || options.readyTimeoutMs !== undefined) return true;
  if (Object.keys(options.env ?? {}).some((name) => name !== 'LOG_LEVEL')) return true;
  const args = options.extraArgs ?? [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--webhook-allow-private') continue;
    if (args[i] === '--write-budget-window' && i + 1 < args.length) {
      i++;
      continue;
    }
    return true;
  }
  return false;
}

/** What `serve` runs, from dist/ (the code the server process runs), kept while the server listens. */
interface InProcessServing {
  close(): Promise<void>;
}

const dist = (path: string) => import(pathToFileURL(join(REPO_ROOT, 'dist', path)).href);

/** `serve`'s action (src/cli/serve.ts) for the options an in-process server takes, listening on port 0. */
async function serveInProcess(
  databaseUrl: string,
  options: StartOptions,
  write: (text: string) => void,
): Promise<{ port: number; serving: InProcessServing }> {
  const [
    { default: pinoLogger },
    { buildApp },
    { DEFAULTS },
    { openStore },
    budgetModule,
    { SendThread },
    { DeliveryWorker },
    retry,
    { ScheduleRunner },
    mediaSetup,
  ] = (await Promise.all([
    import('pino'),
    dist('server/app.js'),
    dist('server/config.js'),
    dist('store/open-store.js'),
    dist('budget/write-budget.js'),
    dist('webhooks/send-thread.js'),
    dist('webhooks/worker.js'),
    dist('webhooks/retry.js'),
    dist('services/schedule-runner.js'),
    dist('server/media-setup.js'),
  ])) as [
    typeof import('pino'),
    typeof import('../../src/server/app.js'),
    typeof import('../../src/server/config.js'),
    typeof import('../../src/store/open-store.js'),
    typeof import('../../src/budget/write-budget.js'),
    typeof import('../../src/webhooks/send-thread.js'),
    typeof import('../../src/webhooks/worker.js'),
    typeof import('../../src/webhooks/retry.js'),
    typeof import('../../src/services/schedule-runner.js'),
    typeof import('../../src/server/media-setup.js'),
  ];
  const args = options.extraArgs ?? [];
  const windowAt = args.indexOf('--write-budget-window');
  const allowPrivate = args.includes('--webhook-allow-private');
  const config = {
    ...DEFAULTS,
    writeBudget: options.writeBudget ?? DEFAULT_TEST_BUDGET,
    writeBudgetWindowSeconds: windowAt >= 0 ? Number(args[windowAt + 1]) : DEFAULTS.writeBudgetWindowSeconds,
  };
  const logger = pinoLogger(
    { level: options.env?.LOG_LEVEL ?? DEFAULTS.logLevel, base: { service: 'content-service' } },
    { write },
  );
  const store = await openStore(databaseUrl, { keepVersions: true });
  const limiters = store.sharedLimiters ?? budgetModule.memoryLimiters;
  const budget = new budgetModule.WriteBudget(config.writeBudget, limiters, config.writeBudgetWindowSeconds);
  const media =
    options.storage === undefined && options.maxUploadMb === undefined && options.uploadExpiryHours === undefined
      ? undefined
      : {
          ...(await mediaSetup.temporaryMediaConfig()),
          ...(options.storage === undefined ? {} : { storageUrl: options.storage }),
          ...(options.maxUploadMb === undefined ? {} : { maxUploadMb: options.maxUploadMb }),
          ...(options.uploadExpiryHours === undefined ? {} : { uploadExpiryHours: options.uploadExpiryHours }),
        };
  const app = await buildApp({
    store,
    config,
    logger,
    budget,
    signIn: { ...DEFAULTS.signIn, passwordHashCost: Number(TEST_PROCESS_ENV.PASSWORD_HASH_COST), limiters },
    webhookAllowPrivate: allowPrivate,
    media,
  });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
  } catch (error) {
    await store.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  logger.info({ port }, 'listening');
  const sender = new SendThread();
  const webhooks = new DeliveryWorker({
    store: store.webhooks,
    send: sender.send,
    logger,
    allowPrivate,
    timeoutMs: DEFAULTS.webhookTimeoutMs,
    retryDelaysSeconds: retry.DEFAULT_RETRY_DELAYS_SECONDS,
    maxInFlightPerWebhook: DEFAULTS.webhookMaxInFlightPerWebhook,
  });
  await webhooks.start();
  const schedules = new ScheduleRunner(store.schedules, logger);
  schedules.start();
  return {
    port,
    serving: {
      async close() {
        await app.close();
        await schedules.stop();
        await webhooks.stop();
        await sender.close();
        await store.close();
      },
    },
  };
}

export const DEFAULT_TEST_BUDGET = 1_000_000;

const running = new Set<ChildProcess>();
/**
 * The SQLite stores setup opened in this process, one per database, closed when its server is disposed. (One left
 * open does not keep the process alive: SQLite holds no handle.)
 */
const setupStores = new Map<string, Promise<Store>>();

async function closeSetupStore(databaseUrl: string): Promise<void> {
  const store = setupStores.get(databaseUrl);
  if (store === undefined) return;
  setupStores.delete(databaseUrl);
  await (await store).close();
}

/**
 * Runs `work` on a store of the server's database. On PostgreSQL the store is opened for it and closed after, as the
 * command it stands for is a process that starts, writes and leaves: a store left open would count as a second
 * process, and the server would never be the only one on its schema (it keeps versions, tokens and models only
 * then), so the HTTP suite on PostgreSQL would never run against the server as most deployments run it.
 */
async function withSetupStore<T>(databaseUrl: string, work: (store: Store) => Promise<T>): Promise<T> {
  const open = () => import('../../src/store/open-store.js').then(({ openStore }) => openStore(databaseUrl));
  if (databaseUrl.startsWith('postgres')) {
    const store = await open();
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  }
  let store = setupStores.get(databaseUrl);
  if (store === undefined) setupStores.set(databaseUrl, (store = open()));
  return work(await store);
}
process.on('exit', () => {
  for (const child of running) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
});

export class TestServer {
  readonly dir: string;
  readonly databaseUrl: string;
  port: number;
  url: string;
  private child: ChildProcess | undefined;
  /** Set while an in-process server listens (see the top of this file). */
  private serving: InProcessServing | undefined;
  private inProcess = false;
  private stdoutText = '';
  private stderrText = '';
  private exitPromise: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined;

  constructor(dir: string, port: number, databaseUrl?: string) {
    this.dir = dir;
    this.port = port;
    this.databaseUrl = databaseUrl ?? `sqlite:${join(dir, 'content.db')}`;
    this.url = `http://127.0.0.1:${port}`;
  }

  get adminUrl(): string {
    return `${this.url}/graphql`;
  }

  deliveryUrl(org: string, workspace: string): string {
    return `${this.url}/public/${org}/${workspace}/graphql`;
  }

  get stdout(): string {
    return this.stdoutText;
  }

  get stderr(): string {
    return this.stderrText;
  }

  /** Everything the server printed so far, stdout then stderr. */
  logs(): string {
    return `${this.stdoutText}\n${this.stderrText}`;
  }

  /** The server's process id (for its memory), undefined before start. */
  get pid(): number | undefined {
    if (this.inProcess) throw new Error('an in-process server has no process of its own: start it with process: true');
    return this.child?.pid;
  }

  get exited(): boolean {
    if (this.inProcess) return this.serving === undefined;
    return this.child === undefined || this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Starts `serve` in this process on a port the OS picks (see the top of this file). */
  async startInProcess(options: StartOptions): Promise<void> {
    this.inProcess = true;
    const { port, serving } = await serveInProcess(this.databaseUrl, options, (text) => {
      this.stdoutText += text;
    });
    this.serving = serving;
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
  }

  async start(options: StartOptions): Promise<void> {
    const omit = new Set(options.omit ?? []);
    const args = [CLI, 'serve', '--port', String(this.port), '--host', '127.0.0.1'];
    if (!omit.has('--database')) args.push('--database', this.databaseUrl);
    if (!omit.has('--write-budget')) args.push('--write-budget', String(options.writeBudget ?? DEFAULT_TEST_BUDGET));
    if (!omit.has('--no-init')) args.push('--no-init');
    if (options.storage !== undefined) args.push('--storage', options.storage);
    if (options.maxUploadMb !== undefined) args.push('--max-upload-mb', String(options.maxUploadMb));
    args.push(...(options.extraArgs ?? []));
    const child = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        ...TEST_PROCESS_ENV,
        ...(options.uploadExpiryHours === undefined ? {} : { UPLOAD_EXPIRY_HOURS: String(options.uploadExpiryHours) }),
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    running.add(child);
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      this.stdoutText += chunk;
    });
    child.stderr?.on('data', (chunk: string) => {
      this.stderrText += chunk;
    });
    this.exitPromise = new Promise((resolveExit) => {
      child.on('exit', (code, signal) => {
        running.delete(child);
        resolveExit({ code, signal });
      });
    });

    const deadline = Date.now() + (options.readyTimeoutMs ?? 20_000);
    for (;;) {
      if (this.exited) {
        throw new Error(
          `server exited before it was ready (code ${child.exitCode})\nstdout:\n${this.stdoutText}\nstderr:\n${this.stderrText}`,
        );
      }
      try {
        const response = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(1000) });
        await response.arrayBuffer();
        if (response.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`server was not ready within the timeout\nstdout:\n${this.stdoutText}\nstderr:\n${this.stderrText}`);
      }
      await sleep(50);
    }
  }

  /** Sends `signal` (SIGTERM by default), then waits for the exit and returns it. Kills hard after `timeoutMs`. */
  async stop(
    signal: NodeJS.Signals = 'SIGTERM',
    timeoutMs = 10_000,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.inProcess) {
      if (signal !== 'SIGTERM' && signal !== 'SIGINT')
        throw new Error(`an in-process server takes no ${signal}: start it with process: true`);
      const serving = this.serving;
      this.serving = undefined;
      await serving?.close();
      return { code: serving ? 0 : null, signal: null };
    }
    const child = this.child;
    const exit = this.exitPromise;
    if (child === undefined || exit === undefined) return { code: null, signal: null };
    if (!this.exited) child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    try {
      return await exit;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends a signal (SIGKILL by default: a crash) without waiting for the exit; see `stop` to wait. */
  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    if (this.inProcess) throw new Error(`an in-process server takes no ${signal}: start it with process: true`);
    if (this.child !== undefined && !this.exited) this.child.kill(signal);
  }

  /** Stops the server and removes its temporary directory. */
  async dispose(): Promise<void> {
    await closeSetupStore(this.databaseUrl);
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
    // Only a schema the harness made for this directory: a URL passed in belongs to the test.
    if (schemaByDir.get(this.dir) === this.databaseUrl) await dropSchemaOf(this.databaseUrl);
  }

  /** What `content-service bootstrap --json` prints, made by its function in this process (see the top of this file). */
  async bootstrap(args: BootstrapArgs): Promise<BootstrapResult> {
    const [{ bootstrapWorkspace }, { parseEmail, parseRole, parseSlug }] = await Promise.all([
      import('../../src/cli/bootstrap.js'),
      import('../../src/cli/options.js'),
    ]);
    const org = parseSlug(args.org);
    return withSetupStore(this.databaseUrl, (store) =>
      bootstrapWorkspace(store, {
        org,
        workspace: parseSlug(args.workspace),
        email: parseEmail(args.email ?? `owner@${org}.example.com`),
        role: args.role === undefined ? null : parseRole(args.role),
      }),
    );
  }

  /** What `content-service token create --json` prints, made by its function in this process. */
  async createToken(args: CreateTokenArgs): Promise<CreateTokenResult> {
    const [{ createWorkspaceToken }, { parseEmail, parseRole }] = await Promise.all([
      import('../../src/cli/token.js'),
      import('../../src/cli/options.js'),
    ]);
    const created = await withSetupStore(this.databaseUrl, (store) =>
      createWorkspaceToken(store, {
        workspaceId: args.workspaceId,
        email: parseEmail(args.email),
        ...(args.role === undefined ? {} : { role: parseRole(args.role) }),
      }),
    );
    if (!created) throw new Error(`token create: no workspace with id "${args.workspaceId}"`);
    return created;
  }

  /** `content-service bootstrap --json` run as a process. */
  async bootstrapWithCli(args: BootstrapArgs): Promise<BootstrapResult> {
    return parseJsonLine<BootstrapResult>('bootstrap', await runCli(bootstrapArgs(args, this.databaseUrl)));
  }

  /** `content-service token create --json` run as a process. */
  async createTokenWithCli(args: CreateTokenArgs): Promise<CreateTokenResult> {
    return parseJsonLine<CreateTokenResult>('token create', await runCli(createTokenArgs(args, this.databaseUrl)));
  }
}

/**
 * With TEST_SERVER_DATABASE=postgres the whole HTTP suite runs on PostgreSQL (DATABASE_URL), each server in a
 * schema of its own that dispose() drops; otherwise on a SQLite file in the server's temporary directory.
 */
function suiteDatabaseUrl(dir: string): string | undefined {
  if (process.env.TEST_SERVER_DATABASE !== 'postgres') return undefined;
  if (!process.env.DATABASE_URL) throw new Error('TEST_SERVER_DATABASE=postgres needs DATABASE_URL');
  // Servers started on the same directory share its data, as they would share the SQLite file.
  let url = schemaByDir.get(dir);
  if (!url) {
    url = freshPostgresUrl(process.env.DATABASE_URL, 'http');
    schemaByDir.set(dir, url);
  }
  return url;
}

const schemaByDir = new Map<string, string>();

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  if (!needsProcess(options)) {
    const dir = mkdtempSync(join(tmpdir(), 'content-service-http-'));
    const server = new TestServer(dir, 0, options.databaseUrl ?? suiteDatabaseUrl(dir));
    try {
      await server.startInProcess(options);
      return server;
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      if (schemaByDir.get(dir) === server.databaseUrl) await dropSchemaOf(server.databaseUrl);
      throw error;
    }
  }
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'content-service-http-'));
  // A port can be taken between the probe and the listen; try a few.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const server = new TestServer(dir, await freePort(), options.databaseUrl ?? suiteDatabaseUrl(dir));
    try {
      await server.start(options);
      return server;
    } catch (error) {
      lastError = error;
      await server.stop().catch(() => undefined);
      if (!/EADDRINUSE/.test(String(error))) break;
    }
  }
  if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
  throw lastError;
}
