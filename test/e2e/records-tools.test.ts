// End to end, in headless Chromium against a real server: what the records table does beyond showing a page.
// The export of the current view (filter and sort, every page of it) as CSV and JSON, read back by the CLI's
// `import` into a second model and compared with what was exported; deleting several selected records at once
// (the confirmation says how many; a record others link to is reported, not forced); the relation picker against
// a target model of 5,000 records (it reads pages of it, never the whole, searches once per pause in typing, and
// names a current choice far beyond the first page). One server, one browser.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { Admin } from '../support/client.js';
import { runCli } from '../support/server.js';
import { chromiumMissing, signInThroughPage, startAdminSetup, unlabelledControls, type AdminSetup } from './support.js';

const missing = chromiumMissing();
if (missing && process.env.CI === 'true') {
  test('Chromium is installed', () => assert.fail(missing));
} else if (missing) {
  console.log(`# records-tools e2e skipped: ${missing}`);
}

const CATEGORY_COUNT = 5000;

interface Product {
  title: string;
  sku: string;
  price: number;
  inStock: boolean;
  name: Record<string, string>;
  category?: string;
}

const PRODUCT_FIELDS = [
  { key: 'title', label: 'Title', type: 'text', required: true },
  { key: 'sku', label: 'SKU', type: 'text', required: true },
  { key: 'price', label: 'Price', type: 'number' },
  { key: 'inStock', label: 'In stock', type: 'boolean' },
  { key: 'name', label: 'Name', type: 'translatable' },
  { key: 'category', label: 'Category', type: 'relation', relationTo: 'model:category', relationType: 'hasOne' },
];

describe('records table: export, delete several, relation picker on a large model', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;
  let admin: Admin;
  let productId: string;
  let categoryId: string;
  let dir: string;
  const categoryIds: string[] = [];
  const products: Product[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'records-tools-'));
    setup = await startAdminSetup();
    page = setup.page;
    admin = new Admin(setup.server, { token: setup.workspace.token, workspaceId: setup.workspace.workspaceId });
    const category = await admin.createModel({
      slug: 'category',
      name: 'Category',
      displayField: 'name',
      fields: [{ key: 'name', label: 'Name', type: 'text', required: true }],
    });
    categoryId = category.id;
    const names = Array.from({ length: CATEGORY_COUNT }, (_, index) => ({
      name: `Category ${String(index + 1).padStart(4, '0')}`,
    }));
    for (let start = 0; start < names.length; start += 1000) {
      await admin.ok('mutation ($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount } } }', {
        input: { modelId: categoryId, rows: names.slice(start, start + 1000) },
      });
    }
    for (let offset = 0; offset < CATEGORY_COUNT; offset += 100) {
      const data = await admin.ok(
        'query ($id: ID!, $offset: Int) { record { list(modelId: $id, limit: 100, offset: $offset, sort: "createdAt_asc") { items { id } } } }',
        { id: categoryId, offset },
      );
      categoryIds.push(...data.record.list.items.map((item: { id: string }) => item.id));
    }
    const product = await admin.createModel({ slug: 'product', name: 'Product', displayField: 'title', fields: PRODUCT_FIELDS });
    productId = product.id;
    for (let index = 0; index < 45; index++) {
      const row: Product = {
        title: `Item ${index + 1}${index % 7 === 0 ? ', "special"' : ''}`,
        sku: `SKU-${String(index + 1).padStart(3, '0')}`,
        price: Math.round(((index * 37) % 101) * 100 + 99) / 100,
        inStock: index % 3 !== 0,
        name: index % 2 === 0 ? { en: `Item ${index + 1}`, pl: `Rzecz ${index + 1}` } : { en: `Item ${index + 1}` },
        ...(index % 5 === 0 ? { category: categoryIds[index * 100]! } : {}),
      };
      products.push(row);
      await admin.createRecord(productId, row);
    }
    await signInThroughPage(page, setup.url);
  });

  after(async () => {
    await setup?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The products the view `inStock = true`, sorted by price descending, shows (computed here, not asked). */
  const inStockByPrice = () => products.filter((row) => row.inStock).sort((a, b) => b.price - a.price);
  const viewUrl = () =>
    `${setup.url}/admin#/models/${productId}/records?sort=price_desc&limit=20&filter=${encodeURIComponent(JSON.stringify({ inStock: { $eq: true } }))}`;

  const bySku = (rows: readonly object[]) =>
    [...rows].sort((a, b) => String((a as Product).sku).localeCompare(String((b as Product).sku)));

  async function downloadFrom(buttonName: string): Promise<string> {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: buttonName }).click()]);
    const path = join(dir, download.suggestedFilename());
    await download.saveAs(path);
    return path;
  }

  async function importedCopy(file: string, slug: string): Promise<Record<string, unknown>[]> {
    const copy = await admin.createModel({ slug, name: slug, displayField: 'title', fields: PRODUCT_FIELDS });
    const result = await runCli([
      'import',
      file,
      '--model',
      slug,
      '--url',
      setup.url,
      '--token',
      setup.workspace.token,
      '--workspace-id',
      setup.workspace.workspaceId,
      '--quiet',
    ]);
    assert.equal(result.code, 0, `import failed: ${result.stderr}`);
    const data = await admin.ok(
      'query ($id: ID!) { record { list(modelId: $id, limit: 100, sort: "createdAt_asc") { total items { data } } } }',
      { id: copy.id },
    );
    assert.equal(data.record.list.total, data.record.list.items.length);
    return data.record.list.items.map((item: { data: Record<string, unknown> }) => item.data);
  }

  test('exports the current view, every page of it, as CSV that the CLI imports back', async () => {
    await page.goto(viewUrl());
    const expected = inStockByPrice();
    await page.getByText(`Records 1–20 of ${expected.length}`).waitFor();
    assert.ok(expected.length > 20, 'the view spans more than one page');
    assert.deepEqual(await unlabelledControls(page), []);
    const file = await downloadFrom('Export CSV');
    assert.match(file, /product-\d{4}-\d{2}-\d{2}\.csv$/);
    await page.getByText(`Exported ${expected.length} records.`).waitFor();
    const text = await readFile(file, 'utf8');
    const lines = text.split('\r\n').filter((line) => line !== '');
    assert.equal(lines[0], 'title,sku,price,inStock,name.en,name.pl,category');
    assert.equal(lines.length, expected.length + 1);
    // The rows in the view's order: the SKU is the second cell (titles with a comma are quoted).
    assert.deepEqual(
      lines.slice(1).map((line) => /^(?:"(?:[^"]|"")*"|[^,]*),([^,]*),/.exec(line)?.[1]),
      expected.map((row) => row.sku),
    );
    const back = await importedCopy(file, 'product-csv-copy');
    assert.deepEqual(bySku(back), bySku(expected));
  });

  test('exports the same view as JSON: the data objects, which the CLI imports back', async () => {
    const file = await downloadFrom('Export JSON');
    assert.match(file, /\.json$/);
    const expected = inStockByPrice();
    assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), expected);
    assert.deepEqual(bySku(await importedCopy(file, 'product-json-copy')), bySku(expected));
  });

  test('deletes the selected records after a confirmation that says how many; a linked one is reported', async () => {
    // A record that another links to: the bulk delete leaves it and says so.
    const linked = await admin.createRecord(productId, { title: 'Linked item', sku: 'LINK-1', price: 1, inStock: true });
    const linker = await admin.createModel({
      slug: 'bundle',
      name: 'Bundle',
      displayField: 'title',
      fields: [
        { key: 'title', label: 'Title', type: 'text', required: true },
        { key: 'item', label: 'Item', type: 'relation', relationTo: 'model:product', relationType: 'hasOne' },
      ],
    });
    await admin.createRecord(linker.id, { title: 'Bundle', item: linked.id });
    await page.goto(`${setup.url}/admin#/models/${productId}/records?sort=sku_asc&limit=20`);
    await page.getByRole('heading', { level: 1, name: 'Product' }).waitFor();
    const total = products.length + 1;
    await page.getByText(`Records 1–20 of ${total}`).waitFor();
    const deleteButton = page.getByRole('button', { name: 'Delete selected' });
    assert.equal(await deleteButton.isDisabled(), true);
    await page.getByRole('checkbox', { name: 'Select Linked item' }).check();
    await page.getByRole('checkbox', { name: 'Select Item 2', exact: true }).check();
    await page.getByRole('checkbox', { name: 'Select Item 3', exact: true }).check();
    await page.getByText('3 records selected').waitFor();
    await deleteButton.click();
    const dialog = page.getByRole('dialog', { name: 'Delete 3 records?' });
    await dialog.waitFor();
    // Cancel deletes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(
      (await admin.ok('query ($id: ID!) { record { list(modelId: $id, limit: 1) { total } } }', { id: productId })).record.list
        .total,
      total,
    );
    await deleteButton.click();
    await page.getByRole('dialog', { name: 'Delete 3 records?' }).getByRole('button', { name: 'Delete 3 records' }).click();
    await page.getByRole('status').filter({ hasText: '2 records deleted.' }).waitFor();
    const report = page.getByRole('alert').filter({ hasText: 'Some records were not deleted.' });
    await report.getByText('2 of 3 records deleted.').waitFor();
    await report.getByText(/Linked item: other records still link to it/).waitFor();
    await page.getByText(`Records 1–20 of ${total - 2}`).waitFor();
    const left = await admin.ok('query ($id: ID!) { record { list(modelId: $id, limit: 100) { items { data } } } }', {
      id: productId,
    });
    const titles = left.record.list.items.map((item: { data: { title: string } }) => item.data.title);
    assert.ok(titles.includes('Linked item'));
    assert.ok(!titles.includes('Item 2') && !titles.includes('Item 3'));
    assert.equal(await deleteButton.isDisabled(), true, 'the selection starts empty again');

    // Select all on the page: as many as the page shows.
    await page.getByRole('checkbox', { name: 'Select all records on this page' }).check();
    await page.getByText('20 records selected').waitFor();
    await deleteButton.click();
    await page.getByRole('dialog', { name: 'Delete 20 records?' }).getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('checkbox', { name: 'Select all records on this page' }).uncheck();
    await page.getByText('None selected').waitFor();
  });

  test('the relation picker reads the 5,000-record target a page at a time and searches once per pause', async () => {
    const lists: { limit: unknown; filter: unknown }[] = [];
    const listener = (request: Request) => {
      if (!request.url().endsWith('/graphql') || request.method() !== 'POST') return;
      const body = request.postDataJSON() as { query: string; variables?: Record<string, unknown> };
      if (/list\(modelId/.test(body.query) && body.variables?.id === categoryId) {
        lists.push({ limit: body.variables?.limit, filter: body.variables?.filter });
      }
    };
    page.on('request', listener);
    try {
      // A product whose category is the 4,501st: far beyond the first page of the picker.
      const far = categoryIds[4500]!;
      const record = await admin.createRecord(productId, { title: 'Far item', sku: 'FAR-1', category: far });
      await page.goto(`${setup.url}/admin#/models/${productId}/records/${record.id}`);
      const field = page.locator('[data-field="category"]');
      const select = page.getByLabel('Category', { exact: true });
      await field.getByText(`100 of ${CATEGORY_COUNT} Category records listed`).waitFor();
      await select.locator('option:checked', { hasText: 'Category 4501' }).waitFor({ state: 'attached' });
      assert.equal(await select.locator('option').count(), 102, '(none), the current one and the first 100');

      const search = field.getByLabel('Find Category by name');
      await search.pressSequentially('Category 31', { delay: 30 });
      await field.getByText(/^20 of \d+ matches shown; type more to narrow them\.$/).waitFor();
      const searches = () => lists.filter((entry) => entry.filter !== undefined);
      assert.equal(searches().length, 1, `one search for the typed text, got ${JSON.stringify(searches())}`);
      await search.pressSequentially('07');
      await field.getByText('1 match.').waitFor();
      await field.getByRole('button', { name: 'Choose Category 3107' }).click();
      assert.equal(await select.locator('option:checked').innerText(), 'Category 3107');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Far item saved.' }).waitFor();
      const saved = await admin.ok('query ($id: ID!) { record { get(id: $id) { data } } }', { id: record.id });
      assert.equal(saved.record.get.data.category, categoryIds[3106]);
      // Never more than a page of the target at once.
      for (const entry of lists) assert.ok(typeof entry.limit === 'number' && entry.limit <= 100, JSON.stringify(entry));
      assert.ok(lists.length <= 4, `requests for the target: ${JSON.stringify(lists)}`);
    } finally {
      page.off('request', listener);
    }
  });
});
