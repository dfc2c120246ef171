// Shared pieces of the pages: labelled controls with an error slot, alerts, a confirmation dialog, copy buttons.
import { ApiError } from './api.js';
import { h, replaceChildren, uid, type Attrs, type Child } from './dom.js';
import type { PageContext } from './page.js';

export type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** A labelled control or group, with a hint and a slot for the error the server names it in. */
export interface FieldRow {
  element: HTMLElement;
  /** What gets focus when the field is in error. */
  focusTarget: HTMLElement;
  setError(message: string | null): void;
  /** The message shown, or null. */
  error(): string | null;
}

function describe(target: HTMLElement, ids: string[]): void {
  const value = ids.filter(Boolean).join(' ');
  if (value) target.setAttribute('aria-describedby', value);
  else target.removeAttribute('aria-describedby');
}

/**
 * An error paragraph for `target`, linked by aria-describedby (with the hint, if any) and aria-invalid. The message
 * is about the value as it was: an edit of the field (an input or a change in `target`) takes it away.
 */
export function errorSlot(
  target: HTMLElement,
  hintId: string,
): { slot: HTMLElement; setError: (message: string | null) => void; error: () => string | null } {
  const errorId = uid('error');
  const slot = h('p', { class: 'field-error', id: errorId, hidden: true });
  let shown: string | null = null;
  const setError = (message: string | null) => {
    shown = message || null;
    if (message) {
      slot.textContent = message;
      slot.hidden = false;
      target.setAttribute('aria-invalid', 'true');
      describe(target, [errorId, hintId]);
    } else {
      slot.textContent = '';
      slot.hidden = true;
      target.removeAttribute('aria-invalid');
      describe(target, [hintId]);
    }
  };
  const clearOnEdit = () => {
    if (shown !== null) setError(null);
  };
  target.addEventListener('input', clearOnEdit);
  target.addEventListener('change', clearOnEdit);
  return { slot, setError, error: () => shown };
}

export function labelled(
  label: string,
  control: Control,
  options: { hint?: string; required?: boolean; className?: string } = {},
): FieldRow {
  if (!control.id) control.id = uid('control');
  const hintId = options.hint ? uid('hint') : '';
  if (options.required) control.setAttribute('aria-required', 'true');
  const { slot, setError, error } = errorSlot(control, hintId);
  describe(control, [hintId]);
  const isCheckbox = control instanceof HTMLInputElement && control.type === 'checkbox';
  const labelElement = h(
    'label',
    { for: control.id },
    label,
    options.required ? h('span', { class: 'required' }, ' (required)') : null,
  );
  const element = h(
    'div',
    { class: `form-row${isCheckbox ? ' form-row-check' : ''}${options.className ? ` ${options.className}` : ''}` },
    isCheckbox ? [control, labelElement] : [labelElement, control],
    options.hint ? h('p', { class: 'hint', id: hintId }, options.hint) : null,
    slot,
  );
  return { element, focusTarget: control, setError, error };
}

/** A fieldset (for a control made of several inputs), with a legend, hint and error slot. */
export function group(
  legend: string,
  content: Child,
  options: { hint?: string; required?: boolean; className?: string } = {},
): FieldRow {
  const hintId = options.hint ? uid('hint') : '';
  const fieldset = h('fieldset', { class: `group${options.className ? ` ${options.className}` : ''}` });
  const { slot, setError, error } = errorSlot(fieldset, hintId);
  describe(fieldset, [hintId]);
  fieldset.append(
    h('legend', null, legend, options.required ? h('span', { class: 'required' }, ' (required)') : null),
    ...(options.hint ? [h('p', { class: 'hint', id: hintId }, options.hint)] : []),
  );
  const body = h('div', { class: 'group-body' });
  if (content !== null && content !== undefined && content !== false) {
    body.append(
      ...(Array.isArray(content) ? content : [content]).filter(
        (c): c is Node | string => c instanceof Node || typeof c === 'string',
      ),
    );
  }
  fieldset.append(body, slot);
  return {
    element: fieldset,
    get focusTarget(): HTMLElement {
      return fieldset.querySelector<HTMLElement>('input, select, textarea, button') ?? fieldset;
    },
    setError,
    error,
  };
}

export function input(attrs: Attrs = {}): HTMLInputElement {
  return h('input', { type: 'text', ...attrs });
}

export function select(
  options: readonly { value: string; label: string }[],
  value: string,
  attrs: Attrs = {},
): HTMLSelectElement {
  const element = h(
    'select',
    attrs,
    options.map((option) => h('option', { value: option.value }, option.label)),
  );
  element.value = value;
  return element;
}

export function button(label: Child, onClick: (event: MouseEvent) => void | Promise<void>, attrs: Attrs = {}): HTMLButtonElement {
  return h('button', { type: 'button', class: 'button', ...attrs, onclick: onClick }, label);
}

/** A message for people from any error. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'FORBIDDEN') return `${error.message}. Ask an owner or admin of the workspace.`;
    // `id: …` names the argument of a delete, which means nothing on a page.
    return error.message.replace(/^id: /, '');
  }
  return error instanceof Error ? error.message : String(error);
}

export function alertBox(message: Child, options: { title?: string } = {}): HTMLElement {
  return h(
    'div',
    { class: 'alert alert-error', role: 'alert' },
    options.title ? h('strong', null, options.title, ' ') : null,
    message,
  );
}

export function noticeBox(message: Child): HTMLElement {
  return h('div', { class: 'alert alert-ok', role: 'status' }, message);
}

export interface ErrorArea {
  element: HTMLElement;
  show(error: unknown, title?: string): void;
  clear(): void;
}

/** Shows an error (or nothing, for null) in a slot that keeps its place in the page. */
export function errorArea(): ErrorArea {
  const element = h('div', { class: 'error-area' });
  return {
    element,
    show(error: unknown, title?: string) {
      element.replaceChildren(alertBox(errorText(error), title ? { title } : {}));
    },
    clear() {
      element.replaceChildren();
    },
  };
}

let announcer: HTMLElement | null = null;
export function setAnnouncer(element: HTMLElement): void {
  announcer = element;
}

/** Says something to screen readers without moving focus. */
export function announce(message: string): void {
  if (!announcer) return;
  announcer.textContent = '';
  // A change after clearing is announced even when the text repeats.
  requestAnimationFrame(() => {
    if (announcer) announcer.textContent = message;
  });
}

export interface ConfirmOptions {
  title: string;
  message: Child;
  confirmLabel: string;
  danger?: boolean;
}

/** A modal confirmation (native <dialog>: focus moves in, Escape cancels, focus returns). Resolves true on confirm. */
export function confirmDialog(options: ConfirmOptions): Promise<boolean> {
  const returnFocus = document.activeElement as HTMLElement | null;
  const titleId = uid('dialog-title');
  return new Promise((resolve) => {
    const cancel = h('button', { type: 'button', class: 'button', value: 'cancel' }, 'Cancel');
    const confirm = h(
      'button',
      { type: 'button', class: `button ${options.danger ? 'button-danger' : 'button-primary'}`, value: 'confirm' },
      options.confirmLabel,
    );
    const dialog = h(
      'dialog',
      { 'aria-labelledby': titleId, class: 'dialog' },
      h('h2', { id: titleId }, options.title),
      h('div', { class: 'dialog-body' }, options.message),
      h('div', { class: 'dialog-actions' }, cancel, confirm),
    );
    let result = false;
    cancel.addEventListener('click', () => dialog.close());
    confirm.addEventListener('click', () => {
      result = true;
      dialog.close();
    });
    dialog.addEventListener('close', () => {
      dialog.remove();
      returnFocus?.focus();
      resolve(result);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}

/** Closes (cancels) the open dialogs: a dialog belongs to the page it was opened on, and goes when the route changes. */
export function closeDialogs(): void {
  for (const dialog of document.querySelectorAll('dialog')) if (dialog.open) dialog.close();
}

/** Copies text to the clipboard; falls back to selecting it in `fallbackInput` for Ctrl+C. */
export function copyButton(getText: () => string, label: string, fallbackInput?: HTMLInputElement): HTMLButtonElement {
  const control = button(label, async () => {
    try {
      await navigator.clipboard.writeText(getText());
      control.textContent = 'Copied';
      announce('Copied to the clipboard');
    } catch {
      fallbackInput?.focus();
      fallbackInput?.select();
      control.textContent = 'Press Ctrl+C to copy';
    }
    setTimeout(() => {
      control.textContent = label;
    }, 2000);
  });
  return control;
}

/** Offers text as a file download. */
export function download(filename: string, text: string, type = 'text/csv'): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  const link = h('a', { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A page heading row: the h1 (focused on navigation) and buttons or links beside it. */
export function pageHeader(title: string, ...actions: Child[]): HTMLElement {
  return h('div', { class: 'page-header' }, h('h1', { tabindex: '-1' }, title), h('div', { class: 'page-actions' }, actions));
}

/**
 * A Settings page of things only owners and admins of the workspace manage (members, API tokens): the heading, then
 * `parts`, with the list `load` fills. When the server refuses the list (FORBIDDEN), the page says who may use it.
 */
export async function ownerAdminPage(
  ctx: PageContext,
  page: { title: string; parts: Child[]; load: () => Promise<void>; manages: string },
): Promise<void> {
  replaceChildren(ctx.main, pageHeader(page.title), ...page.parts);
  try {
    await page.load();
  } catch (error) {
    // The server decides; an editor or viewer is told so here.
    if (!(error instanceof ApiError) || error.code !== 'FORBIDDEN') throw error;
    replaceChildren(
      ctx.main,
      pageHeader(page.title),
      alertBox(`Only owners and admins of a workspace manage its ${page.manages}; your role here is ${ctx.workspace.role}.`),
    );
  }
}

export function linkButton(label: string, href: string, attrs: Attrs = {}): HTMLAnchorElement {
  return h('a', { class: 'button', href, ...attrs }, label);
}
