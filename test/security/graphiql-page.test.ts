// The GraphiQL page (GET /graphql in a browser) and its assets: a strict Content-Security-Policy (no inline script,
// no framing, requests to this origin only) and nosniff on every file. The browser side (no CSP violation, token not
// in localStorage) is checked in test/e2e/graphiql.test.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server?.dispose();
});

/** The CSP header as a map from directive to its sources. */
function directives(policy: string | null): Map<string, string[]> {
  assert.ok(policy, 'a Content-Security-Policy header');
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0] !== '')
      .map(([name, ...sources]) => [name!, sources]),
  );
}

function pageRequest() {
  return request(`${server.url}/graphql`, { headers: { accept: 'text/html,application/xhtml+xml' } });
}

test('GraphiQL page: a strict Content-Security-Policy, nosniff, no framing', async () => {
  const response = await pageRequest();
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  const csp = directives(response.headers.get('content-security-policy'));
  assert.deepEqual(csp.get('default-src'), ["'none'"]);
  assert.deepEqual(csp.get('script-src'), ["'self'"]);
  assert.deepEqual(csp.get('connect-src'), ["'self'"]);
  assert.deepEqual(csp.get('frame-ancestors'), ["'none'"]);
  assert.deepEqual(csp.get('base-uri'), ["'none'"]);
  assert.deepEqual(csp.get('form-action'), ["'none'"]);
  assert.ok(!csp.has('script-src-elem') && !csp.has('script-src-attr'), 'no directive loosens script-src');
  for (const [name, sources] of csp) {
    assert.ok(!sources.includes("'unsafe-eval'"), `${name} allows eval`);
    if (name !== 'style-src-elem') assert.ok(!sources.includes("'unsafe-inline'"), `${name} allows inline code`);
  }
  // GraphiQL's dialogs add a <style> element while open; inline style attributes stay refused.
  assert.deepEqual(csp.get('style-src'), ["'self'"]);
  assert.deepEqual(csp.get('style-src-elem'), ["'self'", "'unsafe-inline'"]);
  assert.ok(!csp.has('style-src-attr'));
  assert.equal(response.headers.get('x-frame-options'), 'DENY');
  assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
});

test('GraphiQL page: no inline script and no inline event handler; every script is a file of this server', async () => {
  const html = (await pageRequest()).text;
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
  assert.ok(scripts.length > 0);
  for (const [, attributes, body] of scripts) {
    assert.match(attributes!, /\ssrc="\/graphiql\/assets\/[a-z-]+\.js"/, `script without a served src: ${attributes}`);
    assert.equal(body!.trim(), '', 'a script element with inline code');
  }
  assert.doesNotMatch(html, /\son[a-z]+\s*=/i, 'an inline event handler');
  assert.doesNotMatch(html, /javascript:/i);
});

test('GraphiQL assets: nosniff, the right type, and the start-up script among them', async () => {
  const expected: Record<string, RegExp> = {
    'react.js': /^text\/javascript/,
    'react-dom.js': /^text\/javascript/,
    'graphiql.js': /^text\/javascript/,
    'graphiql.css': /^text\/css/,
    'start.js': /^text\/javascript/,
  };
  for (const [name, type] of Object.entries(expected)) {
    const response = await request(`${server.url}/graphiql/assets/${name}`);
    assert.equal(response.status, 200, name);
    assert.match(response.headers.get('content-type') ?? '', type, name);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff', name);
  }
  const start = (await request(`${server.url}/graphiql/assets/start.js`)).text;
  assert.match(start, /shouldPersistHeaders:\s*false/);
  const missing = await request(`${server.url}/graphiql/assets/nothing.js`);
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('x-content-type-options'), 'nosniff');
});
