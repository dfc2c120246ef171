// Helpers for the admin application's sessions: set a password with the CLI (password on stdin), sign in over
// HTTP, and reach into the database to age a session.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import pg from 'pg';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import { request, type Credentials, type GqlResponse } from './client.js';
import { CLI, REPO_ROOT, TEST_PROCESS_ENV, type CliResult, type TestServer } from './server.js';

/** Runs `node bin/content-service.js ...args` with `input` on its standard input. */
export function runCliWithInput(
  args: string[],
  input: string | undefined,
  options: { env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...TEST_PROCESS_ENV, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
  });
}

/** `content-service user set-password --email E --password-stdin` on the server's database; asserts exit 0. */
export async function setPassword(server: TestServer, email: string, password: string): Promise<void> {
  const result = await runCliWithInput(
    ['user', 'set-password', '--email', email, '--password-stdin', '--database', server.databaseUrl],
    `${password}\n`,
  );
  assert.equal(result.code, 0, `set-password exited ${result.code}\n${result.stdout}\n${result.stderr}`);
}

export function signInRaw(server: TestServer, body: unknown, headers: Record<string, string> = {}): Promise<GqlResponse> {
  return request(`${server.url}/admin/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export interface SignedIn {
  /** The value of the cs_session cookie. */
  sessionId: string;
  /** `cs_session=<id>`, for a Cookie header. */
  cookie: string;
  csrfToken: string;
  body: any;
  setCookie: string;
}

/** The cs_session value of a Set-Cookie header. */
export function sessionIdOf(setCookie: string | null): string | undefined {
  return setCookie ? /(?:^|,\s*)cs_session=([^;]*)/.exec(setCookie)?.[1] : undefined;
}

/** Signs in (asserting 200) and returns the cookie and CSRF token. */
export async function signIn(server: TestServer, email: string, password: string): Promise<SignedIn> {
  const response = await signInRaw(server, { email, password });
  assert.equal(response.status, 200, `sign-in of ${email}: ${response.status} ${response.text}`);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const sessionId = sessionIdOf(setCookie);
  assert.ok(sessionId, `a cs_session cookie: ${setCookie}`);
  return { sessionId, cookie: `cs_session=${sessionId}`, csrfToken: response.body.csrfToken, body: response.body, setCookie };
}

/** Credentials for POST /graphql as the signed-in user in a workspace. */
export function sessionCredentials(session: SignedIn, workspaceId: string, options: { csrf?: boolean } = {}): Credentials {
  return { cookie: session.cookie, workspaceId, ...(options.csrf === false ? {} : { csrfToken: session.csrfToken }) };
}

/** Runs one SQL statement on the server's database (SQLite file or PostgreSQL schema); `?` placeholders. */
export async function runSql(server: TestServer, sql: string, parameters: unknown[]): Promise<number> {
  return (await querySql(server, sql, parameters)).changes;
}

/** The rows one SELECT on the server's database answers; `?` placeholders. */
export async function selectRows(server: TestServer, sql: string, parameters: unknown[]): Promise<Record<string, unknown>[]> {
  return (await querySql(server, sql, parameters)).rows;
}

async function querySql(
  server: TestServer,
  sql: string,
  parameters: unknown[],
): Promise<{ changes: number; rows: Record<string, unknown>[] }> {
  const url = server.databaseUrl;
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length));
    try {
      db.pragma('busy_timeout = 5000');
      const statement = db.prepare(sql);
      if (statement.reader) return { changes: 0, rows: statement.all(...parameters) as Record<string, unknown>[] };
      return { changes: statement.run(...parameters).changes, rows: [] };
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: parsePostgresUrl(url).connectionString });
  await client.connect();
  try {
    let index = 0;
    const result = await client.query(
      sql.replace(/\?/g, () => `$${++index}`),
      parameters,
    );
    return { changes: result.rowCount ?? 0, rows: result.rows as Record<string, unknown>[] };
  } finally {
    await client.end();
  }
}
