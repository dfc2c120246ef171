// What a tool answers: JSON text for a result, and a refusal as an `isError` result carrying the service's message,
// so that the agent reads why and the server goes on serving.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ContentServiceError } from '../client/errors.js';

/** A refusal the tool itself makes (a bad or missing argument), before or instead of a call to the service. */
export class ArgumentError extends Error {}

export function answer(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

export function refusal(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * Runs a tool body. The service's refusals (and the tool's own) become `isError` results with their message; any
 * other failure is reported with its message as well, and logged, never thrown at the SDK.
 */
export async function run(body: () => Promise<CallToolResult>, log: (line: string) => void): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof ArgumentError) return refusal(error.message);
    if (error instanceof ContentServiceError) return refusal(error.message);
    log(`unexpected error in a tool: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return refusal('Unexpected error in the MCP server (logged); the call may be sent again');
  }
}
