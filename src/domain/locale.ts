// Reading translatable values in one locale: `locale: "de-AT"` turns each `{ "de": "Ball", "en": "Ball" }` of an
// answer into the one string for de-AT, else de, else the workspace's default locale, else null.
import { LOCALE_PATTERN } from '../shared/field-types.js';
import { fieldError } from './errors.js';
import type { FieldDefinition } from './fields.js';

/** A workspace's default locale until it is changed. */
export const DEFAULT_LOCALE = 'en';

export const LOCALE_REASON = 'is not a locale code (such as en, pl or pt-BR)';

/** The longest locale code taken (BCP 47 asks that at least 35 characters be supported). */
const MAX_LOCALE_LENGTH = 35;

/** Refuses a value that is not a locale code, naming `path`. */
export function requireLocale(path: string, value: string): string {
  if (value.length > MAX_LOCALE_LENGTH || !LOCALE_PATTERN.test(value)) throw fieldError({ path, reason: LOCALE_REASON });
  return value;
}

/**
 * The locales a translatable value is looked up in, best first: the locale asked for, then the shorter tags it
 * extends (de-AT-1996 → de-AT → de), then the workspace's default locale.
 */
export function localeChain(locale: string, defaultLocale: string): string[] {
  const chain: string[] = [];
  const parts = locale.split('-');
  for (let length = parts.length; length > 0; length--) chain.push(parts.slice(0, length).join('-'));
  if (!chain.some((candidate) => sameLocale(candidate, defaultLocale))) chain.push(defaultLocale);
  return chain;
}

/** The string of a stored translatable value for the first locale of `chain` it has; null when it has none. */
export function pickTranslation(value: unknown, chain: readonly string[]): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const texts = value as Record<string, unknown>;
  for (const locale of chain) {
    const exact = Object.prototype.hasOwnProperty.call(texts, locale) ? texts[locale] : undefined;
    if (typeof exact === 'string') return exact;
    // Locale codes are case-insensitive (pt-BR, pt-br): a stored key in another case is the same locale.
    for (const key of Object.keys(texts)) {
      const text = texts[key];
      if (typeof text === 'string' && sameLocale(key, locale)) return text;
    }
  }
  return null;
}

function sameLocale(a: string, b: string): boolean {
  return a.length === b.length && a.toLowerCase() === b.toLowerCase();
}

const translatableCache = new WeakMap<readonly FieldDefinition[], boolean>();

/** Whether a field list holds a translatable field, in object sub-fields too (a locale then changes nothing). */
export function hasTranslatable(fields: readonly FieldDefinition[]): boolean {
  let found = translatableCache.get(fields);
  if (found === undefined) {
    found = fields.some((field) => field.type === 'translatable' || (field.fields ? hasTranslatable(field.fields) : false));
    translatableCache.set(fields, found);
  }
  return found;
}
