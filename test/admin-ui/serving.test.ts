// How the server serves the admin application (src/server/admin-app.ts): the page with its security headers,
// the built modules, revalidation by ETag, and nothing outside the build directory.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from '../support/server.js';

describe('GET /admin and its assets', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ env: { LOG_LEVEL: 'warn' } });
  });
  after(async () => {
    await server?.dispose();
  });

  test('the page: HTML that loads the modules from /admin/assets, with a strict content security policy', async () => {
    for (const path of ['/admin', '/admin/']) {
      const response = await fetch(`${server.url}${path}`);
      const html = await response.text();
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(html, /<script type="module" src="\/admin\/assets\/admin-ui\/main\.js"><\/script>/);
      const csp = response.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.equal(response.headers.get('x-frame-options'), 'DENY');
    }
  });

  test('/favicon.ico answers the icon the page names, not 404', async () => {
    for (const path of ['/favicon.ico', '/admin/assets/favicon.svg']) {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, 200, path);
      assert.equal(response.headers.get('content-type'), 'image/svg+xml');
      assert.match(await response.text(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    }
    const page = await fetch(`${server.url}/admin`).then((response) => response.text());
    assert.match(page, /<link rel="icon" href="\/admin\/assets\/favicon\.svg" type="image\/svg\+xml" \/>/);
  });

  test('modules and the stylesheet, revalidated by ETag', async () => {
    const main = await fetch(`${server.url}/admin/assets/admin-ui/main.js`);
    assert.equal(main.status, 200);
    assert.match(main.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.equal(main.headers.get('x-content-type-options'), 'nosniff');
    assert.match(await main.text(), /from '\.\/api\.js'/);
    const etag = main.headers.get('etag');
    assert.ok(etag);
    const again = await fetch(`${server.url}/admin/assets/admin-ui/main.js`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    const map = await fetch(`${server.url}/admin/assets/admin-ui/main.js.map`);
    assert.equal(map.status, 200);
    assert.match(map.headers.get('content-type') ?? '', /^application\/json/);
    await map.arrayBuffer();
    const css = await fetch(`${server.url}/admin/assets/admin.css`);
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
    await css.arrayBuffer();
  });

  test('nothing else: unknown names, other extensions and paths out of the directory are 404', async () => {
    for (const path of [
      '/admin/assets/nope.js',
      '/admin/assets/main.js',
      '/admin/assets/index.html',
      '/admin/assets/admin-ui/main.d.ts',
      '/admin/assets/admin-ui',
      '/admin/assets/admin-ui/nope.js',
      '/admin/assets/..%2F..%2Fpackage.json',
      '/admin/assets/%2e%2e%2fserver%2fapp.js',
      '/admin/assets/..%2F..%2Fserver/app.js',
      '/admin/assets/admin-ui/..%2F..%2F..%2Fpackage.json',
      '/admin/assets/admin-ui/..%2Fclient%2Fcells.js',
      '/admin/assets/admin-ui/main.js/x.js',
    ]) {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, 404, path);
      await response.arrayBuffer();
    }
  });

  test('the shared modules of src/client the application imports, and no other module of the client or the server', async () => {
    const cells = await fetch(`${server.url}/admin/assets/admin-ui/cells.js`);
    assert.equal(cells.status, 200);
    assert.match(await cells.text(), /from '\.\.\/client\/cells\.js'/);
    const shared = await fetch(`${server.url}/admin/assets/client/cells.js`);
    assert.equal(shared.status, 200);
    assert.match(shared.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match(await shared.text(), /export function cellValue/);
    for (const path of [
      '/admin/assets/client/http.js',
      '/admin/assets/client/client.js',
      '/admin/assets/server/app.js',
      '/admin/assets/cli/main.js',
    ]) {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, 404, path);
      await response.arrayBuffer();
    }
  });

  test('csv-parse for the import, from vendor/: its browser build, which the compiled module imports by a relative path', async () => {
    const csv = await fetch(`${server.url}/admin/assets/admin-ui/csv.js`);
    assert.equal(csv.status, 200);
    const source = await csv.text();
    assert.match(source, /import\('\.\.\/vendor\/csv-parse\.js'\)/);
    assert.doesNotMatch(source, /csv-parse\/browser/);
    const vendored = await fetch(`${server.url}/admin/assets/vendor/csv-parse.js`);
    assert.equal(vendored.status, 200);
    assert.match(vendored.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match(await vendored.text(), /export \{[^}]*\bparse\b[^}]*\}/);
  });
});
