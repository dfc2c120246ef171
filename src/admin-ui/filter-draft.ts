// The filter bar's state, without a DOM: the conditions being edited (drafts), what a change of a condition's
// field or operator does to it, the filter they build, and which condition a refusal of the server names.
// filter-bar.ts renders it.
import {
  buildFilter,
  operatorsFor,
  takesList,
  type BuiltFilter,
  type Condition,
  type FilterPath,
  type Operator,
} from './record-filter.js';

export interface Draft {
  target: FilterPath;
  locale: string;
  operator: Operator;
  value: string;
}

/** The condition's path: a translatable field's with its locale (`name.en`), when one is given. */
export function pathOf(draft: Draft): string {
  const locale = draft.locale.trim();
  return draft.target.localized && locale !== '' ? `${draft.target.path}.${locale}` : draft.target.path;
}

/** A new condition: the first path, its first operator, no value. */
export function newDraft(paths: readonly FilterPath[], defaultLocale: string): Draft {
  const target = paths[0]!;
  return { target, locale: defaultLocale, operator: operatorsFor(target)[0]!, value: '' };
}

/**
 * The condition moved to another field. Another kind of value starts over with that kind's first operator (on or
 * after, for times) and no value; ids of one relation's target mean nothing to another's.
 */
export function retarget(draft: Draft, target: FilterPath, defaultLocale: string): Draft {
  const sameKind =
    target.kind === draft.target.kind && target.many === draft.target.many && target.relationTo === draft.target.relationTo;
  const next: Draft = { ...draft, target };
  if (!sameKind || !operatorsFor(target).includes(draft.operator)) next.operator = operatorsFor(target)[0]!;
  if (!sameKind) next.value = '';
  if (target.localized && next.locale === '') next.locale = defaultLocale;
  return next;
}

/** The condition with another operator: from a list to one value (or back) keeps the first item. */
export function reoperate(draft: Draft, operator: Operator): Draft {
  const value = takesList(draft.operator) !== takesList(operator) ? draft.value.split(',')[0]!.trim() : draft.value;
  return { ...draft, operator, value };
}

/** The filter the drafts build, or their problems. */
export function filterOfDrafts(drafts: readonly Draft[], paths: readonly FilterPath[]): BuiltFilter {
  const conditions: Condition[] = drafts.map((draft) => ({ path: pathOf(draft), operator: draft.operator, value: draft.value }));
  return buildFilter(conditions, paths);
}

/** The focus after condition `n` (1-based) was removed: the remove button now in its place, or "Add condition". */
export function focusAfterRemove(n: number, remaining: number): string {
  return remaining > 0 ? `filter-remove-${Math.min(n, remaining)}` : 'filter-add';
}

/** The condition path a refusal names (`filter.price.$gte: …` → `price`), the longest that fits. */
export function namedPath(problem: string, paths: readonly string[]): string | undefined {
  const named = /^filter\.(\S+?):/.exec(problem)?.[1];
  if (named === undefined) return undefined;
  return [...paths]
    .sort((a, b) => b.length - a.length)
    .find((path) => named === path || named.startsWith(`${path}.`) || named.startsWith(`${path}[`));
}
