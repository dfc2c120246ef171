// End to end, in headless Chromium against a real server: what the forms say and send. A field's message goes away
// when the field is edited, and the summary above the form with it; an object's sub-field error is shown once, at
// the sub-field; a new record's translatable field starts in the workspace's default locale, whose saving is
// confirmed on the page; the model editor sends the price field its select shows, and asks before a save that
// deletes a field's values; a confirmation dialog goes when the route changes. One server, one browser.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { Admin } from '../support/client.js';
import { chromiumMissing, signInThroughPage, startAdminSetup, type AdminSetup } from './support.js';

const missing = chromiumMissing();
if (missing && process.env.CI === 'true') {
  test('Chromium is installed', () => assert.fail(missing));
} else if (missing) {
  console.log(`# forms e2e skipped: ${missing}`);
}

describe('admin web application: forms', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;
  let admin: Admin;
  let productId: string;

  before(async () => {
    setup = await startAdminSetup();
    page = setup.page;
    admin = new Admin(setup.server, { token: setup.workspace.token, workspaceId: setup.workspace.workspaceId });
    const product = await admin.createModel({
      name: 'Product',
      slug: 'product',
      displayField: 'title',
      deliveryAccess: 'none',
      product: { enabled: true, skuField: 'sku', priceField: 'price' },
      fields: [
        { key: 'title', label: 'Title', type: 'text', required: true },
        { key: 'sku', label: 'SKU', type: 'text' },
        { key: 'price', label: 'Price', type: 'number' },
        { key: 'displayName', label: 'Display name', type: 'translatable' },
        {
          key: 'dimensions',
          label: 'Dimensions',
          type: 'object',
          fields: [
            { key: 'width', label: 'Width', type: 'number' },
            { key: 'colour', label: 'Colour', type: 'text' },
          ],
        },
      ],
    });
    productId = product.id;
    await admin.createRecord(productId, { title: 'Match ball', sku: 'BALL-1', displayName: { en: 'Ball', pl: 'Piłka' } });
    await signInThroughPage(page, setup.url);
  });

  after(async () => {
    await setup?.close();
  });

  const fieldErrors = () => page.locator('.field-error:visible');
  const summary = () => page.locator('.error-area [role="alert"]');

  test('the new model form: the name error and the summary go once a name is typed', async () => {
    await page.getByRole('link', { name: 'New model' }).click();
    await page.getByRole('heading', { level: 1, name: 'New model' }).waitFor();
    await page.getByRole('button', { name: 'Create model' }).click();
    await page.locator('.field-error').filter({ hasText: 'must be a non-empty string' }).waitFor();
    await summary().filter({ hasText: 'name: must be a non-empty string' }).waitFor();
    await page.getByLabel('Name (required)', { exact: true }).fill('Brand');
    assert.equal(await fieldErrors().count(), 0);
    assert.equal(await summary().count(), 0);
    assert.equal(await page.getByLabel('Name (required)', { exact: true }).getAttribute('aria-invalid'), null);
  });

  test('saving the workspace default locale shows that it was saved', async () => {
    await page.getByRole('link', { name: 'Workspace', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Workspace' }).waitFor();
    await page.getByLabel('Default locale').fill('pl');
    await page.getByRole('button', { name: 'Save locale' }).click();
    // On the page, not only in the announcer that screen readers read.
    const saved = page.locator('main').getByRole('status').filter({ hasText: 'Default locale set to pl.' });
    await saved.waitFor();
    assert.equal(await saved.isVisible(), true);
    await page.getByLabel('Default locale').fill('p');
    await saved.waitFor({ state: 'detached' });
    await page.getByLabel('Default locale').fill('pl');
  });

  test("a new record's translatable field starts in the workspace's default locale, not the browser's", async () => {
    await page.goto(`${setup.url}/admin#/models/${productId}/records/new`);
    await page.getByRole('heading', { level: 1, name: 'New Product record' }).waitFor();
    assert.equal(await page.getByLabel('Display name: locale code').inputValue(), 'pl');
  });

  test("an object's sub-field error is shown once, at the sub-field", async () => {
    await page.getByLabel('Title').fill('Bad width');
    await page.getByLabel('Width').fill('abc');
    await page.getByRole('button', { name: 'Create record' }).click();
    await summary().filter({ hasText: 'Please correct the fields marked below.' }).waitFor();
    const shown = fieldErrors().filter({ hasText: 'must be a number' });
    assert.equal(await shown.count(), 1, (await shown.allInnerTexts()).join(' | '));
    assert.equal(await page.locator('[data-field="dimensions.width"] .field-error:visible').count(), 1);
    assert.equal(await page.locator('[data-field="dimensions"] > .field-error:visible').count(), 0);
    assert.equal(await page.getByLabel('Width').getAttribute('aria-invalid'), 'true');
  });

  test('record form: a field error goes when the field is edited, and the summary follows', async () => {
    // Two problems found before sending: the summary lists both, then one, then none.
    await page.getByLabel('Price').fill('abc');
    await page.getByRole('button', { name: 'Create record' }).click();
    await summary().filter({ hasText: 'price: must be a number' }).waitFor();
    assert.match(await summary().innerText(), /dimensions\.width: must be a number/);
    await page.getByLabel('Price').fill('12');
    await page.getByLabel('Price').press('Tab');
    assert.equal(await page.locator('[data-field="price"] .field-error:visible').count(), 0);
    assert.equal(await page.getByLabel('Price').getAttribute('aria-invalid'), null);
    assert.doesNotMatch(await summary().innerText(), /price: /);
    assert.match(await summary().innerText(), /dimensions\.width: must be a number/);
    await page.getByLabel('Width').fill('20');
    assert.equal(await fieldErrors().count(), 0);
    assert.equal(await summary().count(), 0);

    // The server's `title: is required`.
    await page.getByLabel('Title').fill('');
    await page.getByRole('button', { name: 'Create record' }).click();
    await page.locator('[data-field="title"] .field-error').filter({ hasText: 'is required' }).waitFor();
    await summary().filter({ hasText: 'title: is required' }).waitFor();
    await page.getByLabel('Title').fill('Fixed title');
    await page.getByLabel('Title').press('Tab');
    assert.equal(await fieldErrors().count(), 0);
    assert.equal(await summary().count(), 0);

    // The server's duplicate SKU.
    await page.getByLabel('SKU').fill('BALL-1');
    await page.getByRole('button', { name: 'Create record' }).click();
    await page.locator('[data-field="sku"] .field-error').filter({ hasText: 'already exists' }).waitFor();
    await summary().filter({ hasText: 'sku: ' }).waitFor();
    await page.getByLabel('SKU').fill('BALL-2');
    assert.equal(await fieldErrors().count(), 0);
    assert.equal(await summary().count(), 0);
    // No price stored, so that the model editor's test may make the price field a text field.
    await page.getByLabel('Price').fill('');
    await page.getByRole('button', { name: 'Create record' }).click();
    await page.getByRole('status').filter({ hasText: 'Fixed title created' }).waitFor();
  });

  test('a confirmation dialog closes when the route changes, and confirms nothing', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models' }).click();
    await page.getByRole('heading', { level: 1, name: 'Models' }).waitFor();
    await page.getByRole('link', { name: 'Product', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Product' }).waitFor();
    await page.getByRole('button', { name: 'Delete Match ball' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Match ball?' });
    await dialog.waitFor();
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Models' }).waitFor();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.locator('dialog').count(), 0);
    const records = await admin.ok('query ($id: ID!) { record { list(modelId: $id) { total } } }', { id: productId });
    assert.equal(records.record.list.total, 2, 'nothing deleted');
  });

  test('the model editor sends no price field when its select shows none', async () => {
    await page.goto(`${setup.url}/admin#/models/${productId}/edit`);
    await page.getByRole('heading', { level: 1, name: 'Edit model Product' }).waitFor();
    await page.locator('fieldset.field-editor').nth(2).getByLabel('Type').selectOption('text');
    assert.deepEqual(await page.getByLabel('Price field').locator('option').allInnerTexts(), ['(no price field)']);
    const [request] = await Promise.all([
      page.waitForRequest((candidate) => (candidate.postData() ?? '').includes('UpdateModel')),
      page.getByRole('button', { name: 'Save model' }).click(),
    ]);
    const sent = JSON.parse(request.postData() ?? '{}') as { variables: { input: { product: Record<string, unknown> } } };
    assert.equal(sent.variables.input.product.priceField, null);
    assert.equal(sent.variables.input.product.skuField, 'sku');
    await page.getByRole('heading', { level: 1, name: 'Product', exact: true }).waitFor();
    const saved = await admin.ok('query ($id: ID!) { model { get(id: $id) { product { priceField } fields { key type } } } }', {
      id: productId,
    });
    assert.equal(saved.model.get.product.priceField, null);
    assert.equal(saved.model.get.fields.find((field: { key: string }) => field.key === 'price').type, 'text');
  });

  test("the model editor asks before a save that deletes a field's values, naming the fields and the records", async () => {
    await page.goto(`${setup.url}/admin#/models/${productId}/edit`);
    await page.getByRole('heading', { level: 1, name: 'Edit model Product' }).waitFor();
    await page.getByRole('button', { name: 'Remove field 4' }).click();
    let requests = 0;
    const count = (request: { postData(): string | null }) => {
      if ((request.postData() ?? '').includes('UpdateModel')) requests += 1;
    };
    page.on('request', count);
    await page.getByRole('button', { name: 'Save model' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove field from Product?' });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Product has 2 records/);
    assert.match(await dialog.innerText(), /Display name \(displayName\)/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(requests, 0, 'nothing sent without a confirmation');
    await page.getByRole('button', { name: 'Save model' }).click();
    await dialog.getByRole('button', { name: 'Save and delete the values' }).click();
    await page.getByRole('status').filter({ hasText: 'Model Product saved.' }).waitFor();
    page.off('request', count);
    assert.equal(requests, 1);
    const saved = await admin.ok('query ($id: ID!) { model { get(id: $id) { fields { key } } } }', { id: productId });
    assert.deepEqual(
      saved.model.get.fields.map((field: { key: string }) => field.key),
      ['title', 'sku', 'price', 'dimensions'],
    );
  });
});
