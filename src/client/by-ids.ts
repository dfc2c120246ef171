// Reads by ids of any length: calls of at most the server's cap, and a call whose answer would be too large
// (PAYLOAD_TOO_LARGE: the records hold more data than one answer may carry) asked again in two halves.
import { ContentServiceError } from './errors.js';

export async function readByIds<T>(
  ids: readonly string[],
  maxPerCall: number,
  readCall: (chunk: readonly string[]) => Promise<T[]>,
): Promise<T[]> {
  const found: T[] = [];
  for (let start = 0; start < ids.length; start += maxPerCall) {
    found.push(...(await readHalving(ids.slice(start, start + maxPerCall), readCall)));
  }
  return found;
}

async function readHalving<T>(chunk: readonly string[], readCall: (chunk: readonly string[]) => Promise<T[]>): Promise<T[]> {
  try {
    return await readCall(chunk);
  } catch (error) {
    if (!(error instanceof ContentServiceError) || error.code !== 'PAYLOAD_TOO_LARGE' || chunk.length < 2) throw error;
    const half = Math.ceil(chunk.length / 2);
    return [...(await readHalving(chunk.slice(0, half), readCall)), ...(await readHalving(chunk.slice(half), readCall))];
  }
}
