// Date-times given as arguments (a token's expiry, a schedule's time, a read as of a time): ISO 8601, starting with
// the date (`2030-01-31`, `2030-01-31T09:00:00Z`, `2030-01-31T09:00:00+02:00`), never the other texts Date.parse
// also reads ("May 1, 2030").

/** Epoch milliseconds of an ISO 8601 date-time; NaN when it is none. */
export function parseDateTime(value: unknown): number {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
}
