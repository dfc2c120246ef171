// Shared by the client commands (import, export, models): connection options and progress output.
import { InvalidArgumentError, type Command } from 'commander';
import cliProgress from 'cli-progress';
import { ContentClient } from '../client/client.js';
import type { LoadProgress } from '../client/load-types.js';
import type { WaitInfo } from '../client/types.js';

export interface ConnectionOptions {
  url?: string;
  token?: string;
  workspaceId?: string;
  maxWait?: number;
}

/** Adds --url, --token, --workspace-id (env CONTENT_SERVICE_URL, CONTENT_SERVICE_TOKEN, CONTENT_SERVICE_WORKSPACE_ID). */
export function connectionOptions(command: Command): Command {
  return command
    .option('--url <url>', `base URL of the service (env CONTENT_SERVICE_URL, default ${DEFAULT_SERVICE_URL})`)
    .option('--token <token>', 'API token (env CONTENT_SERVICE_TOKEN)')
    .option('--workspace-id <id>', 'workspace id (env CONTENT_SERVICE_WORKSPACE_ID)');
}

/** Where `content-service serve` listens when started without options. */
export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:4000';

/** A command-line mistake: exit code 2. */
export class UsageError extends Error {}

export function resolveConnection(options: ConnectionOptions): { baseUrl: string; token: string; workspaceId: string } {
  const baseUrl = options.url ?? (process.env.CONTENT_SERVICE_URL || DEFAULT_SERVICE_URL);
  const token = options.token ?? process.env.CONTENT_SERVICE_TOKEN;
  const workspaceId = options.workspaceId ?? process.env.CONTENT_SERVICE_WORKSPACE_ID;
  const missing = [
    !token && '--token (or CONTENT_SERVICE_TOKEN)',
    !workspaceId && '--workspace-id (or CONTENT_SERVICE_WORKSPACE_ID)',
  ].filter(Boolean);
  if (missing.length > 0) throw new UsageError(`Missing ${missing.join(', ')}`);
  try {
    new URL(baseUrl);
  } catch {
    throw new UsageError(`--url: not a URL: "${baseUrl}"`);
  }
  return { baseUrl: baseUrl, token: token!, workspaceId: workspaceId! };
}

export function makeClient(
  options: ConnectionOptions,
  extra: { signal?: AbortSignal; onWait?: (info: WaitInfo) => void } = {},
): ContentClient {
  return new ContentClient({
    ...resolveConnection(options),
    ...(options.maxWait !== undefined ? { maxRateLimitWaitMs: options.maxWait * 1000 } : {}),
    ...extra,
  });
}

export function parseNonNegativeNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) throw new InvalidArgumentError('must be a number of seconds, 0 or more');
  return number;
}

/** Runs a command body: usage errors exit 2, other failures exit 1, both with one line on stderr. */
/** Why reading or writing a file failed, in words; `missing`: what ENOENT means there. */
export function fileProblem(error: unknown, missing = 'no such file or directory'): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return missing;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return error instanceof Error ? error.message : String(error);
}

export async function runCommand(body: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await body();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`Error: ${message}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  }
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** The progress bar of the commands on a terminal, in `format` (cli-progress's placeholders). */
export function progressBar(stream: NodeJS.WriteStream, format: string): cliProgress.SingleBar {
  return new cliProgress.SingleBar(
    { stream, format, barsize: 24, hideCursor: true, clearOnComplete: false, fps: 5, etaBuffer: 50 },
    cliProgress.Presets.shades_classic,
  );
}

/**
 * Progress on stderr: a bar on a terminal (rows, rows/s, ETA, budget waits), plain lines every few seconds
 * otherwise (and a line for every budget wait).
 */
export class ProgressReporter {
  private readonly started = Date.now();
  private state: LoadProgress = {
    phase: 'reading',
    existing: 0,
    read: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    deleted: 0,
    failed: 0,
  };
  private waitUntil = 0;
  private waits = 0;
  private waitedMs = 0;
  private readonly bar: cliProgress.SingleBar | undefined;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      label: string;
      /** Where the fraction done comes from: bytes of the input, or records of an export. */
      position: () => { done: number; total: number | undefined };
      quiet?: boolean;
      intervalMs?: number;
      stream?: NodeJS.WriteStream;
      /** The count shown as "rows" (default: rows read). */
      rows?: (state: LoadProgress) => number;
      /**
       * Rows taken from the input so far, when `position` measures the input (bytes) and `rows` counts rows done:
       * the fraction done is then `rows` of the rows the whole input is estimated to hold.
       */
      inputRows?: (state: LoadProgress) => number;
    },
  ) {
    const stream = options.stream ?? process.stderr;
    if (options.quiet) return;
    if (stream.isTTY) {
      this.bar = progressBar(
        stream,
        `${options.label} [{bar}] {percentage}% | {rows} rows | {rate} rows/s | ETA {etaText} | {status}`,
      );
      this.bar.start(1000, 0, this.payload());
      this.timer = setInterval(() => this.redraw(), 250);
    } else {
      this.timer = setInterval(() => this.line(), options.intervalMs ?? 5000);
    }
    this.timer.unref();
  }

  private rows(): number {
    return this.options.rows ? this.options.rows(this.state) : this.state.read;
  }

  private rate(): number {
    const seconds = (Date.now() - this.started) / 1000;
    return seconds > 0 ? this.rows() / seconds : 0;
  }

  /** Done, from 0 to 1; undefined when the total is not known. */
  private doneFraction(): number | undefined {
    const { done, total } = this.options.position();
    if (!total) return undefined;
    const positionFraction = Math.min(1, done / total);
    if (!this.options.inputRows) return positionFraction;
    const taken = this.options.inputRows(this.state);
    if (taken <= 0 || positionFraction <= 0) return 0;
    return Math.min(1, this.rows() / (taken / positionFraction));
  }

  /** From the average speed since the start, waits for the write budget included, so that a budgeted run's ETA holds. */
  private eta(): string {
    const fraction = this.doneFraction();
    if (fraction === undefined || fraction <= 0) return '?';
    const elapsed = Date.now() - this.started;
    return formatDuration((elapsed / fraction) * (1 - fraction));
  }

  private status(): string {
    const s = this.state;
    const wait = this.waitUntil - Date.now();
    if (wait > 0) return `waiting ${Math.ceil(wait / 1000)}s for the write budget (HTTP 429)`;
    if (s.phase === 'reading') return `reading existing records: ${s.existing}`;
    const parts = [`created ${s.created}`];
    if (s.updated || s.unchanged) parts.push(`updated ${s.updated}`, `unchanged ${s.unchanged}`);
    if (s.deleted) parts.push(`deleted ${s.deleted}`);
    parts.push(`failed ${s.failed}`);
    return parts.join(', ');
  }

  private payload() {
    return { rows: this.rows(), rate: Math.round(this.rate()), etaText: this.eta(), status: this.status() };
  }

  private fraction(): number {
    return Math.round((this.doneFraction() ?? 0) * 1000);
  }

  private redraw(): void {
    this.bar?.update(this.fraction(), this.payload());
  }

  private line(): void {
    const fraction = this.doneFraction();
    const percent = fraction === undefined ? '' : ` (${Math.floor(fraction * 100)}%)`;
    (this.options.stream ?? process.stderr).write(
      `${this.options.label}: ${this.rows()} rows${percent}, ${Math.round(this.rate())} rows/s, ETA ${this.eta()}; ${this.status()}\n`,
    );
  }

  update(state: LoadProgress): void {
    this.state = state;
  }

  wait(info: WaitInfo): void {
    this.waits += 1;
    this.waitedMs += info.waitMs;
    this.waitUntil = info.until;
    if (this.options.quiet) return;
    if (this.bar) this.redraw();
    else {
      (this.options.stream ?? process.stderr).write(
        `${this.options.label}: write budget used up (HTTP 429); waiting ${Math.ceil(info.waitMs / 1000)}s (Retry-After ${info.retryAfterSeconds}s), then sending the same request again\n`,
      );
    }
  }

  get waitSummary(): { waits: number; waitedMs: number } {
    return { waits: this.waits, waitedMs: this.waitedMs };
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.bar) {
      this.bar.update(this.fraction(), this.payload());
      this.bar.stop();
    } else if (!this.options.quiet) {
      this.line();
    }
  }
}
