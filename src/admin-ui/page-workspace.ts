// Settings → Workspace: what a script needs to talk to this workspace (its id, the delivery URL), its limits, and
// its default locale (owners and admins change it here).
import { LOCALE_PATTERN } from '../shared/field-types.js';
import type { WorkspaceInfo } from '../shared/workspace-info.js';
import { gql } from './api.js';
import { h, replaceChildren, uid } from './dom.js';
import { checkedSubmit } from './form-submit.js';
import type { PageContext } from './page.js';
import { mayChangeWorkspaceSettings, type Role } from './types.js';
import { copyButton, errorSlot, input, noticeBox, pageHeader } from './ui.js';

const LOCALE_HINT =
  'Reads with a locale fall back to it when a translatable value has neither that locale nor its language (de-AT, then de, then this).';

/** The default locale: a form for owners and admins, the value for the others. */
function defaultLocaleSetting(workspace: WorkspaceInfo): HTMLElement {
  const hintId = uid('hint');
  if (!mayChangeWorkspaceSettings(workspace.role as Role)) {
    return h(
      'div',
      null,
      h('code', null, workspace.defaultLocale),
      h('p', { class: 'hint', id: hintId }, `${LOCALE_HINT} Owners and admins change it.`),
    );
  }
  const field = input({
    name: 'defaultLocale',
    value: workspace.defaultLocale,
    autocomplete: 'off',
    spellcheck: false,
    size: 12,
    'aria-label': 'Default locale',
  });
  const { slot, setError } = errorSlot(field, hintId);
  const save = h('button', { type: 'submit', class: 'button' }, 'Save locale');
  // "Set to pl." is about the value as saved: an edit of the field takes it away.
  const saved = h('div', { class: 'locale-saved' });
  field.addEventListener('input', () => saved.replaceChildren());
  const check = () => {
    setError(null);
    saved.replaceChildren();
    const locale = field.value.trim();
    if (LOCALE_PATTERN.test(locale)) return locale;
    setError('Not a locale code: use one such as en, pl or pt-BR.');
    field.focus();
    return false;
  };
  const send = async (locale: string) => {
    try {
      const data = await gql<{ workspace: { update: { defaultLocale: string } } }>(
        `mutation SetDefaultLocale { workspace { update(input: { defaultLocale: ${JSON.stringify(locale)} }) { defaultLocale } } }`,
      );
      field.value = data.workspace.update.defaultLocale;
      saved.replaceChildren(noticeBox(`Default locale set to ${field.value}.`));
    } catch (error) {
      setError((error as Error).message.replace(/^defaultLocale: /, ''));
      field.focus();
    }
  };
  const form = h(
    'form',
    {
      class: 'locale-form',
      novalidate: true,
      onsubmit: checkedSubmit(save, check, send),
    },
    h('div', { class: 'copyable' }, field, save),
    h('p', { class: 'hint', id: hintId }, LOCALE_HINT),
    slot,
    saved,
  );
  return form;
}

function copyable(value: string, what: string, buttonLabel: string): HTMLElement {
  const id = uid('copy');
  const field = h('input', {
    id,
    class: 'copy-field',
    value,
    readonly: true,
    'aria-label': what,
    size: Math.min(80, Math.max(20, value.length + 2)),
  });
  return h(
    'div',
    { class: 'copyable' },
    field,
    copyButton(() => value, buttonLabel, field),
  );
}

export async function renderWorkspace(ctx: PageContext): Promise<void> {
  ctx.setTitle('Workspace settings');
  const data = await gql<{ workspace: { current: WorkspaceInfo } }>(
    'query AdminWorkspace { workspace { current { id orgSlug slug role deliveryPath writeBudget writeBudgetIsDefault defaultLocale } } }',
  );
  if (!ctx.isCurrent()) return;
  const workspace = data.workspace.current;
  const deliveryUrl = `${location.origin}${workspace.deliveryPath}`;
  const adminUrl = `${location.origin}/graphql`;
  replaceChildren(
    ctx.main,
    pageHeader('Workspace'),
    h(
      'dl',
      { class: 'settings' },
      h('dt', null, 'Workspace id'),
      h(
        'dd',
        null,
        copyable(workspace.id, 'Workspace id', 'Copy id'),
        h('p', { class: 'hint' }, 'Send it as the x-workspace-id header with every admin API request.'),
      ),
      h('dt', null, 'Organisation'),
      h('dd', null, h('code', null, workspace.orgSlug)),
      h('dt', null, 'Workspace'),
      h('dd', null, h('code', null, workspace.slug)),
      h('dt', null, 'Your role'),
      h('dd', null, workspace.role),
      h('dt', null, 'Admin API'),
      h(
        'dd',
        null,
        copyable(adminUrl, 'Admin API URL', 'Copy URL'),
        h('p', { class: 'hint' }, 'POST GraphQL with an API token (Authorization: Bearer …) and the workspace id.'),
      ),
      h('dt', null, 'Delivery URL'),
      h(
        'dd',
        null,
        copyable(deliveryUrl, 'Delivery URL', 'Copy URL'),
        h('p', { class: 'hint' }, 'Read-only, no token: records of models whose delivery access is public.'),
      ),
      h('dt', null, 'Default locale'),
      h('dd', null, defaultLocaleSetting(workspace)),
      h('dt', null, 'Write budget'),
      h(
        'dd',
        null,
        `${workspace.writeBudget.toLocaleString()} record writes per minute`,
        workspace.writeBudgetIsDefault ? ' (the server default)' : ' (set for this workspace)',
        h(
          'p',
          { class: 'hint' },
          'Counts writes made with API tokens; writes made in this application are not counted. Operators change it with content-service workspace set-budget.',
        ),
      ),
    ),
    h('p', null, h('a', { href: '#/settings/tokens' }, 'Manage API tokens')),
  );
}
