// A control that re-renders its own page (applying a filter, sorting by a column) gets the focus back on the new
// page, instead of the page heading that a navigation focuses: a keyboard user stays where they were.
let pending: string | null = null;

/** Marks `element` as the one to focus on the next render (a stable `data-focus-key` across renders). */
export function focusKey(element: HTMLElement, key: string): HTMLElement {
  element.dataset.focusKey = key;
  return element;
}

/** The next render focuses the element with this key, when the page has one. */
export function returnFocusTo(key: string): void {
  pending = key;
}

/** Focuses the element asked for before this render; false when none was asked for or it is not on the page. */
export function restoreFocus(root: HTMLElement): boolean {
  const key = pending;
  pending = null;
  if (key === null) return false;
  const target = [...root.querySelectorAll<HTMLElement>('[data-focus-key]')].find((element) => element.dataset.focusKey === key);
  target?.focus();
  return target !== undefined;
}
