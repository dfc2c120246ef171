// The admin application: session, shell (navigation, workspace switcher, sign-out) and a hash router.
// Every page is a function that renders into <main>; data comes from the GraphQL API.
import * as api from './api.js';
import { h, replaceChildren } from './dom.js';
import { restoreFocus } from './focus-return.js';
import { invalidateModels } from './models-cache.js';
import { renderImport } from './page-import.js';
import { renderMedia } from './page-media.js';
import { renderMembers } from './page-members.js';
import { renderModelEditor } from './page-model-editor.js';
import { renderModels } from './page-models.js';
import { renderRecordForm } from './page-record-form.js';
import { renderRecords } from './page-records.js';
import { renderSchedules } from './page-schedules.js';
import { renderSignIn } from './page-sign-in.js';
import { renderTokens } from './page-tokens.js';
import { renderWebhookDetail } from './page-webhooks-detail.js';
import { renderWebhooks } from './page-webhooks.js';
import { renderWelcome } from './page-welcome.js';
import { renderWorkspace } from './page-workspace.js';
import type { PageContext } from './page.js';
import { mayChangeWorkspaceSettings, type Session, type SessionWorkspace } from './types.js';
import { alertBox, closeDialogs, errorText, noticeBox, setAnnouncer } from './ui.js';

const WORKSPACE_KEY = 'content-service.admin.workspace';

type Page = (ctx: PageContext) => Promise<void> | void;

const routes: { pattern: RegExp; names: string[]; page: Page }[] = [
  route('/models', renderModels),
  route('/models/new', renderModelEditor),
  route('/models/:modelId/edit', renderModelEditor),
  route('/models/:modelId/records', renderRecords),
  route('/models/:modelId/records/new', renderRecordForm),
  route('/models/:modelId/records/:recordId', renderRecordForm),
  route('/models/:modelId/import', renderImport),
  route('/media', renderMedia),
  route('/schedules', renderSchedules),
  route('/settings/workspace', renderWorkspace),
  route('/settings/tokens', renderTokens),
  route('/settings/members', renderMembers),
  route('/settings/webhooks', renderWebhooks),
  route('/settings/webhooks/:webhookId', renderWebhookDetail),
];

function route(path: string, page: Page): { pattern: RegExp; names: string[]; page: Page } {
  const names: string[] = [];
  const source = path.replace(/:([a-zA-Z]+)/g, (_match, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { pattern: new RegExp(`^${source}$`), names, page };
}

const state: {
  session: Session | null;
  workspace: SessionWorkspace | null;
  flash: string | null;
  /** The message shown at the top of the current page, kept by a redirect. */
  pageFlash: string | null;
  renderCount: number;
  afterSignIn: string | null;
} = {
  session: null,
  workspace: null,
  flash: null,
  pageFlash: null,
  renderCount: 0,
  afterSignIn: null,
};

const root = document.getElementById('app')!;
const main = h('main', { id: 'main', tabindex: '-1' });
const announcer = h('div', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
setAnnouncer(announcer);

function navigate(hash: string): void {
  if (location.hash === hash) void render();
  else location.hash = hash;
}

function redirect(hash: string): void {
  state.flash = state.pageFlash;
  history.replaceState(history.state, '', hash);
  void render();
}

function chooseWorkspace(session: Session): SessionWorkspace | null {
  const remembered = localStorage.getItem(WORKSPACE_KEY);
  return session.workspaces.find((workspace) => workspace.id === remembered) ?? session.workspaces[0] ?? null;
}

function acceptSession(session: Session | null): void {
  state.session = session;
  state.workspace = session ? chooseWorkspace(session) : null;
  api.setWorkspace(state.workspace?.id ?? '');
  invalidateModels();
}

function workspaceLabel(workspace: SessionWorkspace): string {
  return `${workspace.orgSlug} / ${workspace.slug} (${workspace.role})`;
}

function header(session: Session, path: string): HTMLElement {
  const navLink = (href: string, label: string, active: boolean) =>
    h('a', { href, 'aria-current': active ? 'page' : null }, label);
  const switcher = h(
    'select',
    {
      id: 'workspace-switcher',
      onchange: () => {
        const chosen = session.workspaces.find((workspace) => workspace.id === switcher.value);
        if (!chosen) return;
        localStorage.setItem(WORKSPACE_KEY, chosen.id);
        state.workspace = chosen;
        api.setWorkspace(chosen.id);
        invalidateModels();
        state.flash = `Switched to workspace ${workspaceLabel(chosen)}.`;
        navigate('#/models');
      },
    },
    session.workspaces.map((workspace) => h('option', { value: workspace.id }, workspaceLabel(workspace))),
  );
  switcher.value = state.workspace?.id ?? '';
  const skip = h(
    'a',
    {
      class: 'skip-link',
      href: '#main',
      onclick: (event: Event) => {
        event.preventDefault();
        main.focus();
      },
    },
    'Skip to content',
  );
  const menu = h('div', {
    class: 'topbar-menu',
    id: 'topbar-menu',
    onkeydown: (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || menuButton.getAttribute('aria-expanded') !== 'true') return;
      menuButton.click();
      menuButton.focus();
    },
  });
  // Below 700 px the navigation and the user's controls fold behind this button (see admin.css); it is hidden above.
  const menuButton = h(
    'button',
    {
      type: 'button',
      class: 'button menu-button',
      'aria-expanded': 'false',
      'aria-controls': 'topbar-menu',
      onclick: () => {
        const open = menuButton.getAttribute('aria-expanded') !== 'true';
        menuButton.setAttribute('aria-expanded', String(open));
        menu.classList.toggle('open', open);
      },
    },
    'Menu',
  );
  menu.append(
    h(
      'nav',
      { 'aria-label': 'Main' },
      navLink('#/models', 'Models', path.startsWith('/models')),
      navLink('#/media', 'Media', path === '/media'),
      navLink('#/schedules', 'Schedules', path === '/schedules'),
      navLink('#/settings/workspace', 'Workspace', path === '/settings/workspace'),
      navLink('#/settings/tokens', 'API tokens', path === '/settings/tokens'),
      mayChangeWorkspaceSettings(state.workspace?.role)
        ? navLink('#/settings/webhooks', 'Webhooks', path.startsWith('/settings/webhooks'))
        : null,
      mayChangeWorkspaceSettings(state.workspace?.role)
        ? navLink('#/settings/members', 'Members', path === '/settings/members')
        : null,
    ),
    h(
      'div',
      { class: 'topbar-end' },
      h('label', { class: 'switcher', for: 'workspace-switcher' }, 'Workspace'),
      switcher,
      h('span', { class: 'user', title: 'Signed in as' }, session.user.email),
      h(
        'button',
        {
          type: 'button',
          class: 'button',
          onclick: async () => {
            try {
              await api.signOut();
            } catch {
              // The session is forgotten here either way.
            }
            acceptSession(null);
            state.flash = 'You are signed out.';
            navigate('#/sign-in');
          },
        },
        'Sign out',
      ),
    ),
  );
  return h(
    'header',
    { class: 'topbar' },
    skip,
    h('a', { class: 'brand', href: '#/models' }, 'Content Service'),
    menuButton,
    menu,
  );
}

function parseHash(): { path: string; query: URLSearchParams } {
  const raw = location.hash.replace(/^#/, '') || '/models';
  const [path = '/models', query = ''] = raw.split('?');
  return { path: path === '/' ? '/models' : path, query: new URLSearchParams(query) };
}

async function render(): Promise<void> {
  const count = ++state.renderCount;
  const isCurrent = () => count === state.renderCount;
  closeDialogs();
  const { path, query } = parseHash();
  const content = h('div', { class: 'page' });
  const flash = state.flash;
  state.flash = null;
  state.pageFlash = flash;

  // A one-time sign-in link (member.add): the new member chooses a password, whoever is signed in here.
  if (path === '/welcome') {
    replaceChildren(root, main, announcer);
    replaceChildren(main, content);
    document.title = 'Welcome · Content Service';
    await renderWelcome(content, query.get('token') ?? '', (session) => {
      acceptSession(session);
      state.flash = `Your password is set. You are signed in as ${session.user.email}.`;
      navigate('#/models');
    });
    return;
  }

  if (!state.session || path === '/sign-in') {
    if (state.session && path === '/sign-in') {
      navigate('#/models');
      return;
    }
    if (path !== '/sign-in') state.afterSignIn = location.hash;
    replaceChildren(root, main, announcer);
    replaceChildren(main, flash ? noticeBox(flash) : null, content);
    document.title = 'Sign in · Content Service';
    renderSignIn(content, (session) => {
      acceptSession(session);
      const target = state.afterSignIn && state.afterSignIn !== '#/sign-in' ? state.afterSignIn : '#/models';
      state.afterSignIn = null;
      navigate(target);
    });
    return;
  }

  const session = state.session;
  replaceChildren(root, header(session, path), main, announcer);
  if (!state.workspace) {
    replaceChildren(main, content);
    content.append(
      h('h1', null, 'No workspace'),
      alertBox('Your user is not a member of any workspace. Ask an owner to add you (content-service bootstrap --role).'),
    );
    return;
  }
  const workspace = state.workspace;
  const match = routes
    .map((candidate) => ({ candidate, found: candidate.pattern.exec(path) }))
    .find((entry) => entry.found !== null);
  replaceChildren(main, flash ? noticeBox(flash) : null, content);
  if (!match) {
    document.title = 'Not found · Content Service';
    content.append(h('h1', { tabindex: '-1' }, 'Page not found'), h('p', null, h('a', { href: '#/models' }, 'Go to the models')));
    return;
  }
  const params: Record<string, string> = {};
  match.candidate.names.forEach((name, index) => {
    params[name] = decodeURIComponent(match.found![index + 1] ?? '');
  });
  content.setAttribute('aria-busy', 'true');
  content.append(h('p', { class: 'loading' }, 'Loading…'));
  const ctx: PageContext = {
    main: content,
    session,
    workspace,
    params,
    query,
    navigate,
    redirect,
    flash: (message: string) => {
      state.flash = message;
    },
    isCurrent,
    setTitle: (title: string) => {
      document.title = `${title} · Content Service`;
    },
  };
  try {
    await match.candidate.page(ctx);
  } catch (error) {
    if (!isCurrent()) return;
    replaceChildren(content, h('h1', { tabindex: '-1' }, 'Something went wrong'), alertBox(errorText(error)));
  }
  if (!isCurrent()) return;
  content.removeAttribute('aria-busy');
  // Focus moves to the page heading so keyboard and screen reader users start at the new page, unless the page
  // was re-rendered by one of its own controls (a filter applied), which gets the focus back.
  if (count > 1 && !restoreFocus(content)) content.querySelector<HTMLElement>('h1')?.focus();
}

api.onUnauthenticated(() => {
  if (!state.session) return;
  acceptSession(null);
  state.flash = 'Your session has ended. Sign in again.';
  state.afterSignIn = location.hash;
  navigate('#/sign-in');
});

async function boot(): Promise<void> {
  try {
    acceptSession(await api.getSession());
  } catch (error) {
    replaceChildren(root, main);
    replaceChildren(main, h('h1', null, 'Content Service'), alertBox(errorText(error)));
    return;
  }
  window.addEventListener('hashchange', () => void render());
  await render();
}

void boot();
