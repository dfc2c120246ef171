// What each tool call runs on: a client of the admin API for this one call (its waits for the write budget are
// reported to the agent as progress), and the model resolution every record tool shares.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { ContentClient, type ContentClientOptions } from '../client/client.js';
import { ContentServiceError } from '../client/errors.js';
import type { ModelDefinition } from '../client/types.js';
import { ArgumentError } from './results.js';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface McpOptions {
  /** How to reach the admin API: base URL, token, workspace id (and a `fetch`, for the server's own route). */
  connection: ContentClientOptions;
  /** Diagnostics (never stdout under stdio: that is the protocol's). */
  log?: (line: string) => void;
  /**
   * How the agent reaches this server: `stdio` (a process on the agent's own machine, `content-service mcp`) may
   * read local files (`upload_media` with `path`); anything else (default: `http`, the server's POST /mcp) may not.
   */
  transport?: 'stdio' | 'http';
}

/**
 * A client for one tool call: cancelled with the call, and telling the agent (a progress notification, when it
 * asked for progress) and the log about each wait for the write budget. The wait itself is the client's: a 429 is
 * sent again after Retry-After.
 */
export function clientFor(options: McpOptions, extra: ToolExtra): ContentClient {
  const progressToken = extra._meta?.progressToken;
  let waits = 0;
  return new ContentClient({
    ...options.connection,
    signal: options.connection.signal ? AbortSignal.any([options.connection.signal, extra.signal]) : extra.signal,
    onWait: (info) => {
      waits += 1;
      const message = `write budget used up (HTTP 429): waiting ${Math.ceil(info.waitMs / 1000)} s, then sending ${info.operation} again`;
      options.log?.(message);
      options.connection.onWait?.(info);
      if (progressToken === undefined) return;
      extra
        .sendNotification({ method: 'notifications/progress', params: { progressToken, progress: waits, message } })
        .catch(() => undefined);
    },
  });
}

/** The model named by `modelId` or `modelSlug` (exactly one of them). */
export async function resolveModel(
  client: ContentClient,
  args: { modelId?: string | undefined; modelSlug?: string | undefined },
): Promise<Pick<ModelDefinition, 'id' | 'slug'>> {
  if (args.modelId !== undefined && args.modelSlug !== undefined) {
    throw new ArgumentError('modelId: give modelId or modelSlug, not both');
  }
  if (args.modelId !== undefined) return { id: args.modelId, slug: args.modelId };
  if (args.modelSlug === undefined) throw new ArgumentError('modelSlug: required (or modelId): which model');
  return findModel(client, 'modelSlug', args.modelSlug);
}

/** The model with that slug or id, or a refusal naming the argument and the models there are. */
export async function findModel(client: ContentClient, argument: string, slugOrId: string): Promise<ModelDefinition> {
  try {
    return await client.findModel(slugOrId);
  } catch (error) {
    if (error instanceof ContentServiceError && error.code === 'NOT_FOUND') {
      throw new ArgumentError(error.message.replace(/^model:/, `${argument}:`));
    }
    throw error;
  }
}

/** The arguments given, without the optional ones left out (the SDK calls take absent options, not undefined). */
export function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
