import { ServiceError } from './errors.js';

// Strings that neither database can hold as they are: PostgreSQL refuses the NUL character in text and jsonb,
// and a lone UTF-16 surrogate is not Unicode at all (PostgreSQL refuses it; SQLite would silently store U+FFFD).
// Refusing both everywhere a string enters makes SQLite and PostgreSQL behave alike.

/** NUL, or a lone surrogate (with the u flag a surrogate pair is one code point, not Cs). */
const UNSTORABLE = /[\0\p{Cs}]/u;

/** Why a string cannot be stored, or null when it can. */
export function textProblem(text: string): string | null {
  if (!UNSTORABLE.test(text)) return null;
  return text.includes('\u0000')
    ? 'must not contain the NUL character'
    : 'must not contain a lone surrogate (half of a UTF-16 pair without the other half)';
}

/** Refuses, naming the field, a string that no database can store. */
export function requireStorableText(field: string, text: string): void {
  const problem = textProblem(text);
  if (problem) throw new ServiceError('BAD_USER_INPUT', `${field}: ${problem}`, { field });
}
