// Settings → Members: list, add with a role (a new user's one-time sign-in link is shown once), change a role,
// remove with a confirmation. The server decides who may do what (only an owner touches owners; the last owner
// stays); its refusals are shown as they come.
// The page's state is members-state.ts, its calls members-api.ts.
import { h, listTable, uid } from './dom.js';
import { checkedSubmit } from './form-submit.js';
import { addMemberCall, listMembers, removeMemberCall, setRoleCall } from './members-api.js';
import { addedPanelKind, emailFieldError, emailProblem, memberRow, roleChoices, type Member } from './members-state.js';
import type { PageContext } from './page.js';
import type { Role } from './types.js';
import { announce, button, confirmDialog, copyButton, errorArea, input, labelled, ownerAdminPage, select } from './ui.js';
import { formatDateTime } from './values.js';

interface MembersPage {
  ctx: PageContext;
  errors: ReturnType<typeof errorArea>;
  listArea: HTMLElement;
  linkArea: HTMLElement;
}

async function loadList(page: MembersPage): Promise<void> {
  const { ctx } = page;
  const members = await listMembers();
  if (!ctx.isCurrent()) return;
  const viewer = { email: ctx.session.user.email, role: ctx.workspace.role };
  const row = (member: Member) => {
    const { isYou, mayTouch, choices } = memberRow(member, viewer);
    const roleSelect = select(choices, member.role, {
      'aria-label': `Role of ${member.email}`,
      disabled: mayTouch ? null : true,
      onchange: () => void changeRole(page, member, roleSelect),
    });
    return h(
      'tr',
      { 'data-email': member.email },
      h('th', { scope: 'row' }, member.email, isYou ? h('span', { class: 'muted' }, ' (you)') : null),
      h('td', null, roleSelect),
      h('td', null, member.hasPassword ? 'Set' : 'Not yet'),
      h('td', null, member.addedAt ? formatDateTime(member.addedAt) : '—'),
      h(
        'td',
        { class: 'actions' },
        mayTouch
          ? button('Remove', () => void remove(page, member), {
              class: 'button button-danger',
              'aria-label': `Remove ${member.email}`,
            })
          : null,
      ),
    );
  };
  page.listArea.replaceChildren(
    listTable('table members', 'Members of this workspace', ['Email', 'Role', 'Password', 'Added'], members.map(row), {
      actions: true,
    }),
  );
}

async function changeRole(page: MembersPage, member: Member, control: HTMLSelectElement): Promise<void> {
  page.errors.clear();
  try {
    await setRoleCall(member.userId, control.value);
    announce(`${member.email} is now ${control.value}.`);
    member.role = control.value as Role;
  } catch (error) {
    control.value = member.role;
    page.errors.show(error, `The role of ${member.email} was not changed.`);
  }
}

async function remove(page: MembersPage, member: Member): Promise<void> {
  page.errors.clear();
  const confirmed = await confirmDialog({
    title: `Remove ${member.email}?`,
    message: h(
      'p',
      null,
      `${member.email} loses access to this workspace at once: their API tokens of this workspace are revoked and their admin sessions here end. Their user stays, with access to other workspaces.`,
    ),
    confirmLabel: 'Remove member',
    danger: true,
  });
  if (!confirmed) return;
  try {
    await removeMemberCall(member.userId);
    announce(`${member.email} removed.`);
    await loadList(page);
    page.listArea.querySelector<HTMLElement>('caption')?.focus();
  } catch (error) {
    page.errors.show(error, `${member.email} was not removed.`);
  }
}

function addMemberForm(page: MembersPage): HTMLElement {
  const { errors } = page;
  const choices = roleChoices(page.ctx.workspace.role);
  const email = input({ type: 'email', name: 'memberEmail', autocomplete: 'off', required: true });
  const role = select(choices, 'editor', { name: 'memberRole' });
  const emailRow = labelled('Email', email, { required: true });
  const roleRow = labelled('Role', role, {
    hint: 'Viewers read; editors also write records; admins also change models and settings; owners also manage owners.',
  });
  const submit = h('button', { type: 'submit', class: 'button button-primary' }, 'Add member');
  const check = () => {
    errors.clear();
    emailRow.setError(null);
    const problem = emailProblem(email.value);
    if (problem === null) return true;
    emailRow.setError(problem);
    email.focus();
    return false;
  };
  const send = async () => {
    try {
      const added = await addMemberCall(email.value.trim(), role.value);
      email.value = '';
      showAdded(page, added.member, added.signInLink, added.signInLinkExpiresAt, email);
      await loadList(page);
    } catch (error) {
      errors.show(error, 'The member was not added.');
      const atField = emailFieldError((error as Error).message);
      if (atField !== null) emailRow.setError(atField);
    }
  };
  return h(
    'form',
    {
      // The API tokens page's form layout.
      class: 'token-form member-form',
      novalidate: true,
      'aria-labelledby': 'add-member-title',
      onsubmit: checkedSubmit(submit, check, send),
    },
    h('h2', { id: 'add-member-title' }, 'Add a member'),
    h('div', { class: 'form-columns' }, emailRow.element, roleRow.element),
    h('div', { class: 'form-actions' }, submit),
  );
}

function linkBody(link: string, expiresAt: string | null): HTMLElement[] {
  const fieldId = uid('link');
  const field = h('input', {
    id: fieldId,
    class: 'copy-field secret',
    value: link,
    readonly: true,
    size: Math.min(link.length + 2, 80),
  });
  return [
    h(
      'p',
      null,
      h('strong', null, 'Pass this sign-in link on to them; it is shown only this once.'),
      ` It works once, until ${expiresAt ? formatDateTime(expiresAt) : 'it expires'}: they choose a password there and are signed in. No email is sent.`,
    ),
    h(
      'div',
      { class: 'copyable' },
      h('label', { for: fieldId, class: 'visually-hidden' }, 'The sign-in link'),
      field,
      copyButton(() => link, 'Copy link', field),
    ),
  ];
}

function showAdded(
  page: MembersPage,
  member: Member,
  link: string | null,
  expiresAt: string | null,
  email: HTMLInputElement,
): void {
  const titleId = uid('added-title');
  const done = button('Done', () => {
    page.linkArea.replaceChildren();
    email.focus();
  });
  const kind = addedPanelKind(link, member);
  const body =
    kind === 'link'
      ? linkBody(link!, expiresAt)
      : kind === 'has-password'
        ? [h('p', null, `${member.email} already has a password and can sign in now.`)]
        : [
            h(
              'p',
              null,
              `${member.email} has no password yet and is a member of other workspaces, so no sign-in link is given here. An operator sets their password with `,
              h('code', null, `content-service user set-password --email ${member.email} --password-stdin`),
              '.',
            ),
          ];
  const panel = h(
    'section',
    { class: 'secret-panel', 'aria-labelledby': titleId, tabindex: '-1' },
    h('h2', { id: titleId }, `${member.email} added as ${member.role}`),
    ...body,
    done,
  );
  page.linkArea.replaceChildren(panel);
  panel.focus();
}

export async function renderMembers(ctx: PageContext): Promise<void> {
  ctx.setTitle('Members');
  const page: MembersPage = {
    ctx,
    errors: errorArea(),
    linkArea: h('div', { class: 'secret-area' }),
    listArea: h('div'),
  };
  await ownerAdminPage(ctx, {
    title: 'Members',
    parts: [page.errors.element, page.linkArea, addMemberForm(page), h('h2', null, 'Members'), page.listArea],
    load: () => loadList(page),
    manages: 'members',
  });
}
