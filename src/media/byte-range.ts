// One byte range of an HTTP Range header (RFC 9110 §14): `bytes=a-b`, `bytes=a-`, `bytes=-n`. Several ranges at once
// are answered whole (a server may ignore Range), as is anything that is not a bytes range.
import type { ByteRange } from './storage.js';

/** The range asked of an object of `size` bytes: null for the whole object, 'unsatisfiable' past its end. */
export function requestedRange(header: string | undefined, size: number): ByteRange | null | 'unsatisfiable' {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return null;
  return { start, end };
}
