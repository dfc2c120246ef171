import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);

/** GraphiQL and React from their npm packages, served by the service itself: no CDN. */
const ASSETS: Record<string, { pkg: string; file: string; type: string }> = {
  'react.js': { pkg: 'react', file: 'umd/react.production.min.js', type: 'text/javascript' },
  'react-dom.js': { pkg: 'react-dom', file: 'umd/react-dom.production.min.js', type: 'text/javascript' },
  'graphiql.js': { pkg: 'graphiql', file: 'graphiql.min.js', type: 'text/javascript' },
  'graphiql.css': { pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css' },
};

/** Package files by path from the package's root: React's UMD builds are not in its `exports`. */
function readPackageFile(pkg: string, file: string): Buffer {
  return readFileSync(join(dirname(require.resolve(`${pkg}/package.json`)), file));
}

const DEFAULT_QUERY = `# 1. Set your token and workspace id in the Headers tab below.
# 2. Press the refresh icon (bottom left) to load the schema.
# 3. Run: a list, even empty, means both are accepted.
query Models {
  model {
    list { id slug name }
  }
}
`;

const DEFAULT_HEADERS = JSON.stringify(
  { Authorization: 'Bearer cs_your_token', 'x-workspace-id': 'your-workspace-id' },
  null,
  2,
);

export function graphiqlPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Content Service · GraphiQL</title>
  <link rel="stylesheet" href="/graphiql/assets/graphiql.css">
  <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
  <div id="graphiql">Loading GraphiQL…</div>
  <script src="/graphiql/assets/react.js"></script>
  <script src="/graphiql/assets/react-dom.js"></script>
  <script src="/graphiql/assets/graphiql.js"></script>
  <script>
    const fetcher = GraphiQL.createFetcher({ url: '/graphql' });
    ReactDOM.createRoot(document.getElementById('graphiql')).render(
      React.createElement(GraphiQL, {
        fetcher,
        defaultQuery: ${JSON.stringify(DEFAULT_QUERY)},
        defaultHeaders: ${JSON.stringify(DEFAULT_HEADERS)},
        defaultEditorToolsVisibility: 'headers',
        shouldPersistHeaders: true,
      }),
    );
  </script>
</body>
</html>
`;
}

export function registerGraphiqlAssets(app: FastifyInstance): void {
  const cache = new Map<string, Buffer>();
  app.get<{ Params: { name: string } }>('/graphiql/assets/:name', async (request, reply) => {
    const asset = ASSETS[request.params.name];
    if (!asset) return reply.code(404).send({ errors: [{ message: 'Not found', extensions: { code: 'NOT_FOUND' } }] });
    let content = cache.get(request.params.name);
    if (!content) {
      content = readPackageFile(asset.pkg, asset.file);
      cache.set(request.params.name, content);
    }
    return reply.type(`${asset.type}; charset=utf-8`).header('cache-control', 'public, max-age=86400').send(content);
  });
}
