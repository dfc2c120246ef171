import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { Workspace } from './server.js';

const DELIVERY_HEADERS = { 'content-type': 'application/json' };

export interface GqlResult<T> {
  data: T;
  /** Client-side time from sending the request to having parsed the answer, ms. */
  ms: number;
  /** The server's x-request-id, to find the request's log line. */
  requestId: string;
}

/**
 * A GraphQL client for the admin API (and the delivery route) over keep-alive HTTP/1.1 connections (undici): at most `connections`
 * requests in flight, one per connection, no pipelining.
 */
export class GqlClient {
  private readonly pool: Pool;
  private readonly headers: Record<string, string>;

  constructor(baseUrl: string, workspace: Workspace, connections = 1) {
    this.pool = new Pool(baseUrl, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
    this.headers = {
      'content-type': 'application/json',
      authorization: `Bearer ${workspace.token}`,
      'x-workspace-id': workspace.workspaceId,
    };
  }

  /** Sends a ready JSON body ({query, variables}); throws on an HTTP error or a GraphQL `errors` entry. */
  send<T>(body: string): Promise<GqlResult<T>> {
    return this.post<T>('/graphql', this.headers, body);
  }

  /** Sends a ready JSON body to a delivery route (`/public/{org}/{workspace}/graphql`): no token, no workspace header. */
  sendDelivery<T>(path: string, body: string): Promise<GqlResult<T>> {
    return this.post<T>(path, DELIVERY_HEADERS, body);
  }

  private async post<T>(path: string, headers: Record<string, string>, body: string): Promise<GqlResult<T>> {
    const started = performance.now();
    const response = await this.pool.request({ path, method: 'POST', headers, body });
    const text = await response.body.text();
    const ms = performance.now() - started;
    const requestId = String(response.headers['x-request-id'] ?? '');
    let parsed: { data?: T; errors?: { message: string }[] };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw new Error(`HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
    }
    if (response.statusCode !== 200 || parsed.errors?.length) {
      throw new Error(
        `HTTP ${response.statusCode}: ${parsed.errors?.map((error) => error.message).join('; ') ?? text.slice(0, 300)}`,
      );
    }
    return { data: parsed.data as T, ms, requestId };
  }

  request<T>(query: string, variables?: Record<string, unknown>): Promise<GqlResult<T>> {
    return this.send<T>(JSON.stringify({ query, variables }));
  }

  private closing: Promise<void> | null = null;

  close(): Promise<void> {
    this.closing ??= this.pool.close();
    return this.closing;
  }
}
