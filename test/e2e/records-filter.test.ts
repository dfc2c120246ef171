// End to end, in headless Chromium against a real server: the records table's filter bar (conditions AND-ed,
// kept in the URL, the server's refusal shown as the server words it), sorting by a number column both ways, and
// the relation picker's search of the target model. The rows are made through the API; what the table should show
// is computed here from those rows, not asked of the service.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { Admin, dataOf } from '../support/client.js';
import { CATEGORIES, createCategoriesAndTags } from './catalogue.js';
import { chromiumMissing, signInThroughPage, startAdminSetup, unlabelledControls, type AdminSetup } from './support.js';

const missing = chromiumMissing();
if (missing && process.env.CI === 'true') {
  test('Chromium is installed', () => assert.fail(missing));
} else if (missing) {
  console.log(`# records-filter e2e skipped: ${missing}`);
}

interface ProductRow {
  title: string;
  price?: number;
  inStock?: boolean;
  released?: string;
  name?: Record<string, string>;
  dims?: { width?: number };
}

const PRODUCTS: ProductRow[] = [
  {
    title: 'Match ball',
    price: 149.99,
    inStock: true,
    released: '2025-03-01',
    name: { en: 'Match ball', pl: 'Piłka meczowa' },
    dims: { width: 22 },
  },
  {
    title: 'Training Ball',
    price: 19.5,
    inStock: true,
    released: '2024-11-20',
    name: { en: 'Training ball', pl: 'Piłka treningowa' },
    dims: { width: 21 },
  },
  {
    title: 'Ball pump',
    price: 12,
    inStock: false,
    released: '2025-07-15',
    name: { en: 'Ball pump', pl: 'Pompka do piłki' },
    dims: { width: 5 },
  },
  {
    title: 'Beach BALL XL',
    price: 24,
    inStock: false,
    released: '2023-05-05',
    name: { pl: 'Piłka plażowa' },
    dims: { width: 40 },
  },
  {
    title: 'Keeper gloves',
    price: 35,
    inStock: true,
    released: '2025-01-10',
    name: { en: 'Keeper gloves', pl: 'Rękawice' },
    dims: { width: 30 },
  },
  { title: 'Goal net', price: 89, inStock: false },
  { title: 'Football boots', price: 120, inStock: true, released: '2025-02-02' },
  { title: 'Shin guards', price: 15.75, released: '2024-08-08' },
  { title: 'Basketball', price: 30, inStock: true, released: '2025-09-09' },
  { title: 'Water bottle', price: 8.5, inStock: true },
  { title: 'Cone set', inStock: false, released: '2025-04-04' },
  { title: 'Ballet shoes', price: 55, inStock: false, released: '2024-12-12' },
];

describe('records table: filter bar, sort by column, relation search', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;
  let admin: Admin;
  let productModelId: string;
  let categoryIds = new Map<string, string>();
  let tagIds = new Map<string, string>();

  before(async () => {
    setup = await startAdminSetup();
    page = setup.page;
    admin = new Admin(setup.server, { token: setup.workspace.token, workspaceId: setup.workspace.workspaceId });
    ({ categoryIds, tagIds } = await createCategoriesAndTags(admin));
    const product = await admin.createModel({
      slug: 'product',
      name: 'Product',
      displayField: 'title',
      fields: [
        { key: 'title', label: 'Title', type: 'text', required: true },
        { key: 'price', label: 'Price', type: 'number' },
        { key: 'inStock', label: 'In stock', type: 'boolean' },
        { key: 'released', label: 'Released', type: 'date' },
        { key: 'category', label: 'Category', type: 'relation', relationTo: 'model:category', relationType: 'hasOne' },
        { key: 'tags', label: 'Tags', type: 'relation', relationTo: 'model:tag', relationType: 'hasMany' },
        { key: 'name', label: 'Name', type: 'translatable' },
        { key: 'dims', label: 'Dimensions', type: 'object', fields: [{ key: 'width', label: 'Width', type: 'number' }] },
      ],
    });
    productModelId = product.id;
    for (const row of PRODUCTS) await admin.createRecord(productModelId, row);
    await signInThroughPage(page, setup.url);
  });

  after(async () => {
    await setup?.close();
  });

  const recordsUrl = () => `${setup.url}/admin#/models/${productModelId}/records`;
  const shownTitles = () => page.locator('table.records tbody th[scope="row"]').allInnerTexts();
  const sortedTitles = (rows: readonly ProductRow[]) => rows.map((row) => row.title).sort();
  const counted = (n: number) => page.locator('.pager-status').filter({ hasText: new RegExp(`^Records 1–${n} of ${n}$`) });
  const condition = (n: number, part: 'field' | 'operator' | 'value' | 'locale') => page.getByLabel(`Condition ${n}: ${part}`);

  test('two conditions AND-ed show exactly the matching records, the count follows, the URL keeps them', async () => {
    await page.goto(recordsUrl());
    await page.getByRole('heading', { level: 1, name: 'Product' }).waitFor();
    await counted(PRODUCTS.length).waitFor();

    await page.getByRole('button', { name: 'Add condition' }).click();
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('aria-label')),
      'Condition 1: field',
      'a new condition takes the focus',
    );
    await condition(1, 'field').selectOption('price');
    await condition(1, 'operator').selectOption('gte');
    await condition(1, 'value').fill('20');
    await page.getByRole('button', { name: 'Add condition' }).click();
    await condition(2, 'field').selectOption('title');
    await condition(2, 'operator').selectOption('contains');
    await condition(2, 'value').fill('BALL');
    assert.deepEqual(await unlabelledControls(page), []);
    await condition(2, 'value').press('Enter');

    const expected = PRODUCTS.filter(
      (row) => row.price !== undefined && row.price >= 20 && row.title.toLowerCase().includes('ball'),
    );
    assert.ok(expected.length >= 2 && expected.length < PRODUCTS.length, 'the test rows make a real selection');
    await counted(expected.length).waitFor();
    assert.deepEqual((await shownTitles()).sort(), sortedTitles(expected));
    assert.match(
      decodeURIComponent(new URL(page.url()).hash),
      /filter=\{"price":\{"\$gte":20\},"title":\{"\$contains":"BALL"\}\}/,
    );
    // The control that applied the filter keeps the focus on the new page.
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Apply filter');

    // A reload shows the same records and the same conditions.
    await page.reload();
    await counted(expected.length).waitFor();
    assert.deepEqual((await shownTitles()).sort(), sortedTitles(expected));
    assert.equal(await condition(1, 'field').inputValue(), 'price');
    assert.equal(await condition(1, 'operator').inputValue(), 'gte');
    assert.equal(await condition(1, 'value').inputValue(), '20');
    assert.equal(await condition(2, 'value').inputValue(), 'BALL');
    // The pager keeps the filter: another page size shows the same records.
    await page.getByLabel('Per page').selectOption('20');
    await page.waitForURL(/limit=20/);
    await counted(expected.length).waitFor();
    assert.deepEqual((await shownTitles()).sort(), sortedTitles(expected));
    await page.goBack();
    await page.waitForURL(/limit=50/);

    // Removing the text condition leaves the price one.
    await page.getByRole('button', { name: 'Remove condition 2' }).click();
    const pricey = PRODUCTS.filter((row) => row.price !== undefined && row.price >= 20);
    await counted(pricey.length).waitFor();
    assert.deepEqual((await shownTitles()).sort(), sortedTitles(pricey));

    // Back brings the two conditions again.
    await page.goBack();
    await counted(expected.length).waitFor();
    assert.equal(await condition(2, 'value').inputValue(), 'BALL');
  });

  test('boolean and date conditions: in stock, released on or after a day', async () => {
    await page.getByRole('button', { name: 'Clear all' }).click();
    await counted(PRODUCTS.length).waitFor();
    await page.getByRole('button', { name: 'Add condition' }).click();
    await condition(1, 'field').selectOption('inStock');
    await condition(1, 'value').selectOption('false');
    await page.getByRole('button', { name: 'Add condition' }).click();
    await condition(2, 'field').selectOption('released');
    await condition(2, 'operator').selectOption('gte');
    await condition(2, 'value').fill('2024-12-01');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    const expected = PRODUCTS.filter(
      (row) => row.inStock === false && row.released !== undefined && row.released >= '2024-12-01',
    );
    assert.ok(expected.length >= 2);
    await counted(expected.length).waitFor();
    assert.deepEqual((await shownTitles()).sort(), sortedTitles(expected));
  });

  test('a condition on one locale of a translatable field and one on a sub-field of an object field', async () => {
    await page.getByRole('button', { name: 'Clear all' }).click();
    await counted(PRODUCTS.length).waitFor();
    await page.getByRole('button', { name: 'Add condition' }).click();
    await condition(1, 'field').selectOption('name');
    await condition(1, 'locale').fill('pl');
    await condition(1, 'operator').selectOption('startsWith');
    await condition(1, 'value').fill('piłka');
    await page.getByRole('button', { name: 'Add condition' }).click();
    await condition(2, 'field').selectOption('dims.width');
    await condition(2, 'operator').selectOption('gt');
    await condition(2, 'value').fill('21');
    await condition(2, 'value').press('Enter');
    const expected = PRODUCTS.filter(
      (row) => (row.name?.pl ?? '').toLowerCase().startsWith('piłka') && row.dims?.width !== undefined && row.dims.width > 21,
    );
    assert.ok(expected.length >= 2);
    await counted(expected.length).waitFor();
    assert.deepEqual((await shownTitles()).sort(), sortedTitles(expected));
    assert.match(
      decodeURIComponent(new URL(page.url()).hash),
      /"name\.pl":\{"\$startsWith":"piłka"\},"dims\.width":\{"\$gt":21\}/,
    );
  });

  test('sorts by a number column both ways; records without a price come last', async () => {
    await page.getByRole('button', { name: 'Clear all' }).click();
    await counted(PRODUCTS.length).waitFor();
    const priced = PRODUCTS.filter((row) => row.price !== undefined);
    const unpriced = PRODUCTS.filter((row) => row.price === undefined).map((row) => row.title);
    const ascending = [...priced].sort((a, b) => a.price! - b.price!).map((row) => row.title);
    const descending = [...priced].sort((a, b) => b.price! - a.price!).map((row) => row.title);
    const priceHeader = page.locator('table.records th').filter({ hasText: 'Price' });

    await page.getByRole('link', { name: 'Price: sort ascending' }).click();
    await page.locator('th[aria-sort="ascending"]').filter({ hasText: 'Price' }).waitFor();
    assert.deepEqual(await shownTitles(), [...ascending, ...unpriced]);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Price: sort descending');

    await page.getByRole('link', { name: 'Price: sort descending' }).click();
    await page.locator('th[aria-sort="descending"]').filter({ hasText: 'Price' }).waitFor();
    assert.deepEqual(await shownTitles(), [...descending, ...unpriced]);
    assert.equal(await page.locator('th[aria-sort="none"]').filter({ hasText: 'Created' }).count(), 1);

    // The order is in the URL: a reload keeps it, and a filter applied keeps it too.
    await page.reload();
    await priceHeader.and(page.locator('[aria-sort="descending"]')).waitFor();
    assert.deepEqual(await shownTitles(), [...descending, ...unpriced]);
    await page.getByRole('button', { name: 'Add condition' }).click();
    await condition(1, 'field').selectOption('price');
    await condition(1, 'operator').selectOption('lt');
    await condition(1, 'value').fill('30');
    await condition(1, 'value').press('Enter');
    const cheap = descending.filter((title) => PRODUCTS.find((row) => row.title === title)!.price! < 30);
    await counted(cheap.length).waitFor();
    assert.deepEqual(await shownTitles(), cheap);
  });

  test("a value of the wrong type shows the server's refusal, naming the path, next to the bar", async () => {
    await condition(1, 'value').fill('abc');
    await condition(1, 'value').press('Enter');
    const alert = page.locator('.filter-bar [role="alert"]');
    await alert.waitFor();
    const answer = await admin.q('query($id: ID!, $filter: JSON) { record { list(modelId: $id, filter: $filter) { total } } }', {
      id: productModelId,
      filter: { price: { $lt: 'abc' } },
    });
    const serverMessage: string = answer.body.errors[0].message;
    assert.equal(answer.body.errors[0].extensions.code, 'BAD_USER_INPUT');
    assert.match(serverMessage, /^filter\.price\.\$lt: /);
    assert.equal(await alert.innerText(), serverMessage);
    assert.equal(await condition(1, 'value').getAttribute('aria-invalid'), 'true');
    await page.getByText('No records shown: the server refused the filter above.').waitFor();
    assert.equal(await page.locator('table.records').count(), 0);
  });

  test('a sort the server does not know shows its refusal and a way back', async () => {
    await page.goto(`${recordsUrl()}?sort=colour_asc`);
    const alert = page.getByRole('alert').filter({ hasText: /^sort: must be one of / });
    await alert.waitFor();
    for (const allowed of ['createdAt_desc', 'price_asc', 'price_desc', 'released_asc', 'inStock_desc']) {
      assert.ok((await alert.innerText()).includes(allowed), `the message names ${allowed}`);
    }
    await page.getByRole('link', { name: 'Show them newest first' }).click();
    await counted(PRODUCTS.length).waitFor();
  });

  test('the filter bar works from the keyboard alone', async () => {
    await page.getByRole('button', { name: 'Add condition' }).focus();
    await page.keyboard.press('Enter');
    // The new condition's field (the first field, Title) has the focus; its operator is "is".
    const focusedLabel = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    assert.equal(await focusedLabel(), 'Condition 1: field');
    await page.keyboard.press('Tab');
    assert.equal(await focusedLabel(), 'Condition 1: operator');
    await page.keyboard.press('Tab');
    assert.equal(await focusedLabel(), 'Condition 1: value');
    await page.keyboard.type('Goal net');
    await page.keyboard.press('Enter');
    await counted(1).waitFor();
    assert.deepEqual(await shownTitles(), ['Goal net']);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Apply filter');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await focusedLabel(), 'Remove condition 1');
    await page.keyboard.press('Enter');
    await counted(PRODUCTS.length).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Add condition');
  });

  test('the relation picker finds a target by part of its name and saves the relation', async () => {
    await page.goto(`${setup.url}/admin#/models/${productModelId}/records/new`);
    await page.getByRole('heading', { level: 1, name: 'New Product record' }).waitFor();
    await page.getByLabel('Title').fill('Chef knife');
    await page.getByLabel('Price').fill('42');

    const categoryField = page.locator('[data-field="category"]');
    await categoryField.getByLabel('Find Category by name').fill('KITCH');
    const kitchens = CATEGORIES.filter((name) => name.toLowerCase().includes('kitch'));
    assert.equal(kitchens.length, 2);
    await categoryField.getByText(`${kitchens.length} matches.`).waitFor();
    assert.deepEqual((await categoryField.locator('.relation-matches button').allInnerTexts()).sort(), [...kitchens].sort());
    await categoryField.getByRole('button', { name: 'Choose Kitchen tools' }).click();
    assert.equal(await page.getByLabel('Category', { exact: true }).inputValue(), categoryIds.get('Kitchen tools'));

    // Tags are named by a translatable field: a part of any translation finds them, shown in the reader's language.
    const tags = page.locator('[data-field="tags"]');
    const search = tags.getByLabel('Find Tag by name');
    await search.fill('PODAR');
    // Enter searches at once and does not submit the record form.
    await search.press('Enter');
    await tags.getByRole('button', { name: 'Add Gift cards' }).click();
    await search.fill('gift');
    await tags.getByText('2 matches.').waitFor();
    await tags.getByRole('button', { name: 'Add Gifts' }).click();
    await tags.getByText('Chosen: Gift cards, Gifts').or(tags.getByText('Chosen: Gifts, Gift cards')).waitFor();
    await search.fill('no such tag');
    await tags.getByText('No Tag record matches “no such tag”.').waitFor();
    assert.deepEqual(await unlabelledControls(page), []);

    await page.getByRole('button', { name: 'Create record' }).click();
    await page.getByRole('status').filter({ hasText: 'Chef knife created' }).waitFor();
    const saved = dataOf(
      await admin.q('query($id: ID!) { record { list(modelId: $id, limit: 100) { items { data } } } }', { id: productModelId }),
    ).record.list.items.find((item: { data: { title: string } }) => item.data.title === 'Chef knife');
    assert.equal(saved.data.category, categoryIds.get('Kitchen tools'));
    assert.deepEqual([...saved.data.tags].sort(), [tagIds.get('Gift cards'), tagIds.get('Gifts')].sort());
  });
});
