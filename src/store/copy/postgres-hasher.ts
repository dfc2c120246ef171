// The target's records hashed by PostgreSQL itself, chunk by chunk (checksum.ts): nothing is read back into the copy.
import { NULL_TEXT, type ChunkDigest } from './checksum.js';
import type { ChunkHasher } from './side.js';
import { closeClients, connectClients } from './postgres-clients.js';

/** The line checksum.ts hashes for a record, made by PostgreSQL. */
const RECORD_LINE = `id || E'\\t' || data::text || E'\\t' || coalesce(created_at::text, '${NULL_TEXT}') || E'\\t' ||
  coalesce(updated_at::text, '${NULL_TEXT}') || E'\\n'`;

/** Chunks of the records hashed by PostgreSQL (checksum.ts), on `connections` connections of their own, in turn. */
export async function openChunkHasher(connectionString: string, connections: number): Promise<ChunkHasher> {
  const clients = await connectClients(connectionString, connections, ["SET work_mem = '64MB'"]);
  // Each client runs its queries one after another (pg queues them): a chunk goes to the one with the fewest waiting.
  const waiting = clients.map(() => 0);
  return {
    async chunk(lower, upper) {
      const conditions: string[] = [];
      const values: string[] = [];
      if (lower !== null) conditions.push(`id > $${values.push(lower)}`);
      if (upper !== null) conditions.push(`id <= $${values.push(upper)}`);
      const index = waiting.indexOf(Math.min(...waiting));
      waiting[index]!++;
      try {
        const { rows } = await clients[index]!.query<ChunkDigest>(
          `SELECT model_id AS "modelId", count(*)::integer AS records,
                  encode(sha256(convert_to(string_agg(${RECORD_LINE}, '' ORDER BY id), 'UTF8')), 'hex') AS digest
           FROM records ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''} GROUP BY model_id`,
          values,
        );
        return rows;
      } finally {
        waiting[index]!--;
      }
    },
    close: () => closeClients(clients),
  };
}
