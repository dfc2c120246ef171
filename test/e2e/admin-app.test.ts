// End to end: the admin web application at /admin in headless Chromium (the Debian package, driven by
// playwright-core) against a real server process. One browser, one page, the steps in order: sign in, create a
// product model, add a record through the form, see the server's validation error next to its field, import a
// CSV with bad rows, edit, delete, create a token (shown once) and revoke it, sign out.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { ConsoleMessage, Page, Response } from 'playwright-core';
import {
  chromiumMissing,
  createProductModel,
  signInThroughPage,
  startAdminSetup,
  unlabelledControls,
  type AdminSetup,
} from './support.js';

const missing = chromiumMissing();
if (missing && process.env.CI === 'true') {
  // Under CI the browser must be there (.ci/run installs it): a missing one fails instead of skipping.
  test('Chromium is installed', () => assert.fail(missing));
} else if (missing) {
  console.log(`# admin-app e2e skipped: ${missing}`);
}

describe('admin web application', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;

  before(async () => {
    setup = await startAdminSetup();
    page = setup.page;
  });

  after(async () => {
    await setup?.close();
  });

  /** The row of the records table whose first cell is `name`. */
  const recordRow = (name: string) =>
    page.locator('table.records tbody tr').filter({ has: page.getByRole('rowheader', { name, exact: true }) });

  /** What the page logs as an error in the console (a failed load included) while `run` runs. */
  async function consoleErrorsWhile(run: () => Promise<void>): Promise<string[]> {
    const errors: string[] = [];
    const onConsole = (message: ConsoleMessage) => {
      if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
    };
    const onPageError = (error: Error) => errors.push(`page error: ${error.message}`);
    page.on('console', onConsole);
    page.on('pageerror', onPageError);
    try {
      await run();
    } finally {
      page.off('console', onConsole);
      page.off('pageerror', onPageError);
    }
    return errors;
  }

  test('a signed-out first load asks to sign in and logs no error in the console', async () => {
    const sessionAnswers: number[] = [];
    const onResponse = (response: Response) => {
      if (new URL(response.url()).pathname === '/admin/session') sessionAnswers.push(response.status());
    };
    page.on('response', onResponse);
    const errors = await consoleErrorsWhile(async () => {
      await page.goto(`${setup.url}/admin`);
      await page.getByRole('heading', { name: 'Sign in to Content Service' }).waitFor();
    });
    page.off('response', onResponse);
    assert.deepEqual(errors, []);
    assert.deepEqual(sessionAnswers, [204], 'the session check answered "signed out" without an error status');
  });

  test('refuses a wrong password, then signs in', async () => {
    await page.goto(`${setup.url}/admin`);
    await page.getByRole('heading', { name: 'Sign in to Content Service' }).waitFor();
    await page.getByLabel('Email').fill('owner@acme.test');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The email or the password is not right.' }).waitFor();
    await signInThroughPage(page, setup.url);
    await page.getByText('No models yet.').waitFor();
    assert.equal(await page.getByLabel('Workspace', { exact: true }).inputValue(), setup.workspace.workspaceId);
  });

  test('creates a product model with the field editor', async () => {
    await createProductModel(page);
    assert.equal(await page.getByLabel('Slug').inputValue(), 'product');
    assert.deepEqual(await unlabelledControls(page), []);
    await page.getByRole('button', { name: 'Create model' }).click();
    await page.getByRole('heading', { level: 1, name: 'Product' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Model Product created' }).waitFor();
    await page.getByText('No records yet.').waitFor();
  });

  test('adds a record through the form; numbers are sent as numbers', async () => {
    await page.getByRole('link', { name: 'New record' }).click();
    await page.getByRole('heading', { level: 1, name: 'New Product record' }).waitFor();
    await page.getByLabel('Title').fill('Match ball');
    await page.getByLabel('SKU').fill('BALL-1');
    await page.getByLabel('Price').fill('149.99');
    assert.deepEqual(await unlabelledControls(page), []);
    await page.getByRole('button', { name: 'Create record' }).click();
    await page.getByRole('status').filter({ hasText: 'Match ball created' }).waitFor();
    const row = recordRow('Match ball');
    await row.getByRole('cell', { name: '149.99' }).waitFor();
    await row.getByRole('cell', { name: 'BALL-1' }).waitFor();
  });

  test("shows the server's validation error next to the field it names", async () => {
    await page.getByRole('link', { name: 'New record' }).click();
    await page.getByLabel('SKU').fill('BALL-1');
    await page.getByRole('button', { name: 'Create record' }).click();
    // A required field left empty: `title: is required`, shown at the title and focused.
    await page.locator('[data-field="title"] .field-error').filter({ hasText: 'is required' }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'title');

    await page.getByLabel('Title').fill('Another ball');
    await page.getByRole('button', { name: 'Create record' }).click();
    const skuError = page.locator('[data-field="sku"] .field-error');
    await skuError.filter({ hasText: 'A record with this SKU already exists' }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'sku: A record with this SKU already exists' }).waitFor();
    const sku = page.getByLabel('SKU');
    assert.equal(await sku.getAttribute('aria-invalid'), 'true');
    const describedBy = (await sku.getAttribute('aria-describedby')) ?? '';
    assert.ok(describedBy.split(' ').includes((await skuError.getAttribute('id')) ?? '-'), 'the error describes the SKU input');
    assert.equal(await page.locator('[aria-invalid="true"]').count(), 1, 'only the SKU field is marked');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('heading', { level: 1, name: 'Product', exact: true }).waitFor();
  });

  test('refuses a CSV over 5 MB with a pointer to the CLI', async () => {
    await page.getByRole('link', { name: 'Import CSV' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import CSV into Product' }).waitFor();
    // The file is made in the page: 5 MB through the DevTools protocol would only slow the test down.
    await page.getByLabel('CSV file').evaluate((input: HTMLInputElement) => {
      const files = new DataTransfer();
      files.items.add(new File([new Uint8Array(5 * 1024 * 1024 + 1)], 'huge.csv', { type: 'text/csv' }));
      input.files = files.files;
      input.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await page.getByRole('alert').filter({ hasText: 'npx content-service import huge.csv --model product' }).waitFor();
  });

  test('imports a CSV: mapping preview, progress, per-row errors with file rows, errors download', async () => {
    const csv = [
      'Title,sku,PRICE,note',
      'Training ball,BALL-2,19.5,a',
      '"Ball, large ""XL""",BALL-3,24,"two',
      'lines"',
      'Bad price,BALL-4,abc,c',
      'Duplicate,BALL-1,5,d',
      'Keeper gloves,GLOVE-1,,e',
    ].join('\r\n');
    await page.getByLabel('CSV file').setInputFiles({ name: 'products.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('heading', { name: 'Map the columns of products.csv' }).waitFor();
    // Matched by label, by key in another case; the unknown column is ignored.
    assert.equal(await page.getByLabel('Title', { exact: true }).inputValue(), 'title');
    assert.equal(await page.getByLabel('PRICE').inputValue(), 'price');
    assert.equal(await page.getByLabel('note').inputValue(), '');
    await page.locator('table.preview').getByText('"Ball, large \\"XL\\""').waitFor();
    await page.locator('table.preview td.cell-error').filter({ hasText: 'price: "abc" is not a number' }).waitFor();
    assert.deepEqual(await unlabelledControls(page), []);

    await page.getByRole('button', { name: 'Import 5 rows' }).click();
    await page.getByRole('heading', { name: 'Import finished with errors' }).waitFor();
    await page.locator('.import-outcome').getByText('3 of 5 rows imported, 2 failed.').waitFor();
    const errors = page.locator('table.import-errors tbody tr');
    assert.equal(await errors.count(), 2);
    assert.deepEqual(await errors.nth(0).locator('td').allInnerTexts(), [
      '3',
      '5',
      'price: "abc" is not a number (such as 149.99)',
    ]);
    assert.deepEqual(await errors.nth(1).locator('td').allInnerTexts(), ['4', '6', 'sku: A record with this SKU already exists']);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download failed rows (CSV)' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'products-errors.csv');
    const saved = await download.path();
    assert.equal(
      await readFile(saved, 'utf8'),
      '_line,_error,Title,sku,PRICE,note\r\n' +
        '5,"price: ""abc"" is not a number (such as 149.99)",Bad price,BALL-4,abc,c\r\n' +
        '6,sku: A record with this SKU already exists,Duplicate,BALL-1,5,d\r\n',
    );

    await page.getByRole('link', { name: 'See the records of Product' }).click();
    await recordRow('Ball, large "XL"').waitFor();
    await page.getByText('Records 1–4 of 4').waitFor();
  });

  test('edits a record and saves only what changed', async () => {
    await page.getByRole('link', { name: 'Match ball', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit Match ball' }).waitFor();
    assert.equal(await page.getByLabel('Price').inputValue(), '149.99');
    await page.getByLabel('Price').fill('139.5');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Match ball saved' }).waitFor();
    await recordRow('Match ball').getByRole('cell', { name: '139.5', exact: true }).waitFor();
  });

  test('sorts and deletes a record after confirmation', async () => {
    await page.getByRole('link', { name: /^Created/ }).click();
    await page.locator('th[aria-sort="ascending"]').filter({ hasText: 'Created' }).waitFor();
    assert.equal(await page.locator('table.records tbody tr').first().getByRole('rowheader').innerText(), 'Match ball');

    await page.getByRole('button', { name: 'Delete Training ball' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Training ball?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await recordRow('Training ball').waitFor();

    await page.getByRole('button', { name: 'Delete Training ball' }).click();
    await dialog.getByRole('button', { name: 'Delete record' }).click();
    await page.getByRole('status').filter({ hasText: 'Training ball deleted' }).waitFor();
    await page.getByText('Records 1–3 of 3').waitFor();
    assert.equal(await recordRow('Training ball').count(), 0);
  });

  test('creates an API token, shows it once, and revokes it', async () => {
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByRole('heading', { level: 1, name: 'API tokens' }).waitFor();
    await page.getByLabel('Name').fill('nightly import');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('heading', { name: 'Token nightly import created' }).waitFor();
    const secret = await page.getByLabel('The new token').inputValue();
    assert.deepEqual(await unlabelledControls(page), []);
    assert.match(secret, /^cs_/);

    // The token works for a script, with the workspace id shown under Settings → Workspace.
    const ask = () =>
      fetch(`${setup.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${secret}`,
          'x-workspace-id': setup.workspace.workspaceId,
        },
        body: JSON.stringify({ query: '{ model { list { slug } } }' }),
      });
    assert.equal((await ask()).status, 200);

    const row = page.locator('table.tokens tbody tr').filter({ hasText: 'nightly import' });
    await row.getByRole('cell', { name: 'owner@acme.test' }).waitFor();
    await row.getByRole('cell', { name: 'Active' }).waitFor();

    // Shown once: gone after leaving the page.
    await page.getByRole('button', { name: 'Done, hide the token' }).click();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API tokens' }).waitFor();
    await row.waitFor();
    assert.equal(await page.locator(`input[value="${secret}"]`).count(), 0);
    assert.ok(!(await page.content()).includes(secret));

    await row.getByRole('button', { name: 'Revoke token nightly import' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke token nightly import?' });
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await row.getByRole('cell', { name: /^Revoked/ }).waitFor();
    assert.equal((await ask()).status, 401);
  });

  test('shows the workspace settings and signs out', async () => {
    await page.getByRole('link', { name: 'Workspace', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Workspace' }).waitFor();
    assert.equal(await page.getByLabel('Workspace id').inputValue(), setup.workspace.workspaceId);
    assert.equal(await page.getByLabel('Delivery URL').inputValue(), `${setup.url}/public/acme/main/graphql`);
    // The default locale: en until changed; a value that is not a locale code is refused next to the field.
    const locale = page.getByLabel('Default locale');
    assert.equal(await locale.inputValue(), 'en');
    await locale.fill('Polish');
    await page.getByRole('button', { name: 'Save locale' }).click();
    await page.getByText('Not a locale code: use one such as en, pl or pt-BR.').waitFor();
    assert.equal(await locale.getAttribute('aria-invalid'), 'true');
    await locale.fill('pl');
    await page.getByRole('button', { name: 'Save locale' }).click();
    await page.getByText('Default locale set to pl.').waitFor({ state: 'attached' });
    assert.deepEqual(await unlabelledControls(page), []);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Workspace' }).waitFor();
    assert.equal(await page.getByLabel('Default locale').inputValue(), 'pl', 'kept by the server');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Content Service' }).waitFor();
    // The session is gone on the server too: the app on a fresh load (a reload: going to another hash of the page
    // loads nothing) asks to sign in, with nothing in the console.
    await page.goto(`${setup.url}/admin#/settings/workspace`);
    const errors = await consoleErrorsWhile(async () => {
      await page.reload();
      await page.getByRole('heading', { name: 'Sign in to Content Service' }).waitFor();
    });
    assert.deepEqual(errors, []);
  });
});
