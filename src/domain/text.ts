import { ServiceError } from './errors.js';

// Strings that neither database can hold as they are: PostgreSQL refuses the NUL character in text and jsonb,
// and a lone UTF-16 surrogate is not Unicode at all (PostgreSQL refuses it; SQLite would silently store U+FFFD).
// Refusing both everywhere a string enters makes SQLite and PostgreSQL behave alike.

declare global {
  interface String {
    /** False when the string holds a lone surrogate. ES2024: Node 20 has it, the TypeScript lib used here lacks it. */
    isWellFormed(): boolean;
  }
}

/** Why a string cannot be stored, or null when it can. */
export function textProblem(text: string): string | null {
  // Two scans the engine makes fast (a test of /[\0\p{Cs}]/u cost five times as much, thousands of times an import).
  if (text.isWellFormed() && !text.includes('\u0000')) return null;
  return text.includes('\u0000')
    ? 'must not contain the NUL character'
    : 'must not contain a lone surrogate (half of a UTF-16 pair without the other half)';
}

/** Refuses, naming the field, a string that no database can store. */
export function requireStorableText(field: string, text: string): void {
  const problem = textProblem(text);
  if (problem) throw new ServiceError('BAD_USER_INPUT', `${field}: ${problem}`, { field });
}
