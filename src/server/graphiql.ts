import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

const require = createRequire(import.meta.url);

const ASSETS_PATH = '/graphiql/assets';
/** Where the admin application remembers the workspace chosen last (src/admin-ui/main.ts). */
const ADMIN_WORKSPACE_KEY = 'content-service.admin.workspace';

/**
 * The page runs only scripts served from this origin (nothing inline, no eval), talks only to this origin, and
 * cannot be framed: a script injected into it could not run, and another site cannot overlay it. Styles come from
 * this origin too, except the `<style>` elements GraphiQL's dialogs add while open (their scroll lock): inline
 * style elements are allowed, inline style attributes are not (style-src-attr falls back to style-src).
 * Fonts and images may be data: URLs (GraphiQL's stylesheet embeds its fonts).
 */
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "style-src-elem 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const PAGE_HEADERS = {
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

type Asset = { type: string } & ({ pkg: string; file: string } | { text: string });

const DEFAULT_QUERY = `# 1. Set your token and workspace id in the Headers tab below.
#    They stay in this page's memory only: a reload forgets them.
#    (Signed in to the admin application at /admin? Reload this page:
#    it then uses that session, no token needed.)
# 2. Press the refresh icon (bottom left) to load the schema.
# 3. Run: a list, even empty, means both are accepted.
query Models {
  model {
    list { id slug name }
  }
}
`;

/** The first lines of the default query when the admin session is used; the page adds who and which workspace. */
const SESSION_QUERY = `# Queries here run with your admin application session: no token needed.
# The workspace is the x-workspace-id of the Headers tab below (yours: see
# workspace { current }); an Authorization header there uses that token instead.
query Models {
  model {
    list { id slug name }
  }
}
`;

const DEFAULT_HEADERS = JSON.stringify({ Authorization: 'Bearer cs_your_token', 'x-workspace-id': 'your-workspace-id' }, null, 2);

/**
 * Starts GraphiQL. Its state (tabs, query, headers, the token in them) is kept in memory only, never in
 * localStorage, where it would outlive the tab and be readable by any script of this origin.
 *
 * When the browser has an admin application session (GET /admin/session answers), requests carry it as the admin
 * application's do: the HttpOnly cookie, sent by the browser, and the session's CSRF token in x-csrf-token, which
 * only a script of this origin can read from /admin/session (no CORS there) and set as a header; another site can
 * make the browser send the cookie but not the header, and is refused. The workspace is the one the admin
 * application last chose (its localStorage key), else the first, as x-workspace-id in the Headers tab. A request
 * with an Authorization header is sent as it is: the token decides, as on the server. A 403 about the CSRF token
 * (signed in again in another tab) reads the session again and repeats the request once.
 */
const START_SCRIPT = `'use strict';
(function () {
  var memory = new Map();
  var storage = {
    getItem: function (key) { return memory.has(key) ? memory.get(key) : null; },
    setItem: function (key, value) { memory.set(key, String(value)); },
    removeItem: function (key) { memory.delete(key); },
    clear: function () { memory.clear(); },
    get length() { return memory.size; },
  };
  var session = null;
  function readSession() {
    return fetch('/admin/session', { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then(function (response) { return response.status === 200 ? response.json() : null; })
      .catch(function () { return null; });
  }
  function send(url, init, headers) {
    return fetch(url, Object.assign({}, init, { headers: headers, credentials: 'same-origin' }));
  }
  function sessionFetch(url, init) {
    var headers = new Headers((init && init.headers) || {});
    if (!session || headers.has('authorization')) return send(url, init, headers);
    headers.set('x-csrf-token', session.csrfToken);
    return send(url, init, headers).then(function (response) {
      if (response.status !== 403) return response;
      return response.clone().text().then(function (text) {
        if (!/CSRF/i.test(text)) return response;
        return readSession().then(function (fresh) {
          if (!fresh) return response;
          session = fresh;
          headers.set('x-csrf-token', fresh.csrfToken);
          return send(url, init, headers);
        });
      });
    });
  }
  function chosenWorkspace(found) {
    var remembered = null;
    try { remembered = window.localStorage.getItem(${JSON.stringify(ADMIN_WORKSPACE_KEY)}); } catch (error) { remembered = null; }
    var workspaces = found.workspaces || [];
    for (var i = 0; i < workspaces.length; i++) if (workspaces[i].id === remembered) return workspaces[i];
    return workspaces[0] || null;
  }
  function start(found) {
    session = found;
    var workspace = found ? chosenWorkspace(found) : null;
    var signedIn = Boolean(found && workspace);
    var query = signedIn
      ? '# Signed in as ' + found.user.email + ', workspace ' + workspace.orgSlug + ' / ' + workspace.slug + ' (' + workspace.role + ').\\n' + ${JSON.stringify(SESSION_QUERY)}
      : ${JSON.stringify(DEFAULT_QUERY)};
    var headers = signedIn ? JSON.stringify({ 'x-workspace-id': workspace.id }, null, 2) : ${JSON.stringify(DEFAULT_HEADERS)};
    var fetcher = GraphiQL.createFetcher({ url: '/graphql', fetch: sessionFetch });
    ReactDOM.createRoot(document.getElementById('graphiql')).render(
      React.createElement(GraphiQL, {
        fetcher: fetcher,
        storage: storage,
        defaultQuery: query,
        defaultHeaders: headers,
        defaultEditorToolsVisibility: 'headers',
        shouldPersistHeaders: false,
      }),
    );
  }
  readSession().then(start);
})();
`;

const PAGE_STYLE = 'html, body, #graphiql { height: 100%; margin: 0; }\n';

/** GraphiQL and React from their npm packages, served by the service itself: no CDN. */
const ASSETS: Record<string, Asset> = {
  'react.js': { pkg: 'react', file: 'umd/react.production.min.js', type: 'text/javascript' },
  'react-dom.js': { pkg: 'react-dom', file: 'umd/react-dom.production.min.js', type: 'text/javascript' },
  'graphiql.js': { pkg: 'graphiql', file: 'graphiql.min.js', type: 'text/javascript' },
  'graphiql.css': { pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css' },
  'start.js': { text: START_SCRIPT, type: 'text/javascript' },
  'page.css': { text: PAGE_STYLE, type: 'text/css' },
};

/** Package files by path from the package's root: React's UMD builds are not in its `exports`. */
function readPackageFile(pkg: string, file: string): Buffer {
  return readFileSync(join(dirname(require.resolve(`${pkg}/package.json`)), file));
}

function readAsset(asset: Asset): Buffer {
  return 'text' in asset ? Buffer.from(asset.text) : readPackageFile(asset.pkg, asset.file);
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Content Service · GraphiQL</title>
  <link rel="stylesheet" href="${ASSETS_PATH}/graphiql.css">
  <link rel="stylesheet" href="${ASSETS_PATH}/page.css">
</head>
<body>
  <div id="graphiql">Loading GraphiQL…</div>
  <script src="${ASSETS_PATH}/react.js"></script>
  <script src="${ASSETS_PATH}/react-dom.js"></script>
  <script src="${ASSETS_PATH}/graphiql.js"></script>
  <script src="${ASSETS_PATH}/start.js"></script>
</body>
</html>
`;

/** Answers with the GraphiQL page, its Content-Security-Policy and the other headers above. */
export function sendGraphiqlPage(reply: FastifyReply) {
  return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(PAGE);
}

/** Serves GraphiQL's files under /graphiql/assets. */
export function registerGraphiqlAssets(app: FastifyInstance): void {
  const cache = new Map<string, Buffer>();
  app.get<{ Params: { name: string } }>(`${ASSETS_PATH}/:name`, async (request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    const asset = Object.hasOwn(ASSETS, request.params.name) ? ASSETS[request.params.name] : undefined;
    if (!asset) return reply.code(404).send({ errors: [{ message: 'Not found', extensions: { code: 'NOT_FOUND' } }] });
    let content = cache.get(request.params.name);
    if (!content) {
      content = readAsset(asset);
      cache.set(request.params.name, content);
    }
    return reply.type(`${asset.type}; charset=utf-8`).header('cache-control', 'public, max-age=86400').send(content);
  });
}
