// Settings → API tokens: create (the secret is shown once), list, revoke.
import { ApiError, gql } from './api.js';
import { h, replaceChildren, uid, scrollingTable } from './dom.js';
import type { PageContext } from './page.js';
import { alertBox, announce, button, confirmDialog, copyButton, errorArea, input, labelled, pageHeader } from './ui.js';
import { formatDateTime } from './values.js';

interface ApiToken {
  id: string;
  name: string | null;
  userEmail: string;
  role: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

const TOKEN_FIELDS = 'id name userEmail role createdAt expiresAt revokedAt lastUsedAt';

function status(token: ApiToken, now: number): string {
  if (token.revokedAt) return `Revoked ${formatDateTime(token.revokedAt)}`;
  if (token.expiresAt && Date.parse(token.expiresAt) <= now) return `Expired ${formatDateTime(token.expiresAt)}`;
  return 'Active';
}

export async function renderTokens(ctx: PageContext): Promise<void> {
  ctx.setTitle('API tokens');
  const errors = errorArea();
  const secretArea = h('div', { class: 'secret-area' });
  const listArea = h('div');

  const loadList = async () => {
    const data = await gql<{ token: { list: ApiToken[] } }>(`query AdminTokens { token { list { ${TOKEN_FIELDS} } } }`);
    if (!ctx.isCurrent()) return;
    const now = Date.now();
    const tokens = data.token.list;
    listArea.replaceChildren(
      tokens.length === 0
        ? h('p', { class: 'empty' }, 'No API tokens yet.')
        : scrollingTable(
            h(
              'table',
              { class: 'table tokens' },
              h('caption', { tabindex: '-1' }, 'API tokens of this workspace'),
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['Name', 'User', 'Role', 'Created', 'Last used', 'Expires', 'Status'].map((title) =>
                    h('th', { scope: 'col' }, title),
                  ),
                  h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
                ),
              ),
              h(
                'tbody',
                null,
                tokens.map((token) =>
                  h(
                    'tr',
                    { class: token.revokedAt ? 'revoked' : null },
                    h('th', { scope: 'row' }, token.name ?? h('span', { class: 'muted' }, '(no name)')),
                    h('td', null, token.userEmail),
                    h('td', null, token.role),
                    h('td', null, formatDateTime(token.createdAt)),
                    h('td', null, token.lastUsedAt ? formatDateTime(token.lastUsedAt) : 'Never'),
                    h('td', null, token.expiresAt ? formatDateTime(token.expiresAt) : 'Never'),
                    h('td', null, status(token, now)),
                    h(
                      'td',
                      { class: 'actions' },
                      token.revokedAt
                        ? null
                        : button('Revoke', () => void revoke(token), {
                            class: 'button button-danger',
                            'aria-label': `Revoke token ${token.name ?? token.id}`,
                          }),
                    ),
                  ),
                ),
              ),
            ),
          ),
    );
  };

  const revoke = async (token: ApiToken) => {
    errors.clear();
    const confirmed = await confirmDialog({
      title: `Revoke token ${token.name ?? 'without a name'}?`,
      message: h('p', null, 'Scripts using this token are refused from now on (401 Not authorized). This cannot be undone.'),
      confirmLabel: 'Revoke token',
      danger: true,
    });
    if (!confirmed) return;
    try {
      await gql('mutation RevokeToken($id: ID!) { token { revoke(id: $id) { id deleted } } }', { id: token.id });
      announce(`Token ${token.name ?? ''} revoked.`);
      await loadList();
      listArea.querySelector<HTMLElement>('caption')?.focus();
    } catch (error) {
      errors.show(error, 'The token was not revoked.');
    }
  };

  const name = input({ name: 'tokenName', autocomplete: 'off', required: true });
  const expires = input({ type: 'datetime-local', name: 'expiresAt' });
  const nameRow = labelled('Name', name, { required: true, hint: 'What the token is for, such as “nightly import”.' });
  const expiresRow = labelled('Expires (optional)', expires, {
    hint: 'Your local time. Leave empty for a token that does not expire.',
  });
  const submit = h('button', { type: 'submit', class: 'button button-primary' }, 'Create token');
  const form = h(
    'form',
    {
      class: 'token-form',
      novalidate: true,
      'aria-labelledby': 'create-token-title',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        errors.clear();
        nameRow.setError(null);
        expiresRow.setError(null);
        if (name.value.trim() === '') {
          nameRow.setError('Give the token a name.');
          name.focus();
          return;
        }
        let expiresAt: string | null = null;
        if (expires.value) {
          const date = new Date(expires.value);
          if (Number.isNaN(date.getTime())) {
            expiresRow.setError('Not a date and time.');
            expires.focus();
            return;
          }
          expiresAt = date.toISOString();
        }
        submit.disabled = true;
        try {
          // Literals (JSON strings are GraphQL strings), so that the input's type name does not matter here.
          const literal = `{ name: ${JSON.stringify(name.value.trim())}, expiresAt: ${expiresAt === null ? 'null' : JSON.stringify(expiresAt)} }`;
          const data = await gql<{ token: { create: { token: string; apiToken: ApiToken } } }>(
            `mutation CreateToken { token { create(input: ${literal}) { token apiToken { ${TOKEN_FIELDS} } } } }`,
          );
          const created = data.token.create;
          name.value = '';
          expires.value = '';
          showSecret(created.apiToken, created.token);
          await loadList();
        } catch (error) {
          errors.show(error, 'The token was not created.');
          const message = (error as Error).message;
          if (/^name:/.test(message)) nameRow.setError(message.replace(/^name: /, ''));
          if (/^expiresAt:/.test(message)) expiresRow.setError(message.replace(/^expiresAt: /, ''));
        } finally {
          submit.disabled = false;
        }
      },
    },
    h('h2', { id: 'create-token-title' }, 'Create a token'),
    h('p', { class: 'muted' }, `A token acts as you (${ctx.session.user.email}) with your role in this workspace.`),
    h('div', { class: 'form-columns' }, nameRow.element, expiresRow.element),
    h('div', { class: 'form-actions' }, submit),
  );

  const showSecret = (token: ApiToken, secret: string) => {
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
        secretArea.replaceChildren();
        name.focus();
      }),
    );
    secretArea.replaceChildren(panel);
    panel.focus();
  };

  replaceChildren(ctx.main, pageHeader('API tokens'), errors.element, secretArea, form, h('h2', null, 'Tokens'), listArea);
  try {
    await loadList();
  } catch (error) {
    // Tokens are for owners and admins (the server decides; an editor or viewer is told so here).
    if (!(error instanceof ApiError) || error.code !== 'FORBIDDEN') throw error;
    replaceChildren(
      ctx.main,
      pageHeader('API tokens'),
      alertBox(`Only owners and admins of a workspace manage its API tokens; your role here is ${ctx.workspace.role}.`),
    );
  }
}
