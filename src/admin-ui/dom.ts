// A few lines instead of a framework: `h()` builds elements, attributes set as attributes (so they show in the
// DOM and in screen readers), `on*` functions become listeners, `value`/`checked` are set as properties.

export type Child = Node | string | number | null | undefined | false | readonly Child[];
/** Attribute values (`true`: present and empty; false, null, undefined: absent), listeners (`on*`), properties. */
export type Attrs = Record<string, AttrValue>;
export type AttrValue = string | number | boolean | null | undefined | Listener;

/**
 * An event listener. An async one is fire-and-forget: the browser does not wait for it, so it shows its own
 * failures (the pages' error areas); what it does not catch reaches the console.
 */
export type Listener = (event: never) => void | Promise<void>;

let idCounter = 0;
/** A document-unique id for label/aria wiring. */
export function uid(prefix = 'id'): string {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  const late: [string, AttrValue][] = [];
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2).toLowerCase(), value as EventListener);
    } else if (name === 'value' || name === 'checked' || name === 'selected') {
      late.push([name, value]);
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  for (const [name, value] of late) (element as unknown as Record<string, unknown>)[name] = value;
  return element;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (child instanceof Node) parent.appendChild(child);
    else if (typeof child === 'string' || typeof child === 'number') parent.appendChild(document.createTextNode(String(child)));
    else append(parent, child);
  }
}

export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/**
 * A table in a box that scrolls sideways when the table is wider than the screen. The table itself keeps
 * `display: table`, so screen readers still read it as a table.
 */
export function scrollingTable(table: HTMLTableElement): HTMLDivElement {
  return h('div', { class: 'table-scroll' }, table);
}

/**
 * A list as a table in a scrolling box: its caption (focusable, for after a change of the list), a header row of the
 * column titles, then the rows. `actions`: a last column of buttons, its title for screen readers only.
 */
export function listTable(
  className: string,
  caption: string,
  titles: readonly string[],
  rows: Child,
  options: { actions?: boolean } = {},
): HTMLDivElement {
  return scrollingTable(
    h(
      'table',
      { class: className },
      h('caption', { tabindex: '-1' }, caption),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          titles.map((title) => h('th', { scope: 'col' }, title)),
          options.actions ? h('th', { scope: 'col' }, srOnly('Actions')) : null,
        ),
      ),
      h('tbody', null, rows),
    ),
  );
}

/** A visually hidden text, read by screen readers. */
export function srOnly(text: string): HTMLSpanElement {
  return h('span', { class: 'visually-hidden' }, text);
}
