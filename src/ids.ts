import { randomFillSync } from 'node:crypto';

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
/** The id's characters are written here, then read out as one string. */
const text = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');

/** Writes `byte` as two hex digits at `at`. */
function putHex(at: number, byte: number): void {
  text[at] = HEX_DIGITS[byte >>> 4]!;
  text[at + 1] = HEX_DIGITS[byte & 0x0f]!;
}

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
 * Random bytes are drawn from a pool: one system call per thousand ids, not one per id. The characters are written
 * into a buffer and read out as one flat string: joined from pieces, the id was a tree of 20 strings that every
 * database driver had to copy flat again to bind it (an import binds a thousand).
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
  putHex(0, (high >>> 24) & 0xff);
  putHex(2, (high >>> 16) & 0xff);
  putHex(4, (high >>> 8) & 0xff);
  putHex(6, high & 0xff);
  putHex(9, low >>> 8);
  putHex(11, low & 0xff);
  putHex(14, 0x70 | (sequence >>> 8));
  putHex(16, sequence & 0xff);
  putHex(19, 0x80 | (pool[at]! & 0x3f));
  putHex(21, pool[at + 1]!);
  for (let index = 0; index < 6; index++) putHex(24 + index * 2, pool[at + 2 + index]!);
  return text.toString('latin1', 0, 36);
}
