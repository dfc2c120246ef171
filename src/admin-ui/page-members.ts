// Settings → Members: list, add with a role (a new user's one-time sign-in link is shown once), change a role,
// remove with a confirmation. The server decides who may do what (only an owner touches owners; the last owner
// stays); its refusals are shown as they come.
import { ApiError, gql } from './api.js';
import { h, replaceChildren, uid } from './dom.js';
import type { PageContext } from './page.js';
import type { Role } from './types.js';
import { alertBox, announce, button, confirmDialog, copyButton, errorArea, input, labelled, pageHeader, select } from './ui.js';
import { formatDateTime } from './values.js';

interface Member {
  userId: string;
  email: string;
  role: Role;
  hasPassword: boolean;
  addedAt: string | null;
}

const MEMBER_FIELDS = 'userId email role hasPassword addedAt';
const ROLE_OPTIONS: { value: Role; label: string }[] = [
  { value: 'owner', label: 'Owner' },
  { value: 'admin', label: 'Admin' },
  { value: 'editor', label: 'Editor' },
  { value: 'viewer', label: 'Viewer' },
];

export async function renderMembers(ctx: PageContext): Promise<void> {
  ctx.setTitle('Members');
  const errors = errorArea();
  const linkArea = h('div', { class: 'secret-area' });
  const listArea = h('div');
  // Only an owner grants the owner role (the server refuses it to an admin); the choice is not offered then.
  const roleChoices = ctx.workspace.role === 'owner' ? ROLE_OPTIONS : ROLE_OPTIONS.filter((option) => option.value !== 'owner');

  const loadList = async () => {
    const data = await gql<{ member: { list: Member[] } }>(`query AdminMembers { member { list { ${MEMBER_FIELDS} } } }`);
    if (!ctx.isCurrent()) return;
    const members = data.member.list;
    listArea.replaceChildren(
      h(
        'div',
        { class: 'table-scroll' },
        h(
          'table',
          { class: 'table members' },
          h('caption', { tabindex: '-1' }, 'Members of this workspace'),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ['Email', 'Role', 'Password', 'Added'].map((title) => h('th', { scope: 'col' }, title)),
              h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
            ),
          ),
          h(
            'tbody',
            null,
            members.map((member) => {
              const isYou = member.email === ctx.session.user.email;
              const mayTouch = member.role !== 'owner' || ctx.workspace.role === 'owner';
              const choices = member.role === 'owner' ? ROLE_OPTIONS : roleChoices;
              const roleSelect = select(choices, member.role, {
                'aria-label': `Role of ${member.email}`,
                disabled: mayTouch ? null : true,
                onchange: () => void changeRole(member, roleSelect),
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
                    ? button('Remove', () => void remove(member), {
                        class: 'button button-danger',
                        'aria-label': `Remove ${member.email}`,
                      })
                    : null,
                ),
              );
            }),
          ),
        ),
      ),
    );
  };

  const changeRole = async (member: Member, control: HTMLSelectElement) => {
    errors.clear();
    try {
      await gql('mutation SetMemberRole($id: ID!, $role: String!) { member { setRole(userId: $id, role: $role) { userId } } }', {
        id: member.userId,
        role: control.value,
      });
      announce(`${member.email} is now ${control.value}.`);
      member.role = control.value as Role;
    } catch (error) {
      control.value = member.role;
      errors.show(error, `The role of ${member.email} was not changed.`);
    }
  };

  const remove = async (member: Member) => {
    errors.clear();
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
      await gql('mutation RemoveMember($id: ID!) { member { remove(userId: $id) { id deleted } } }', { id: member.userId });
      announce(`${member.email} removed.`);
      await loadList();
      listArea.querySelector<HTMLElement>('caption')?.focus();
    } catch (error) {
      errors.show(error, `${member.email} was not removed.`);
    }
  };

  const email = input({ type: 'email', name: 'memberEmail', autocomplete: 'off', required: true });
  const role = select(roleChoices, 'editor', { name: 'memberRole' });
  const emailRow = labelled('Email', email, { required: true });
  const roleRow = labelled('Role', role, {
    hint: 'Viewers read; editors also write records; admins also change models and settings; owners also manage owners.',
  });
  const submit = h('button', { type: 'submit', class: 'button button-primary' }, 'Add member');
  const form = h(
    'form',
    {
      // The API tokens page's form layout.
      class: 'token-form member-form',
      novalidate: true,
      'aria-labelledby': 'add-member-title',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        errors.clear();
        emailRow.setError(null);
        if (email.value.trim() === '') {
          emailRow.setError('Enter the email of the person to add.');
          email.focus();
          return;
        }
        submit.disabled = true;
        try {
          const data = await gql<{
            member: { add: { member: Member; signInLink: string | null; signInLinkExpiresAt: string | null } };
          }>(
            `mutation AddMember($email: String!, $role: String!) { member { add(email: $email, role: $role) { member { ${MEMBER_FIELDS} } signInLink signInLinkExpiresAt } } }`,
            { email: email.value.trim(), role: role.value },
          );
          const added = data.member.add;
          email.value = '';
          showAdded(added.member, added.signInLink, added.signInLinkExpiresAt);
          await loadList();
        } catch (error) {
          errors.show(error, 'The member was not added.');
          const message = (error as Error).message;
          if (/^email:/.test(message)) emailRow.setError(message.replace(/^email: /, ''));
        } finally {
          submit.disabled = false;
        }
      },
    },
    h('h2', { id: 'add-member-title' }, 'Add a member'),
    h('div', { class: 'form-columns' }, emailRow.element, roleRow.element),
    h('div', { class: 'form-actions' }, submit),
  );

  const showAdded = (member: Member, link: string | null, expiresAt: string | null) => {
    const titleId = uid('added-title');
    const done = button('Done', () => {
      linkArea.replaceChildren();
      email.focus();
    });
    let body: HTMLElement[];
    if (link) {
      const fieldId = uid('link');
      const field = h('input', {
        id: fieldId,
        class: 'copy-field secret',
        value: link,
        readonly: true,
        size: Math.min(link.length + 2, 80),
      });
      body = [
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
    } else if (member.hasPassword) {
      body = [h('p', null, `${member.email} already has a password and can sign in now.`)];
    } else {
      body = [
        h(
          'p',
          null,
          `${member.email} has no password yet and is a member of other workspaces, so no sign-in link is given here. An operator sets their password with `,
          h('code', null, `content-service user set-password --email ${member.email} --password-stdin`),
          '.',
        ),
      ];
    }
    const panel = h(
      'section',
      { class: 'secret-panel', 'aria-labelledby': titleId, tabindex: '-1' },
      h('h2', { id: titleId }, `${member.email} added as ${member.role}`),
      ...body,
      done,
    );
    linkArea.replaceChildren(panel);
    panel.focus();
  };

  replaceChildren(ctx.main, pageHeader('Members'), errors.element, linkArea, form, h('h2', null, 'Members'), listArea);
  try {
    await loadList();
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'FORBIDDEN') throw error;
    replaceChildren(
      ctx.main,
      pageHeader('Members'),
      alertBox(`Only owners and admins of a workspace manage its members; your role here is ${ctx.workspace.role}.`),
    );
  }
}
