// JSON values for property tests (fast-check): null, booleans, integers, short strings, and arrays and objects of
// them, nested a few levels.
import fc from 'fast-check';

/** fast-check's dictionaries have no prototype; JSON.parse gives plain objects with own `__proto__` keys. */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Any JSON value whose object keys come from `key`. */
export function jsonValue(
  key: fc.Arbitrary<string>,
  text: fc.Arbitrary<string> = fc.string({ maxLength: 6 }),
): fc.Arbitrary<unknown> {
  return fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      text,
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(key, tie('value'), { maxKeys: 4 }).map(plain),
    ),
  })).value;
}
