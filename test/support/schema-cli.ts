// What the `content-service schema` test files share: one real server for the file, a new workspace per call, the
// CLI run against a workspace, and schema files written to a temporary folder.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { bootstrapAdmin, type Admin } from './client.js';
import { runCli, startServer, type CliResult, type TestServer } from './server.js';

export interface SchemaCli {
  /** The file's server (started in `before`). */
  server(): TestServer;
  /** A path in the temporary folder. */
  path(name: string): string;
  /** A new workspace, `<name><n>/main`, with its owner. */
  workspace(): Promise<Admin>;
  /** `content-service schema …args` against `admin`'s workspace. */
  schema(admin: Admin, ...args: string[]): Promise<CliResult>;
  /** Writes `content` (JSON unless a string) to a new file; its path. */
  file(content: unknown): string;
  /** `schema pull` of `admin`'s workspace, which must succeed; its output. */
  pull(admin: Admin): Promise<string>;
}

/** Registers the file's `before`/`after` hooks; `name` names the organisations and the temporary folder. */
export function schemaCli(name: string): SchemaCli {
  let server: TestServer | undefined;
  let dir: string | undefined;
  let workspaces = 0;
  let files = 0;

  before(async () => {
    server = await startServer();
    dir = mkdtempSync(join(tmpdir(), `content-service-${name}-`));
  });
  after(async () => {
    await server?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const started = (): TestServer => {
    assert.ok(server, 'the server starts in before()');
    return server;
  };
  const path = (file: string): string => join(dir!, file);
  const schema = (admin: Admin, ...args: string[]): Promise<CliResult> =>
    runCli(['schema', ...args], {
      env: {
        CONTENT_SERVICE_URL: started().url,
        CONTENT_SERVICE_TOKEN: admin.token,
        CONTENT_SERVICE_WORKSPACE_ID: admin.workspaceId,
      },
    });
  return {
    server: started,
    path,
    schema,
    workspace() {
      workspaces += 1;
      const org = `${name}${workspaces}`;
      return bootstrapAdmin(started(), { org, workspace: 'main', email: `owner@${org}.test` });
    },
    file(content) {
      files += 1;
      const file = path(`schema-${files}.json`);
      writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
      return file;
    },
    async pull(admin) {
      const result = await schema(admin, 'pull');
      assert.equal(result.code, 0, result.stderr);
      return result.stdout;
    },
  };
}
