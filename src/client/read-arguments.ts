// The reading arguments of delivery.md (filter, locale, populate) as GraphQL variables. Only the arguments a call
// uses are declared, so a call without them sends the same document as before (and works on servers without them).
import type { ReadOptions, RecordFilter, RecordStatus } from './types.js';

export interface ReadArguments extends ReadOptions {
  filter?: RecordFilter;
  /** Only records in these states (`record.list`). */
  status?: readonly RecordStatus[];
}

const TYPES: Record<keyof ReadArguments, string> = {
  filter: 'JSON',
  locale: 'String',
  populate: '[String!]',
  status: '[String!]',
};

export interface ArgumentText {
  /** `, $filter: JSON, $locale: String` — to append to the operation's variable definitions. */
  declarations: string;
  /** `, filter: $filter, locale: $locale` — to append to the field's arguments. */
  passing: string;
  variables: Record<string, unknown>;
}

export function readArguments(options: ReadArguments): ArgumentText {
  let declarations = '';
  let passing = '';
  const variables: Record<string, unknown> = {};
  for (const name of Object.keys(TYPES) as (keyof ReadArguments)[]) {
    const value = options[name];
    if (value === undefined) continue;
    declarations += `, $${name}: ${TYPES[name]}`;
    passing += `, ${name}: $${name}`;
    variables[name] = value;
  }
  return { declarations, passing, variables };
}
