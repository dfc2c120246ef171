import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { LimiterFactory } from '../store/store.js';

export interface RedisLimiters {
  limiters: LimiterFactory;
  close(): Promise<void>;
}

/** The write budget (and the sign-in limits) counted in Redis, shared by every process that names the same Redis. */
export async function connectRedisLimiters(url: string): Promise<RedisLimiters> {
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new Error(`Redis at ${new URL(url).host}: ${(error as Error).message}`, { cause: error });
  }
  return {
    limiters: (points, duration, keyPrefix) =>
      new RateLimiterRedis({
        storeClient: client,
        keyPrefix: keyPrefix === undefined ? 'content-service:write-budget' : `content-service:${keyPrefix}`,
        points,
        duration,
      }),
    async close() {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
