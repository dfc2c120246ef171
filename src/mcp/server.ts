// The MCP server of Content Service: tools an AI agent calls, each one or a few calls of the admin API made
// through the client toolkit (src/client), as the CLI makes them. It never reaches into the store: the token's
// role, the validation and the write budget are the admin API's, wherever this server runs.
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerModelTools } from './model-tools.js';
import { registerRecordTools } from './record-tools.js';
import { registerHistoryTools } from './history-tools.js';
import { registerPublishingTools } from './publishing-tools.js';
import { registerScheduleTools } from './schedule-tools.js';
import { registerMediaTools } from './media-tools.js';
import type { McpOptions } from './context.js';

export type { McpOptions } from './context.js';

export const MCP_SERVER_NAME = 'content-service';
const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** A new server with every tool; under HTTP one per request (stateless), under stdio one per process. */
export function createMcpServer(options: McpOptions): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version },
    {
      instructions:
        'Content Service: models (content types with typed fields) and their records in one workspace. Start with ' +
        'get_workspace_info (your role) and list_models (the fields). Record data keys are field keys. Writes are ' +
        'refused with a message naming the field; over the write budget a write waits and then goes through. Images ' +
        'and files: upload_media, then put the asset id in a media field.',
    },
  );
  registerModelTools(server, options);
  registerRecordTools(server, options);
  registerHistoryTools(server, options);
  registerPublishingTools(server, options);
  registerScheduleTools(server, options);
  registerMediaTools(server, options);
  return server;
}
