import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);

/** GraphiQL and React from their npm packages, served by the service itself: no CDN. */
const ASSETS: Record<string, { module: string; type: string }> = {
  'react.js': { module: 'react/umd/react.production.min.js', type: 'text/javascript' },
  'react-dom.js': { module: 'react-dom/umd/react-dom.production.min.js', type: 'text/javascript' },
  'graphiql.js': { module: 'graphiql/graphiql.min.js', type: 'text/javascript' },
  'graphiql.css': { module: 'graphiql/graphiql.min.css', type: 'text/css' },
};

const DEFAULT_QUERY = `# Connectivity check: a list (even empty) means the token and workspace id are accepted.
# Set the two headers below (Headers tab) first.
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
    let content = cache.get(asset.module);
    if (!content) {
      content = readFileSync(require.resolve(asset.module));
      cache.set(asset.module, content);
    }
    return reply.type(`${asset.type}; charset=utf-8`).header('cache-control', 'public, max-age=86400').send(content);
  });
}
