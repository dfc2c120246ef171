// The admin web application at `/admin`: its page and its built assets (`npm run build` compiles
// src/admin-ui, with the pure modules of src/client and src/shared it imports, into dist/admin-ui: admin-ui/*.js,
// client/*.js and shared/*.js beside the page and the stylesheet, served as /admin/assets/admin-ui/main.js,
// /admin/assets/client/cells.js, /admin/assets/shared/json.js, /admin/assets/admin.css; vendor/csv-parse.js is
// csv-parse's browser build). Static files only: the application talks to the server through `/admin/session`
// and the GraphQL API, like any other client.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const HERE = dirname(fileURLToPath(import.meta.url));

/** dist/admin-ui beside the compiled server; from the TypeScript sources (tsx), the build output of the repository. */
const CANDIDATE_DIRS = [join(HERE, '..', 'admin-ui'), join(HERE, '..', '..', 'dist', 'admin-ui')];

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * A name (`admin.css`), or a name in one directory (`admin-ui/main.js`, `client/cells.js.map`). Neither part can
 * hold a dot segment or a slash, so no path can leave the build directory.
 */
const ASSET_PATH = /^(?:[A-Za-z0-9_-]+\/)?[A-Za-z0-9_-]+\.(js|css|js\.map|svg)$/;

/** The module the page loads: its presence tells a finished build. */
const MAIN_MODULE = join('admin-ui', 'main.js');

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

function assetsDir(): string | undefined {
  return CANDIDATE_DIRS.find((dir) => existsSync(join(dir, 'index.html')) && existsSync(join(dir, MAIN_MODULE)));
}

export function registerAdminApp(app: FastifyInstance): void {
  const cache = new Map<string, Asset | null>();
  const load = (name: string): Asset | null => {
    if (cache.has(name)) return cache.get(name)!;
    const dir = assetsDir();
    let asset: Asset | null = null;
    if (dir && existsSync(join(dir, name))) {
      const body = readFileSync(join(dir, name));
      const extension = name.endsWith('.js.map') ? '.map' : name.slice(name.lastIndexOf('.'));
      asset = {
        body,
        type: TYPES[extension] ?? 'application/octet-stream',
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      };
    }
    // Only found files are kept: a build finishing after the start is picked up.
    if (asset) cache.set(name, asset);
    return asset;
  };

  const send = (request: FastifyRequest, reply: FastifyReply, asset: Asset) => {
    reply
      .header('content-type', asset.type)
      .header('etag', asset.etag)
      // Revalidated on every load (cheap: 304 by ETag), so a new build is never mixed with an old one.
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff');
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.send(asset.body);
  };

  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const index = load('index.html');
    reply
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer');
    if (!index) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The admin application is not built. Run `npm run build` (npm ci runs it) and restart the server.\n');
    }
    return send(request, reply, index);
  };

  app.get('/admin', page);
  app.get('/admin/', page);
  const asset = async (path: string, request: FastifyRequest, reply: FastifyReply) => {
    const found = ASSET_PATH.test(path) ? load(path) : null;
    if (!found) {
      return reply.code(404).send({ errors: [{ message: `No admin asset ${path}`, extensions: { code: 'NOT_FOUND' } }] });
    }
    return send(request, reply, found);
  };
  // Browsers ask for /favicon.ico on their own, whatever page they show (GraphiQL too).
  app.get('/favicon.ico', (request, reply) => asset('favicon.svg', request, reply));
  app.get<{ Params: { name: string } }>('/admin/assets/:name', (request, reply) => asset(request.params.name, request, reply));
  app.get<{ Params: { dir: string; name: string } }>('/admin/assets/:dir/:name', (request, reply) =>
    asset(`${request.params.dir}/${request.params.name}`, request, reply),
  );
}
