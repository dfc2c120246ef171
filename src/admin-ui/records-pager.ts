// The pager under the records table: where the page is in the (filtered) total, previous/next, a page number to
// jump to and the page size. Links keep the rest of the page's URL (filter, sort) through `href`.
import { h } from './dom.js';
import { LIMITS } from './records-state.js';
import type { RecordPage } from './types.js';
import { linkButton } from './ui.js';

export interface PagerOptions {
  page: RecordPage;
  limit: number;
  offset: number;
  href: (next: { offset?: number; limit?: number }) => string;
  navigate: (hash: string) => void;
}

export function recordsPager({ page, limit, offset, href, navigate }: PagerOptions): HTMLElement {
  const first = page.total === 0 ? 0 : offset + 1;
  const last = offset + page.items.length;
  const pageCount = Math.max(1, Math.ceil(page.total / limit));
  const pageNumber = Math.floor(offset / limit) + 1;
  const limitSelect: HTMLSelectElement = h(
    'select',
    {
      id: 'records-limit',
      onchange: () => navigate(href({ limit: Number(limitSelect.value), offset: 0 })),
    },
    LIMITS.map((value) => h('option', { value: String(value) }, String(value))),
  );
  limitSelect.value = String(limit);
  const pageInput = h('input', {
    id: 'records-page',
    type: 'number',
    min: '1',
    max: String(pageCount),
    value: String(pageNumber),
    class: 'page-input',
  });
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    h(
      'p',
      { class: 'pager-status', 'aria-live': 'polite' },
      page.total === 0
        ? 'No records'
        : `Records ${first.toLocaleString()}–${last.toLocaleString()} of ${page.total.toLocaleString()}`,
    ),
    h(
      'div',
      { class: 'pager-controls' },
      offset > 0
        ? linkButton('Previous page', href({ offset: offset - limit }), { rel: 'prev' })
        : h('span', { class: 'button', 'aria-disabled': 'true' }, 'Previous page'),
      h(
        'form',
        {
          class: 'page-jump',
          onsubmit: (event: Event) => {
            event.preventDefault();
            const wanted = Math.min(pageCount, Math.max(1, Math.floor(Number(pageInput.value)) || 1));
            navigate(href({ offset: (wanted - 1) * limit }));
          },
        },
        h('label', { for: 'records-page' }, 'Page'),
        pageInput,
        h('span', null, ` of ${pageCount.toLocaleString()}`),
        h('button', { type: 'submit', class: 'button' }, 'Go'),
      ),
      page.hasMore
        ? linkButton('Next page', href({ offset: offset + limit }), { rel: 'next' })
        : h('span', { class: 'button', 'aria-disabled': 'true' }, 'Next page'),
      h('label', { for: 'records-limit' }, 'Per page'),
      limitSelect,
    ),
  );
}
