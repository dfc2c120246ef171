// content-service mcp: the MCP server over stdio, as one process an agent host starts. stdout carries the
// protocol and nothing else; diagnostics go to stderr.
import type { Command } from 'commander';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '../mcp/server.js';
import {
  connectionOptions,
  parseNonNegativeNumber,
  resolveConnection,
  runCommand,
  type ConnectionOptions,
} from './client-options.js';

export function registerMcp(program: Command): void {
  connectionOptions(
    program
      .command('mcp')
      .description(
        'Serve the Model Context Protocol over stdio for an AI agent (tools for models and records, through the admin API)',
      )
      .option('--max-wait <seconds>', 'longest wait for the write budget in one tool call (default 600)', parseNonNegativeNumber),
  ).action(async (options: ConnectionOptions) => runCommand(() => runMcp(options)));
}

async function runMcp(options: ConnectionOptions): Promise<number> {
  const connection = resolveConnection(options);
  const log = (line: string) => process.stderr.write(`content-service mcp: ${line}\n`);
  const server = createMcpServer({
    connection: {
      ...connection,
      ...(options.maxWait !== undefined ? { maxRateLimitWaitMs: options.maxWait * 1000 } : {}),
    },
    log,
    transport: 'stdio',
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  log(`serving ${connection.baseUrl} (workspace ${connection.workspaceId}) over stdio`);
  await closed;
  await server.close();
  return 0;
}
