import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

const require = createRequire(import.meta.url);

const ASSETS_PATH = '/graphiql/assets';

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
# 2. Press the refresh icon (bottom left) to load the schema.
# 3. Run: a list, even empty, means both are accepted.
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
  var fetcher = GraphiQL.createFetcher({ url: '/graphql' });
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      storage: storage,
      defaultQuery: ${JSON.stringify(DEFAULT_QUERY)},
      defaultHeaders: ${JSON.stringify(DEFAULT_HEADERS)},
      defaultEditorToolsVisibility: 'headers',
      shouldPersistHeaders: false,
    }),
  );
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
