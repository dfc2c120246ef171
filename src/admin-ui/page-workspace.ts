// Settings → Workspace: what a script needs to talk to this workspace (its id, the delivery URL) and its limits.
import { gql } from './api.js';
import { h, replaceChildren, uid } from './dom.js';
import type { PageContext } from './page.js';
import { copyButton, pageHeader } from './ui.js';

interface CurrentWorkspace {
  id: string;
  orgSlug: string;
  slug: string;
  role: string;
  deliveryPath: string;
  writeBudget: number;
  writeBudgetIsDefault: boolean;
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
  const data = await gql<{ workspace: { current: CurrentWorkspace } }>(
    'query AdminWorkspace { workspace { current { id orgSlug slug role deliveryPath writeBudget writeBudgetIsDefault } } }',
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
