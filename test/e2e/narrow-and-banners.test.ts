// End to end at a phone's width (390 px) in headless Chromium against a real server: no page is wider than the
// viewport (the header folds behind a Menu button that works from the keyboard), and banners go away once what
// they say is no longer true (the sign-in rate limit counts down and clears itself, "Nothing changed." goes on edit).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { dataOf, gql } from '../support/client.js';
import { chromiumMissing, signInThroughPage, startAdminSetup, type AdminSetup } from './support.js';

const missing = chromiumMissing();
if (missing && process.env.CI === 'true') {
  test('Chromium is installed', () => assert.fail(missing));
} else if (missing) {
  console.log(`# narrow-and-banners e2e skipped: ${missing}`);
}

const WIDTH = 390;

describe('admin web application: 390 px wide, banners that clear', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;
  let modelId = '';
  let recordId = '';

  before(async () => {
    // One attempt a minute per email: the second wrong password for an unknown email is answered 429.
    setup = await startAdminSetup({
      viewport: { width: WIDTH, height: 844 },
      server: { env: { LOG_LEVEL: 'warn', SIGN_IN_ATTEMPTS_PER_MINUTE_PER_EMAIL: '1' } },
    });
    page = setup.page;
    const api = async (query: string, variables?: Record<string, unknown>) =>
      dataOf(
        await gql(
          `${setup.url}/graphql`,
          { token: setup.workspace.token, workspaceId: setup.workspace.workspaceId },
          query,
          variables,
        ),
      );
    const created = await api('mutation ($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }', {
      input: {
        name: 'Product with a rather long name',
        slug: 'product',
        displayField: 'title',
        fields: [{ key: 'title', label: 'Title', type: 'text', required: true }],
      },
    });
    modelId = created.model.create.id;
    const record = await api('mutation ($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }', {
      input: { modelId, data: { title: 'Match ball' } },
    });
    recordId = record.record.create.id;
  });

  after(async () => {
    await setup?.close();
  });

  /** The page's and the header's right edges, in CSS pixels. */
  const widths = () =>
    page.evaluate(() => ({
      document: document.documentElement.scrollWidth,
      header: document.querySelector('header')?.getBoundingClientRect().right ?? 0,
      // What sticks out, for the failure message: the innermost elements past the right edge.
      outside: [...document.querySelectorAll<HTMLElement>('body *')]
        .filter(
          (element) =>
            element.getBoundingClientRect().right > window.innerWidth &&
            !element.parentElement?.closest('.table-scroll, .topbar-menu:not(.open)'),
        )
        .slice(0, 5)
        .map((element) => element.outerHTML.slice(0, 100)),
      // A table scrolls inside its own box and stays a table (display: block would lose its semantics).
      tables: [...document.querySelectorAll('table')].map((table) => ({
        display: getComputedStyle(table).display,
        inScroller: table.parentElement?.classList.contains('table-scroll') ?? false,
      })),
    }));
  const assertFits = async (where: string) => {
    const measured = await widths();
    assert.ok(measured.document <= WIDTH, `${where}: the page is ${measured.document} px wide: ${measured.outside.join(' | ')}`);
    assert.ok(measured.header <= WIDTH, `${where}: the header ends at ${measured.header} px`);
    for (const table of measured.tables) assert.deepEqual(table, { display: 'table', inScroller: true }, `${where}: a table`);
    return measured;
  };

  test('the sign-in rate limit counts down, then clears itself and enables the button again', async () => {
    const context = await setup.browser.newContext({ viewport: { width: WIDTH, height: 844 } });
    try {
      const other = await context.newPage();
      await other.clock.install();
      await other.goto(`${setup.url}/admin`);
      await other.getByLabel('Email').fill('nobody@acme.test');
      await other.getByLabel('Password').fill('wrong password');
      const submit = other.getByRole('button', { name: 'Sign in' });
      await submit.click();
      await other.getByText('The email or the password is not right.').waitFor();
      await other.getByLabel('Password').fill('wrong again');
      await submit.click();
      const alert = other.getByRole('alert');
      await alert.getByText(/^Too many sign-in attempts\. Try again in \d+ seconds?\.$/).waitFor();
      const seconds = Number(/in (\d+) second/.exec((await alert.textContent()) ?? '')![1]);
      assert.ok(seconds >= 1 && seconds <= 60, `${seconds} seconds`);
      assert.equal(await submit.isDisabled(), true, 'the button waits with the message');
      if (seconds > 1) {
        await other.clock.runFor(1000);
        await alert.getByText(new RegExp(`Try again in ${seconds - 1} seconds?\\.`)).waitFor();
      }
      await other.clock.runFor(seconds * 1000);
      await alert.waitFor({ state: 'detached' });
      assert.equal(await submit.isEnabled(), true);
    } finally {
      await context.close();
    }
  });

  test('every page fits in 390 px; the header folds behind a Menu button that works from the keyboard', async () => {
    await page.goto(`${setup.url}/admin`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await assertFits('sign-in');
    await page.goto(`${setup.url}/admin#/welcome?token=not-a-real-token`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await assertFits('welcome');
    await signInThroughPage(page, setup.url);
    const pages = [
      '/models',
      '/models/new',
      `/models/${modelId}/edit`,
      `/models/${modelId}/records`,
      `/models/${modelId}/records/new`,
      `/models/${modelId}/records/${recordId}`,
      `/models/${modelId}/import`,
      '/settings/workspace',
      '/settings/tokens',
      '/settings/webhooks',
      '/settings/members',
    ];
    const pagesWithTables: string[] = [];
    for (const path of pages) {
      await page.goto(`${setup.url}/admin#${path}`);
      await page.locator('main h1').waitFor();
      await page.locator('main [aria-busy="true"]').waitFor({ state: 'detached' });
      if ((await assertFits(path)).tables.length > 0) pagesWithTables.push(path);
    }
    for (const path of ['/models', `/models/${modelId}/records`, '/settings/tokens', '/settings/members']) {
      assert.ok(pagesWithTables.includes(path), `${path} shows a table (${pagesWithTables.join(', ')})`);
    }

    const menu = page.getByRole('button', { name: 'Menu' });
    const nav = page.getByRole('navigation', { name: 'Main' });
    assert.equal(await nav.isVisible(), false, 'folded at first');
    await menu.focus();
    await page.keyboard.press('Enter');
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    await nav.getByRole('link', { name: 'Models' }).waitFor();
    await assertFits('the open menu');
    for (const name of ['Models', 'Workspace', 'API tokens', 'Webhooks', 'Members']) {
      const box = await nav.getByRole('link', { name, exact: true }).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= WIDTH, `${name} is on the screen`);
    }
    assert.ok(await page.getByRole('button', { name: 'Sign out' }).isVisible());
    await page.keyboard.press('Tab');
    await page.keyboard.press('Escape');
    assert.equal(await menu.getAttribute('aria-expanded'), 'false');
    assert.equal(await nav.isVisible(), false);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Menu', 'focus back on the button');

    await menu.click();
    await nav.getByRole('link', { name: 'API tokens' }).click();
    await page.getByRole('heading', { level: 1, name: 'API tokens' }).waitFor();
    assert.equal(await nav.isVisible(), false, 'folded again on the next page');
  });

  test('"Nothing changed." goes away as soon as a field is edited', async () => {
    await page.goto(`${setup.url}/admin#/models/${modelId}/records/${recordId}`);
    await page.getByRole('button', { name: 'Save changes' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'Nothing changed.' });
    await notice.waitFor();
    await page.getByLabel('Title').fill('Match ball Pro');
    await notice.waitFor({ state: 'detached' });
  });
});
