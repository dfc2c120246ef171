// End to end: a number typed the way a person writes it in their locale is stored as the number they meant.
// 9,99 is stored as 9.99 (it used to be 999: the browser's number input dropped the comma), 1 234,5 as 1234.5,
// and 1,234, which could be 1234 or 1.234, is refused with a message next to the field and nothing is sent.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { dataOf, gql } from '../support/client.js';
import { chromiumMissing, createProductModel, signInThroughPage, startAdminSetup, type AdminSetup } from './support.js';

const missing = chromiumMissing();
if (missing && process.env.CI === 'true') {
  test('Chromium is installed', () => assert.fail(missing));
} else if (missing) {
  console.log(`# number-input e2e skipped: ${missing}`);
}

describe('number fields of the record form', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;

  before(async () => {
    setup = await startAdminSetup();
    page = setup.page;
    await signInThroughPage(page, setup.url);
    await createProductModel(page);
    await page.getByRole('button', { name: 'Create model' }).click();
    await page.getByRole('heading', { level: 1, name: 'Product' }).waitFor();
  });

  after(async () => {
    await setup?.close();
  });

  /** The price of every stored record by SKU, read through the API with the workspace's token. */
  async function storedPrices(): Promise<Record<string, unknown>> {
    const credentials = { token: setup.workspace.token, workspaceId: setup.workspace.workspaceId };
    const models = dataOf(await gql(`${setup.url}/graphql`, credentials, '{ model { list { id slug } } }')).model.list;
    const modelId = models.find((model: { slug: string }) => model.slug === 'product').id;
    const list = dataOf(
      await gql(
        `${setup.url}/graphql`,
        credentials,
        'query($m: ID!) { record { list(modelId: $m, limit: 100) { items { data } } } }',
        { m: modelId },
      ),
    );
    return Object.fromEntries(
      list.record.list.items.map((item: { data: { sku: string; price?: number } }) => [item.data.sku, item.data.price]),
    );
  }

  async function newRecord(title: string, sku: string, price: string): Promise<void> {
    await page.getByRole('link', { name: 'New record' }).click();
    await page.getByRole('heading', { level: 1, name: 'New Product record' }).waitFor();
    await page.getByLabel('Title').fill(title);
    await page.getByLabel('SKU').fill(sku);
    await page.getByLabel('Price').pressSequentially(price);
    await page.getByRole('button', { name: 'Create record' }).click();
  }

  test('9,99 typed into the price is stored as 9.99', async () => {
    await newRecord('Ball pump', 'PUMP-1', '9,99');
    await page.getByRole('status').filter({ hasText: 'Ball pump created' }).waitFor();
    assert.deepEqual(await storedPrices(), { 'PUMP-1': 9.99 });
  });

  test('1,234 is refused next to the field with how to write it, and nothing is sent; 1 234,5 is then stored as 1234.5', async () => {
    await newRecord('Goal', 'GOAL-1', '1,234');
    const message = 'could be 1234 or 1.234: write 1234 for the whole number, or 1.2340 for the decimal';
    await page.locator('[data-field="price"] .field-error').filter({ hasText: message }).waitFor();
    assert.equal(await page.getByLabel('Price').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(await storedPrices(), { 'PUMP-1': 9.99 }, 'nothing was created');

    await page.getByLabel('Price').fill('1 234,5');
    await page.getByRole('button', { name: 'Create record' }).click();
    await page.getByRole('status').filter({ hasText: 'Goal created' }).waitFor();
    assert.deepEqual(await storedPrices(), { 'PUMP-1': 9.99, 'GOAL-1': 1234.5 });
  });

  test('a stored value that would be ambiguous as text (1.234) is shown and saved back unchanged', async () => {
    const openGoal = async () => {
      await page.getByRole('rowheader', { name: 'Goal', exact: true }).getByRole('link').click();
      await page.getByRole('button', { name: 'Save changes' }).waitFor();
    };
    await openGoal();
    assert.equal(await page.getByLabel('Price').inputValue(), '1234.5');
    await page.getByLabel('Price').fill('1.2340');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Goal saved' }).waitFor();
    assert.deepEqual(await storedPrices(), { 'PUMP-1': 9.99, 'GOAL-1': 1.234 });

    await openGoal();
    assert.equal(await page.getByLabel('Price').inputValue(), '1.234');
    await page.getByLabel('Title').fill('Small goal');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Small goal saved' }).waitFor();
    assert.deepEqual(await storedPrices(), { 'PUMP-1': 9.99, 'GOAL-1': 1.234 });
  });
});
