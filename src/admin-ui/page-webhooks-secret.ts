// The signing secret of a webhook, shown once: after create and after a rotation, with a copy button.
import { h, uid } from './dom.js';
import { button, copyButton } from './ui.js';

export function secretPanel(options: { title: string; secret: string; rotated: boolean; onDone(): void }): HTMLElement {
  const fieldId = uid('secret');
  const titleId = uid('secret-title');
  const field = h('input', {
    id: fieldId,
    class: 'copy-field secret',
    value: options.secret,
    readonly: true,
    size: options.secret.length + 2,
  });
  return h(
    'section',
    { class: 'secret-panel', 'aria-labelledby': titleId, tabindex: '-1' },
    h('h2', { id: titleId }, options.title),
    h(
      'p',
      null,
      h('strong', null, 'Copy the signing secret now: it is shown only this once.'),
      ' Your receiver verifies each delivery with it (any Standard Webhooks library).',
    ),
    h(
      'div',
      { class: 'copyable' },
      h('label', { for: fieldId, class: 'visually-hidden' }, 'The signing secret'),
      field,
      copyButton(() => options.secret, 'Copy secret', field),
    ),
    options.rotated
      ? h(
          'p',
          { class: 'hint' },
          'For the next 24 hours every delivery is signed with both the old and the new secret, so the receiver can switch at its own pace.',
        )
      : null,
    button('Done, hide the secret', () => options.onDone()),
  );
}
