import { InvalidArgumentError, type Command } from 'commander';
import { ScheduleRunner } from '../services/schedule-runner.js';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { MAX_WINDOW_SECONDS, memoryLimiters, WriteBudget } from '../budget/write-budget.js';
import { buildApp } from '../server/app.js';
import { defaultMediaConfig, type MediaConfig } from '../server/media-setup.js';
import { DEFAULTS, type ServerConfig } from '../server/config.js';
import { openStore, redactUrl } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { DEFAULT_RETRY_DELAYS_SECONDS, parseRetryDelays } from '../webhooks/retry.js';
import { SendThread } from '../webhooks/send-thread.js';
import { DeliveryWorker } from '../webhooks/worker.js';
import { DELETED_HISTORY_DAYS } from '../domain/revisions.js';
import { startedByNpm, watchParent } from './parent-watch.js';
import { bootstrapWorkspace, type BootstrapResult } from './bootstrap.js';
import { databaseUrl, envInt, envParsed, envPasswordHashCost, parsePort, parsePositiveInt, parseSeconds } from './options.js';

interface ServeOptions {
  port?: number;
  host?: string;
  database?: string;
  writeBudget?: number;
  deliveryMaxAge?: number;
  historyKeep?: number;
  writeBudgetWindow?: number;
  redis?: string;
  init: boolean;
  webhookAllowPrivate?: boolean;
  storage?: string;
  maxUploadMb?: number;
  transformConcurrency?: number;
  publicUrl?: string;
}

function resolveMediaConfig(options: ServeOptions, databaseUrl: string): MediaConfig {
  const defaults = defaultMediaConfig(databaseUrl);
  return {
    storageUrl: options.storage ?? (process.env.STORAGE_URL || defaults.storageUrl),
    maxUploadMb: options.maxUploadMb ?? envInt('MAX_UPLOAD_MB') ?? defaults.maxUploadMb,
    transformConcurrency: options.transformConcurrency ?? envInt('TRANSFORM_CONCURRENCY') ?? defaults.transformConcurrency,
    transformQueue: envParsed('TRANSFORM_QUEUE', parseNonNegativeInt) ?? defaults.transformQueue,
    publicUrl: options.publicUrl ?? envParsed('PUBLIC_URL', parsePublicUrl) ?? null,
    uploadExpiryHours: envParsed('UPLOAD_EXPIRY_HOURS', parsePositiveHours) ?? defaults.uploadExpiryHours,
  };
}

function parsePositiveHours(value: string): number {
  const hours = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(hours > 0)) {
    throw new InvalidArgumentError('must be a positive number of hours');
  }
  return hours;
}

function parsePublicUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('must be an absolute http(s) URL such as https://cms.example.com');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('must be an http(s) URL');
  return url.origin + url.pathname.replace(/\/+$/, '');
}

function resolveConfig(options: ServeOptions): ServerConfig {
  const origins = process.env.CORS_ORIGINS;
  return {
    port: options.port ?? (process.env.PORT ? parsePort(process.env.PORT) : DEFAULTS.port),
    host: options.host ?? process.env.HOST ?? DEFAULTS.host,
    databaseUrl: databaseUrl(options.database),
    writeBudget: options.writeBudget ?? envInt('WRITE_BUDGET_PER_MINUTE') ?? DEFAULTS.writeBudget,
    writeBudgetWindowSeconds:
      options.writeBudgetWindow ??
      envParsed('WRITE_BUDGET_WINDOW_SECONDS', parseWindowSeconds) ??
      DEFAULTS.writeBudgetWindowSeconds,
    bodyLimitBytes: envInt('BODY_LIMIT_BYTES') ?? DEFAULTS.bodyLimitBytes,
    corsOrigins: !origins || origins === '*' ? '*' : origins.split(',').map((origin) => origin.trim()),
    logLevel: process.env.LOG_LEVEL ?? DEFAULTS.logLevel,
    introspection: envSwitch('INTROSPECTION', 'on', 'off') ?? DEFAULTS.introspection,
    maxFieldBytes: envInt('MAX_FIELD_BYTES') ?? DEFAULTS.maxFieldBytes,
    maxRecordBytes: envInt('MAX_RECORD_BYTES') ?? DEFAULTS.maxRecordBytes,
    maxResponseBytes: envInt('MAX_RESPONSE_BYTES') ?? DEFAULTS.maxResponseBytes,
    publicBodyLimitBytes: envInt('PUBLIC_BODY_LIMIT_BYTES') ?? DEFAULTS.publicBodyLimitBytes,
    deliveryMaxAge: options.deliveryMaxAge ?? envParsed('DELIVERY_MAX_AGE', parseSeconds) ?? DEFAULTS.deliveryMaxAge,
    historyKeep: options.historyKeep ?? envParsed('HISTORY_KEEP', parseNonNegativeInt) ?? DEFAULTS.historyKeep,
    soleServer: envSwitch('SOLE_SERVER', 'true', 'false') ?? true,
    requestTimeoutMs: envInt('REQUEST_TIMEOUT_MS') ?? DEFAULTS.requestTimeoutMs,
    headersTimeoutMs: envInt('HEADERS_TIMEOUT_MS') ?? DEFAULTS.headersTimeoutMs,
    keepAliveTimeoutMs: envInt('KEEP_ALIVE_TIMEOUT_MS') ?? DEFAULTS.keepAliveTimeoutMs,
    maxConnections: envInt('MAX_CONNECTIONS') ?? DEFAULTS.maxConnections,
    signIn: {
      attemptsPerMinutePerAddress:
        envInt('SIGN_IN_ATTEMPTS_PER_MINUTE_PER_ADDRESS') ?? DEFAULTS.signIn.attemptsPerMinutePerAddress,
      attemptsPerMinutePerEmail: envInt('SIGN_IN_ATTEMPTS_PER_MINUTE_PER_EMAIL') ?? DEFAULTS.signIn.attemptsPerMinutePerEmail,
      passwordHashConcurrency: envInt('PASSWORD_HASH_CONCURRENCY') ?? DEFAULTS.signIn.passwordHashConcurrency,
      passwordHashQueue: envParsed('PASSWORD_HASH_QUEUE', parseNonNegativeInt) ?? DEFAULTS.signIn.passwordHashQueue,
      passwordHashCost: envPasswordHashCost(),
    },
    webhooks: {
      allowPrivate: options.webhookAllowPrivate === true || envSwitch('WEBHOOK_ALLOW_PRIVATE', 'true', 'false') === true,
      timeoutMs: envInt('WEBHOOK_TIMEOUT_MS') ?? DEFAULTS.webhookTimeoutMs,
      retryDelaysSeconds: envRetryDelays() ?? DEFAULT_RETRY_DELAYS_SECONDS,
      maxInFlightPerWebhook: envInt('WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK') ?? DEFAULTS.webhookMaxInFlightPerWebhook,
    },
    media: resolveMediaConfig(options, databaseUrl(options.database)),
  };
}

/** A switch in the environment, `yes` or `no` (undefined when unset or empty). */
function envSwitch(name: string, yes: string, no: string): boolean | undefined {
  return envParsed(name, (value) => {
    if (value === yes) return true;
    if (value === no) return false;
    throw new InvalidArgumentError(`must be "${yes}" or "${no}"`);
  });
}

function envRetryDelays(): number[] | undefined {
  const value = process.env.WEBHOOK_RETRY_DELAYS;
  if (value === undefined || value === '') return undefined;
  try {
    return parseRetryDelays(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function parseWindowSeconds(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > MAX_WINDOW_SECONDS) {
    throw new InvalidArgumentError(`must be a whole number of seconds from 1 to ${MAX_WINDOW_SECONDS}`);
  }
  return number;
}

/** Deleted records' histories go DELETED_HISTORY_DAYS after their deletion: looked for at start, then hourly. */
function forgetDeletedHistories(store: Store, logger: pino.Logger): NodeJS.Timeout {
  const forget = () =>
    store.history
      .forgetDeleted(Date.now() - DELETED_HISTORY_DAYS * 86_400_000)
      .catch((error: unknown) => logger.warn({ error: String(error) }, "could not forget deleted records' histories"));
  void forget();
  const timer = setInterval(() => void forget(), 3_600_000);
  timer.unref();
  return timer;
}

function parseNonNegativeInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new InvalidArgumentError('must be a whole number, 0 or more');
  return number;
}

/** Listens, or says which address is taken and how to pick another (instead of `listen EADDRINUSE`). */
async function listenOrExplain(app: FastifyInstance, port: number, host: string): Promise<void> {
  try {
    await app.listen({ port, host });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new Error(
        `Port ${port} on ${host} is already in use (is another content-service running?). ` +
          `Pick another port with --port N or PORT=N (0 picks a free one).`,
        { cause: error },
      );
    }
    if (code === 'EACCES') {
      throw new Error(`Not allowed to listen on port ${port} on ${host}: pick a port above 1023 with --port N or PORT=N.`, {
        cause: error,
      });
    }
    if (code === 'EADDRNOTAVAIL') {
      throw new Error(`Cannot listen on ${host}: this machine has no such address. Pick another with --host or HOST.`, {
        cause: error,
      });
    }
    throw error;
  }
}

/** On a database without any organisation, creates the first workspace so the service is usable at once. */
async function initialiseIfEmpty(store: Store): Promise<BootstrapResult | null> {
  if (await store.tenancy.hasAnyOrganisation()) return null;
  return bootstrapWorkspace(store, { org: 'default', workspace: 'main', email: 'owner@example.com', role: 'owner' });
}

function printFirstTokenOfFailedStart(first: BootstrapResult): void {
  process.stdout.write(
    [
      `First start: created organisation "${first.org}", workspace "${first.workspace}" and user owner@example.com (owner), but the server could not start (see the error below).`,
      `  Workspace id: ${first.workspaceId}`,
      `  API token:    ${first.token}`,
      `  The token is shown only this once: keep it.`,
      ``,
    ].join('\n'),
  );
}

/** How many workspaces' delivery URLs `serve` prints. */
const WORKSPACE_URLS_PRINTED = 5;

function printWelcome(
  baseUrl: string,
  first: BootstrapResult | null,
  workspaces: readonly { org: string; workspace: string }[],
  config: ServerConfig,
): void {
  const lines = [
    ``,
    `Content Service is running.`,
    `  Admin API (GraphQL, GraphiQL in a browser): ${baseUrl}/graphql`,
    `  Admin application (sign in in a browser):   ${baseUrl}/admin`,
  ];
  if (config.webhooks.allowPrivate) {
    lines.push(`  Webhooks may go to loopback and private addresses (--webhook-allow-private): for development only.`);
  }
  if (first) {
    lines.push(
      `  Delivery API (public models, no token):     ${baseUrl}/public/${first.org}/${first.workspace}/graphql`,
      ``,
      `First start: created organisation "${first.org}", workspace "${first.workspace}" and user owner@example.com (owner).`,
      `  Workspace id: ${first.workspaceId}`,
      `  API token:    ${first.token}`,
      `  The token is shown only this once. Make more with: npx content-service token create --workspace-id ${first.workspaceId} --email you@example.com`,
      `  To sign in to ${baseUrl}/admin, give owner@example.com a password:`,
      `    read -rs PASSWORD && printf '%s' "$PASSWORD" | npx content-service user set-password --email owner@example.com --password-stdin`,
      ``,
      `Check the connection:`,
      `  curl -s ${baseUrl}/graphql -H 'content-type: application/json' \\`,
      `    -H 'authorization: Bearer ${first.token}' -H 'x-workspace-id: ${first.workspaceId}' \\`,
      `    -d '{"query":"{ model { list { id slug name } } }"}'`,
    );
  } else if (workspaces.length === 0) {
    lines.push(`  Delivery API (public models, no token):     ${baseUrl}/public/{org}/{workspace}/graphql`);
  } else {
    // Further URLs line up under the first, as the other lines' values do.
    const label = '  Delivery API (public models, no token):     ';
    const shown = workspaces.slice(0, WORKSPACE_URLS_PRINTED);
    shown.forEach(({ org, workspace }, index) =>
      lines.push(`${index === 0 ? label : ' '.repeat(label.length)}${baseUrl}/public/${org}/${workspace}/graphql`),
    );
    if (workspaces.length > shown.length) lines.push(`${' '.repeat(label.length)}(and more: /public/{org}/{workspace}/graphql)`);
  }
  lines.push(``, `Stop with Ctrl+C.`, ``);
  process.stdout.write(lines.join('\n') + '\n');
}

/** The options of the media library: storage, the upload limit, transforms, the public URL. */
function withMediaOptions(command: Command): Command {
  return command
    .option(
      '--storage <url>',
      'where uploaded assets are kept: file:<dir> or s3://bucket/prefix?endpoint=…&region=…&forcePathStyle=true ' +
        "(env STORAGE_URL, default file:<the SQLite file's folder>/assets)",
    )
    .option('--max-upload-mb <n>', 'the largest upload in megabytes (env MAX_UPLOAD_MB, default 50)', parsePositiveInt)
    .option(
      '--transform-concurrency <n>',
      'image transforms rendered at once (env TRANSFORM_CONCURRENCY, default the number of cores)',
      parsePositiveInt,
    )
    .option('--public-url <url>', "the service's public URL, that assets' URLs start with (env PUBLIC_URL)", parsePublicUrl);
}

export function registerServe(program: Command): void {
  const serve = program.command('serve');
  withMediaOptions(serve);
  serve
    .description(
      'Run the HTTP server: admin GraphQL API at /graphql, delivery API at /public/{org}/{workspace}/graphql, ' +
        'GET /healthz. Migrates the database first. On a database without any organisation it creates ' +
        'organisation "default", workspace "main" and a first API token and prints them (unless --no-init).',
    )
    .option('--port <port>', `port to listen on (env PORT, default ${DEFAULTS.port}; 0 picks a free one)`, parsePort)
    .option('--host <host>', `address to listen on (env HOST, default ${DEFAULTS.host})`)
    .option('--database <url>', 'sqlite:<path> or postgres://… (env DATABASE_URL, default sqlite:./data/content.db)')
    .option(
      '--write-budget <n>',
      `record writes per minute per workspace from API tokens (env WRITE_BUDGET_PER_MINUTE, default ${DEFAULTS.writeBudget})`,
      parsePositiveInt,
    )
    .option(
      '--delivery-max-age <seconds>',
      'seconds a CDN may serve a delivery answer without asking again, and serve it stale while it asks ' +
        `(s-maxage, stale-while-revalidate; env DELIVERY_MAX_AGE, default ${DEFAULTS.deliveryMaxAge}: ask every time)`,
      parseSeconds,
    )
    .option(
      '--history-keep <n>',
      `revisions kept per record; 0 keeps none (env HISTORY_KEEP, default ${DEFAULTS.historyKeep})`,
      parseNonNegativeInt,
    )
    .option(
      '--write-budget-window <seconds>',
      `the window the write budget is counted over, 1 to ${MAX_WINDOW_SECONDS} seconds: --write-budget writes per window ` +
        `(env WRITE_BUDGET_WINDOW_SECONDS, default ${DEFAULTS.writeBudgetWindowSeconds})`,
      parseWindowSeconds,
    )
    .option('--redis <url>', 'Redis for the shared write budget (env REDIS_URL)')
    .option('--no-init', 'do not create a first workspace on an empty database')
    .option(
      '--webhook-allow-private',
      'let webhooks go to loopback and private addresses, for development and tests (env WEBHOOK_ALLOW_PRIVATE=true)',
    )
    .action(async (options: ServeOptions) => {
      const config = resolveConfig(options);
      const logger = pino({ level: config.logLevel, base: { service: 'content-service' } });
      const store = await openStore(config.databaseUrl, {
        keepVersions: config.soleServer,
        historyKeep: config.historyKeep,
        onSoleChange: (sole) =>
          logger.info(
            { soleServer: sole },
            sole
              ? 'the only process on this database: revalidations use the content versions kept in memory'
              : 'another process uses this database: revalidations read the content version from it',
          ),
      });
      const redisUrl = options.redis ?? process.env.REDIS_URL;
      const redis = redisUrl ? await (await import('../budget/redis-limiters.js')).connectRedisLimiters(redisUrl) : null;
      const limiters = redis?.limiters ?? store.sharedLimiters ?? memoryLimiters;
      const budget = new WriteBudget(config.writeBudget, limiters, config.writeBudgetWindowSeconds);
      const app = await buildApp({
        store,
        config,
        logger,
        budget,
        signIn: { ...config.signIn, limiters },
        webhookAllowPrivate: config.webhooks.allowPrivate,
        media: config.media,
      });
      const first = options.init ? await initialiseIfEmpty(store) : null;
      try {
        await listenOrExplain(app, config.port, config.host);
      } catch (error) {
        // The first workspace exists now: its token is shown even so, or it would never be.
        if (first) printFirstTokenOfFailedStart(first);
        throw error;
      }
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : config.port;
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      logger.info({ port, database: redactUrl(config.databaseUrl) }, 'listening');
      if (config.webhooks.allowPrivate)
        logger.warn('webhooks may go to loopback and private addresses (--webhook-allow-private)');
      const workspaces = first ? [] : await store.tenancy.listWorkspaceSlugs(WORKSPACE_URLS_PRINTED + 1);
      printWelcome(`http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`, first, workspaces, config);
      const sender = new SendThread();
      const webhooks = new DeliveryWorker({
        store: store.webhooks,
        send: sender.send,
        logger,
        allowPrivate: config.webhooks.allowPrivate,
        timeoutMs: config.webhooks.timeoutMs,
        retryDelaysSeconds: config.webhooks.retryDelaysSeconds,
        maxInFlightPerWebhook: config.webhooks.maxInFlightPerWebhook,
      });
      await webhooks.start();
      const forgetting = forgetDeletedHistories(store, logger);
      const schedules = new ScheduleRunner(store.schedules, logger);
      schedules.start();

      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'shutting down: draining in-flight requests');
        await app.close();
        clearInterval(forgetting);
        await schedules.stop();
        await webhooks.stop();
        await sender.close();
        await redis?.close();
        await store.close();
        process.exit(0);
      };
      process.on('SIGTERM', () => void stop('SIGTERM'));
      process.on('SIGINT', () => void stop('SIGINT'));
      // Under npm, the shell it started this process from may die of the signal meant for this process.
      if (startedByNpm()) watchParent(() => void stop('parent exited'));
    });
}
