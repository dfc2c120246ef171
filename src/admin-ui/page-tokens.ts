// Settings → API tokens: create (the secret is shown once), list, revoke.
// The page's state is tokens-state.ts, its calls tokens-api.ts.
import { h, listTable, uid } from './dom.js';
import { checkedSubmit } from './form-submit.js';
import type { PageContext } from './page.js';
import { createTokenCall, listTokens, revokeTokenCall } from './tokens-api.js';
import { checkTokenForm, tokenFieldError, tokenStatus, type ApiToken } from './tokens-state.js';
import { announce, button, confirmDialog, copyButton, errorArea, input, labelled, ownerAdminPage } from './ui.js';
import { formatDateTime } from './values.js';

interface TokensPage {
  ctx: PageContext;
  errors: ReturnType<typeof errorArea>;
  secretArea: HTMLElement;
  listArea: HTMLElement;
}

function tokenRow(page: TokensPage, token: ApiToken, now: number): HTMLElement {
  return h(
    'tr',
    { class: token.revokedAt ? 'revoked' : null },
    h('th', { scope: 'row' }, token.name ?? h('span', { class: 'muted' }, '(no name)')),
    h('td', null, token.userEmail),
    h('td', null, token.role),
    h('td', null, formatDateTime(token.createdAt)),
    h('td', null, token.lastUsedAt ? formatDateTime(token.lastUsedAt) : 'Never'),
    h('td', null, token.expiresAt ? formatDateTime(token.expiresAt) : 'Never'),
    h('td', null, tokenStatus(token, now)),
    h(
      'td',
      { class: 'actions' },
      token.revokedAt
        ? null
        : button('Revoke', () => void revoke(page, token), {
            class: 'button button-danger',
            'aria-label': `Revoke token ${token.name ?? token.id}`,
          }),
    ),
  );
}

async function loadList(page: TokensPage): Promise<void> {
  const tokens = await listTokens();
  if (!page.ctx.isCurrent()) return;
  const now = Date.now();
  page.listArea.replaceChildren(
    tokens.length === 0
      ? h('p', { class: 'empty' }, 'No API tokens yet.')
      : listTable(
          'table tokens',
          'API tokens of this workspace',
          ['Name', 'User', 'Role', 'Created', 'Last used', 'Expires', 'Status'],
          tokens.map((token) => tokenRow(page, token, now)),
          { actions: true },
        ),
  );
}

async function revoke(page: TokensPage, token: ApiToken): Promise<void> {
  page.errors.clear();
  const confirmed = await confirmDialog({
    title: `Revoke token ${token.name ?? 'without a name'}?`,
    message: h('p', null, 'Scripts using this token are refused from now on (401 Not authorized). This cannot be undone.'),
    confirmLabel: 'Revoke token',
    danger: true,
  });
  if (!confirmed) return;
  try {
    await revokeTokenCall(token.id);
    announce(`Token ${token.name ?? ''} revoked.`);
    await loadList(page);
    page.listArea.querySelector<HTMLElement>('caption')?.focus();
  } catch (error) {
    page.errors.show(error, 'The token was not revoked.');
  }
}

function createTokenForm(page: TokensPage): HTMLElement {
  const { errors } = page;
  const name = input({ name: 'tokenName', autocomplete: 'off', required: true });
  const expires = input({ type: 'datetime-local', name: 'expiresAt' });
  const nameRow = labelled('Name', name, { required: true, hint: 'What the token is for, such as “nightly import”.' });
  const expiresRow = labelled('Expires (optional)', expires, {
    hint: 'Your local time. Leave empty for a token that does not expire.',
  });
  const fields = { name: { row: nameRow, control: name }, expiresAt: { row: expiresRow, control: expires } };
  const submit = h('button', { type: 'submit', class: 'button button-primary' }, 'Create token');
  const check = () => {
    errors.clear();
    nameRow.setError(null);
    expiresRow.setError(null);
    const checked = checkTokenForm(name.value, expires.value);
    if (checked.ok) return checked;
    fields[checked.field].row.setError(checked.message);
    fields[checked.field].control.focus();
    return false;
  };
  const send = async (checked: { name: string; expiresAt: string | null }) => {
    try {
      const created = await createTokenCall(checked.name, checked.expiresAt);
      name.value = '';
      expires.value = '';
      showSecret(page, created.apiToken, created.token, name);
      await loadList(page);
    } catch (error) {
      errors.show(error, 'The token was not created.');
      const atField = tokenFieldError((error as Error).message);
      if (atField) fields[atField.field].row.setError(atField.text);
    }
  };
  return h(
    'form',
    {
      class: 'token-form',
      novalidate: true,
      'aria-labelledby': 'create-token-title',
      onsubmit: checkedSubmit(submit, check, send),
    },
    h('h2', { id: 'create-token-title' }, 'Create a token'),
    h('p', { class: 'muted' }, `A token acts as you (${page.ctx.session.user.email}) with your role in this workspace.`),
    h('div', { class: 'form-columns' }, nameRow.element, expiresRow.element),
    h('div', { class: 'form-actions' }, submit),
  );
}

function showSecret(page: TokensPage, token: ApiToken, secret: string, name: HTMLInputElement): void {
  const fieldId = uid('secret');
  const field = h('input', { id: fieldId, class: 'copy-field secret', value: secret, readonly: true, size: secret.length + 2 });
  const titleId = uid('secret-title');
  const panel = h(
    'section',
    { class: 'secret-panel', 'aria-labelledby': titleId, tabindex: '-1' },
    h('h2', { id: titleId }, `Token ${token.name ?? ''} created`),
    h('p', null, h('strong', null, 'Copy it now: it is shown only this once.'), ' Only a hash is stored.'),
    h(
      'div',
      { class: 'copyable' },
      h('label', { for: fieldId, class: 'visually-hidden' }, 'The new token'),
      field,
      copyButton(() => secret, 'Copy token', field),
    ),
    h(
      'p',
      { class: 'hint' },
      'Use it as Authorization: Bearer <token>, with the workspace id from Settings → Workspace as x-workspace-id.',
    ),
    button('Done, hide the token', () => {
      page.secretArea.replaceChildren();
      name.focus();
    }),
  );
  page.secretArea.replaceChildren(panel);
  panel.focus();
}

export async function renderTokens(ctx: PageContext): Promise<void> {
  ctx.setTitle('API tokens');
  const page: TokensPage = { ctx, errors: errorArea(), secretArea: h('div', { class: 'secret-area' }), listArea: h('div') };
  await ownerAdminPage(ctx, {
    title: 'API tokens',
    parts: [page.errors.element, page.secretArea, createTokenForm(page), h('h2', null, 'Tokens'), page.listArea],
    load: () => loadList(page),
    manages: 'API tokens',
  });
}
