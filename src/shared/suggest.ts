// "Did you mean …?" for a mistyped name: used by the service's messages and by the client's own checks alike.

/** ` (did you mean "price"?)` when a known name is close to the given one. */
export function suggest(given: unknown, known: Iterable<string>): string {
  if (typeof given !== 'string' || given === '') return '';
  const lower = given.toLowerCase();
  for (const candidate of known) {
    const other = candidate.toLowerCase();
    if (other.includes(lower) || lower.includes(other) || editDistance(lower, other) <= 2) {
      return ` (did you mean "${candidate}"?)`;
    }
  }
  return '';
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
