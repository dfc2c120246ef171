// A few lines instead of a framework: `h()` builds elements, attributes set as attributes (so they show in the
// DOM and in screen readers), `on*` functions become listeners, `value`/`checked` are set as properties.

export type Child = Node | string | number | null | undefined | false | readonly Child[];
export type Attrs = Record<string, unknown>;

let idCounter = 0;
/** A document-unique id for label/aria wiring. */
export function uid(prefix = 'id'): string {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  const late: [string, unknown][] = [];
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
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else parent.appendChild(document.createTextNode(String(child)));
  }
}

export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A visually hidden text, read by screen readers. */
export function srOnly(text: string): HTMLSpanElement {
  return h('span', { class: 'visually-hidden' }, text);
}
