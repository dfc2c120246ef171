import { randomFillSync } from 'node:crypto';

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const POOL_SIZE = 8 * 1024;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;
let lastMs = -1;
let sequence = 0;

function randomBytes8(): number {
  if (poolOffset + 8 > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const offset = poolOffset;
  poolOffset += 8;
  return offset;
}

/**
 * A time-ordered id (UUIDv7): 48 bits of Unix milliseconds, then a 12-bit sequence that counts up within
 * one millisecond (so ids made by one process sort in creation order), then 62 random bits.
 * Random bytes are drawn from a pool: one system call per thousand ids, not one per id.
 */
export function newId(): string {
  let ms = Date.now();
  if (ms > lastMs) {
    lastMs = ms;
    sequence = pool[randomBytes8()]! & 0x3ff;
  } else {
    sequence++;
    if (sequence > 0xfff) {
      lastMs++;
      sequence = 0;
    }
    ms = lastMs;
  }
  const at = randomBytes8();
  const high = Math.floor(ms / 0x10000);
  const low = ms & 0xffff;
  return (
    HEX[(high >>> 24) & 0xff]! +
    HEX[(high >>> 16) & 0xff]! +
    HEX[(high >>> 8) & 0xff]! +
    HEX[high & 0xff]! +
    '-' +
    HEX[low >>> 8]! +
    HEX[low & 0xff]! +
    '-' +
    HEX[0x70 | (sequence >>> 8)]! +
    HEX[sequence & 0xff]! +
    '-' +
    HEX[0x80 | (pool[at]! & 0x3f)]! +
    HEX[pool[at + 1]!]! +
    '-' +
    HEX[pool[at + 2]!]! +
    HEX[pool[at + 3]!]! +
    HEX[pool[at + 4]!]! +
    HEX[pool[at + 5]!]! +
    HEX[pool[at + 6]!]! +
    HEX[pool[at + 7]!]!
  );
}
