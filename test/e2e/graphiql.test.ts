// End to end: GraphiQL at GET /graphql in headless Chromium under its Content-Security-Policy. The page renders
// with no CSP violation, a query typed with the token in the Headers editor runs, and afterwards neither
// localStorage nor sessionStorage holds the token (GraphiQL keeps its state in memory only).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ConsoleMessage, Page } from 'playwright-core';
import { chromiumMissing, signInThroughPage, startAdminSetup, type AdminSetup } from './support.js';

const missing = chromiumMissing();
if (missing && process.env.CI === 'true') {
  test('Chromium is installed', () => assert.fail(missing));
} else if (missing) {
  console.log(`# graphiql e2e skipped: ${missing}`);
}

const HEADERS_EDITOR = 'section.graphiql-editor-tool[aria-label="Headers"] .graphiql-editor:not(.hidden)';

describe('GraphiQL in the browser', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    setup = await startAdminSetup();
    page = setup.page;
    page.on('console', (message: ConsoleMessage) => {
      // Failed loads are expected (the introspection with the placeholder token is a 401, there is no favicon).
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
      else if (/Content Security Policy/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // Reported by the browser for every blocked script, style, connection or frame.
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        console.error(
          `CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`,
        );
      });
    });
  });

  after(async () => {
    await setup?.close();
  });

  /** Replaces the text of the CodeMirror editor inside `container` with `text`, as typed (pasted) by a person. */
  async function typeInto(container: string, text: string): Promise<void> {
    await page.locator(`${container} .CodeMirror`).first().click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(text);
  }

  test('renders under the Content-Security-Policy with no violation', async () => {
    const response = await page.goto(`${setup.url}/graphql`);
    assert.ok(response);
    assert.match((await response.headerValue('content-security-policy')) ?? '', /script-src 'self'/);
    await page.locator('.graphiql-container').waitFor();
    await page.locator('.graphiql-query-editor .CodeMirror').waitFor();
    await page.getByRole('button', { name: /Execute query/i }).waitFor();
    // The dialogs add <style> elements while open: allowed by style-src-elem.
    await page
      .getByRole('button', { name: /settings/i })
      .first()
      .click();
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.deepEqual(problems, []);
  });

  test('a query typed with the token in the Headers editor runs', async () => {
    const { token, workspaceId } = setup.workspace;
    await typeInto('.graphiql-query-editor', 'query Workspace { workspace { current { id orgSlug slug } } }');
    const headersTab = page.locator('.graphiql-editor-tools button[data-name="headers"]');
    if (!/\bactive\b/.test((await headersTab.getAttribute('class')) ?? '')) await headersTab.click();
    await typeInto(HEADERS_EDITOR, JSON.stringify({ Authorization: `Bearer ${token}`, 'x-workspace-id': workspaceId }));
    await page.getByRole('button', { name: /Execute query/i }).click();
    const result = page.locator('.graphiql-response .CodeMirror');
    await result.filter({ hasText: workspaceId }).waitFor();
    assert.match((await result.innerText()).replace(/\s+/g, ' '), /"orgSlug": "acme"/);
    assert.deepEqual(problems, []);
  });

  test('neither localStorage nor sessionStorage holds the token, also after a reload', async () => {
    const { token } = setup.workspace;
    const stored = () =>
      page.evaluate(() => JSON.stringify({ local: { ...window.localStorage }, session: { ...window.sessionStorage } }));
    const before = await stored();
    assert.ok(!before.includes(token), `the token is stored: ${before}`);
    assert.ok(!before.includes(token.slice(3)), 'the random part of the token is stored');
    assert.deepEqual(JSON.parse(before).local, {});

    await page.reload();
    await page.locator('.graphiql-query-editor .CodeMirror').waitFor();
    const headers = await page.locator(`${HEADERS_EDITOR} .CodeMirror`).innerText();
    assert.ok(!headers.includes(token), 'the token came back after a reload');
    assert.ok(!(await stored()).includes(token));
    assert.deepEqual(problems, []);
  });

  test('signed in to the admin application, a query runs with the session: no token pasted', async () => {
    await signInThroughPage(page, setup.url);
    await page.goto(`${setup.url}/graphql`);
    const query = page.locator('.graphiql-query-editor .CodeMirror');
    await query.filter({ hasText: 'Signed in as owner@acme.test, workspace acme / main (owner).' }).waitFor();
    const headers = await page.locator(`${HEADERS_EDITOR} .CodeMirror`).innerText();
    assert.match(headers, new RegExp(`"x-workspace-id": "${setup.workspace.workspaceId}"`));
    assert.doesNotMatch(headers, /Authorization|Bearer|csrf/i);
    await typeInto('.graphiql-query-editor', 'query Workspace { workspace { current { id orgSlug slug } } }');
    const result = page.locator('.graphiql-response .CodeMirror');
    // GraphiQL takes the operation name from the editor a moment after typing; run until the answer is the typed
    // query's (an earlier run may still name the default document's operation), within a deadline.
    const deadline = Date.now() + 45_000;
    for (;;) {
      await page.getByRole('button', { name: /Execute query/i }).click();
      await result.filter({ hasText: /"(data|errors)"/ }).waitFor({ timeout: 30_000 });
      const shown = await result.innerText();
      if (shown.includes(setup.workspace.workspaceId)) break;
      if (Date.now() > deadline) assert.fail(`no workspace id in the response: ${shown}`);
      await page.waitForTimeout(250);
    }
    assert.match((await result.innerText()).replace(/\s+/g, ' '), /"slug": "main"/);
    // The CSRF token is in the page's memory only.
    const stored = await page.evaluate(() => JSON.stringify({ ...window.localStorage, ...window.sessionStorage }));
    assert.doesNotMatch(stored, /csrf/i);
    assert.deepEqual(problems, []);
  });

  test('the session cookie alone, as another site could make the browser send it, is refused', async () => {
    const response = await page.context().request.post(`${setup.url}/graphql`, {
      headers: { 'content-type': 'application/json', 'x-workspace-id': setup.workspace.workspaceId },
      data: { query: '{ model { list { id } } }' },
    });
    assert.equal(response.status(), 403);
    assert.match(await response.text(), /CSRF/);
  });
});
