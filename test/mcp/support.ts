// Connecting the SDK's own MCP client to Content Service: over stdio (the CLI's `mcp` command, a child process) or
// over Streamable HTTP (the server's POST /mcp), and reading tool results.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { CLI, REPO_ROOT, type TestServer } from '../support/server.js';

export type Mode = 'stdio' | 'http';

export interface Credentials {
  token: string;
  workspaceId: string;
}

export interface McpSession {
  client: Client;
  /** What the stdio process wrote on stderr (empty over HTTP). */
  stderr: () => string;
  /** The stdio process id (undefined over HTTP). */
  pid: number | undefined;
  close: () => Promise<void>;
}

export async function connect(mode: Mode, server: TestServer, credentials: Credentials): Promise<McpSession> {
  const client = new Client({ name: 'content-service-test', version: '1.0.0' });
  let stderr = '';
  if (mode === 'stdio') {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        CONTENT_SERVICE_URL: server.url,
        CONTENT_SERVICE_TOKEN: credentials.token,
        CONTENT_SERVICE_WORKSPACE_ID: credentials.workspaceId,
      },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await client.connect(transport);
    return { client, stderr: () => stderr, pid: transport.pid ?? undefined, close: () => client.close() };
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${credentials.token}`, 'x-workspace-id': credentials.workspaceId } },
  });
  await client.connect(transport);
  return { client, stderr: () => '', pid: undefined, close: () => client.close() };
}

export interface ToolResult {
  content: { type: string; text?: string }[];
  isError?: boolean;
}

export async function call(
  session: McpSession,
  name: string,
  args: Record<string, unknown> = {},
  onprogress?: (progress: Progress) => void,
): Promise<ToolResult> {
  return (await session.client.callTool(
    { name, arguments: args },
    undefined,
    onprogress ? { onprogress, resetTimeoutOnProgress: true } : {},
  )) as ToolResult;
}

function textOf(result: ToolResult): string {
  assert.equal(result.content.length, 1, `one content item: ${JSON.stringify(result)}`);
  assert.equal(result.content[0]!.type, 'text');
  return result.content[0]!.text!;
}

/** The JSON answer of a successful call. */
export async function ok(session: McpSession, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await call(session, name, args);
  assert.notEqual(result.isError, true, `${name} should succeed: ${JSON.stringify(result)}`);
  return JSON.parse(textOf(result));
}

/** The message of a refused call (isError). */
export async function refused(session: McpSession, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await call(session, name, args);
  assert.equal(result.isError, true, `${name} should be refused: ${JSON.stringify(result)}`);
  return textOf(result);
}
