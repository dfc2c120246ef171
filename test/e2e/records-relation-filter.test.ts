// End to end, in headless Chromium against a real server: the filter bar's conditions on relation fields. The value
// is picked by searching the target model by its display field (the record form's search), shown by name, and sent
// as the record's id with the operators of the filter language: is / is not / is one of / is none of on a hasOne
// relation, holds on a hasMany one. What the table should show is computed here from the rows made through the API.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { Admin } from '../support/client.js';
import { CATEGORIES, createCategoriesAndTags } from './catalogue.js';
import { chromiumMissing, signInThroughPage, startAdminSetup, unlabelledControls, type AdminSetup } from './support.js';

const missing = chromiumMissing();
if (missing && process.env.CI === 'true') {
  test('Chromium is installed', () => assert.fail(missing));
} else if (missing) {
  console.log(`# records-relation-filter e2e skipped: ${missing}`);
}

interface ProductRow {
  title: string;
  category?: string;
  tags?: string[];
}

const PRODUCTS: ProductRow[] = [
  { title: 'Chef knife', category: 'Kitchen tools', tags: ['Gifts'] },
  { title: 'Cutting board', category: 'Kitchen tools', tags: ['Gift cards'] },
  { title: 'Grill tongs', category: 'Outdoor kitchen', tags: ['Summer', 'Sale'] },
  { title: 'Rake', category: 'Garden', tags: ['Sale'] },
  { title: 'Football', category: 'Sports gear', tags: ['Summer', 'Gifts'] },
  { title: 'Kite', category: 'Kids toys', tags: ['Summer'] },
  { title: 'Mystery box' },
];

describe('records table: filter conditions on relation fields', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;
  let productModelId: string;
  let categoryIds = new Map<string, string>();
  let tagIds = new Map<string, string>();

  before(async () => {
    setup = await startAdminSetup();
    page = setup.page;
    const admin = new Admin(setup.server, { token: setup.workspace.token, workspaceId: setup.workspace.workspaceId });
    ({ categoryIds, tagIds } = await createCategoriesAndTags(admin));
    const product = await admin.createModel({
      slug: 'product',
      name: 'Product',
      displayField: 'title',
      fields: [
        { key: 'title', label: 'Title', type: 'text', required: true },
        { key: 'category', label: 'Category', type: 'relation', relationTo: 'model:category', relationType: 'hasOne' },
        { key: 'tags', label: 'Tags', type: 'relation', relationTo: 'model:tag', relationType: 'hasMany' },
      ],
    });
    productModelId = product.id;
    for (const row of PRODUCTS) {
      await admin.createRecord(productModelId, {
        title: row.title,
        ...(row.category ? { category: categoryIds.get(row.category)! } : {}),
        ...(row.tags ? { tags: row.tags.map((name) => tagIds.get(name)!) } : {}),
      });
    }
    await signInThroughPage(page, setup.url);
  });

  after(async () => {
    await setup?.close();
  });

  const recordsUrl = () => `${setup.url}/admin#/models/${productModelId}/records`;
  const shownTitles = async () => (await page.locator('table.records tbody th[scope="row"]').allInnerTexts()).sort();
  const titlesOf = (rows: readonly ProductRow[]) => rows.map((row) => row.title).sort();
  const counted = (n: number) => page.locator('.pager-status').filter({ hasText: new RegExp(`^Records 1–${n} of ${n}$`) });
  const condition = (n: number, part: 'field' | 'operator' | 'value') => page.getByLabel(`Condition ${n}: ${part}`);
  const appliedFilter = () => {
    const param = new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '').get('filter');
    return param === null ? undefined : JSON.parse(param);
  };
  const chosenNames = (n: number) => condition(n, 'value').getByRole('listitem').locator('span').allInnerTexts();

  test('"is" on a hasOne relation: the record is found by part of its name, shown by name, sent as its id', async () => {
    await page.goto(recordsUrl());
    await counted(PRODUCTS.length).waitFor();
    await page.getByRole('button', { name: 'Add condition' }).click();
    await condition(1, 'field').selectOption('category');
    assert.equal(await condition(1, 'operator').inputValue(), 'eq');
    const value = condition(1, 'value');
    await value.getByText('No Category record chosen.').waitFor();
    assert.equal(await value.locator('input:not([type="search"])').count(), 0, 'no box for a raw record id');

    await value.getByLabel('Find Category by name').fill('KITCH');
    const kitchens = CATEGORIES.filter((name) => name.toLowerCase().includes('kitch'));
    await value.getByText(`${kitchens.length} matches.`).waitFor();
    assert.deepEqual((await value.locator('.relation-matches button').allInnerTexts()).sort(), [...kitchens].sort());
    await value.getByRole('button', { name: 'Choose Kitchen tools' }).click();
    assert.deepEqual(await chosenNames(1), ['Kitchen tools']);
    assert.deepEqual(await unlabelledControls(page), []);

    await page.getByRole('button', { name: 'Apply filter' }).click();
    const expected = PRODUCTS.filter((row) => row.category === 'Kitchen tools');
    await counted(expected.length).waitFor();
    assert.deepEqual(await shownTitles(), titlesOf(expected));
    assert.deepEqual(appliedFilter(), { category: { $eq: categoryIds.get('Kitchen tools') } });

    // From the URL alone (a reload, a shared link), the condition shows the record's name, not its id.
    await page.reload();
    await counted(expected.length).waitFor();
    await condition(1, 'value').getByText('Kitchen tools', { exact: true }).waitFor();
    assert.deepEqual(await chosenNames(1), ['Kitchen tools']);

    // Another record replaces the one chosen: "is" takes one.
    await condition(1, 'value').getByLabel('Find Category by name').fill('garden');
    await condition(1, 'value').getByRole('button', { name: 'Choose Garden' }).click();
    assert.deepEqual(await chosenNames(1), ['Garden']);
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await counted(1).waitFor();
    assert.deepEqual(await shownTitles(), ['Rake']);
  });

  test('"is none of" takes several records, each removable; records without one are included, as the language says', async () => {
    await page.goto(recordsUrl());
    await counted(PRODUCTS.length).waitFor();
    await page.getByRole('button', { name: 'Add condition' }).click();
    await condition(1, 'field').selectOption('category');
    await condition(1, 'operator').selectOption('nin');
    const value = condition(1, 'value');
    const search = value.getByLabel('Find Category by name');
    await search.fill('kitchen');
    await value.getByRole('button', { name: 'Add Kitchen tools' }).click();
    await value.getByRole('button', { name: 'Add Outdoor kitchen' }).click();
    await search.fill('gard');
    // Enter searches at once and does not apply the filter.
    await search.press('Enter');
    await value.getByRole('button', { name: 'Add Garden' }).click();
    assert.deepEqual((await chosenNames(1)).sort(), ['Garden', 'Kitchen tools', 'Outdoor kitchen']);
    assert.equal(appliedFilter(), undefined);

    await value.getByRole('button', { name: 'Remove Outdoor kitchen' }).click();
    assert.deepEqual((await chosenNames(1)).sort(), ['Garden', 'Kitchen tools']);
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('type')),
      'search',
      'the focus goes to the search box',
    );
    await page.getByRole('button', { name: 'Apply filter' }).click();
    const excluded = ['Kitchen tools', 'Garden'];
    const expected = PRODUCTS.filter((row) => row.category === undefined || !excluded.includes(row.category));
    assert.ok(expected.some((row) => row.category === undefined));
    await counted(expected.length).waitFor();
    assert.deepEqual(await shownTitles(), titlesOf(expected));
    const filter = appliedFilter();
    assert.deepEqual(Object.keys(filter.category), ['$nin']);
    assert.deepEqual([...filter.category.$nin].sort(), excluded.map((name) => categoryIds.get(name)).sort());

    // "is one of" keeps the records chosen; "is" keeps the first.
    await condition(1, 'operator').selectOption('in');
    assert.deepEqual((await chosenNames(1)).sort(), ['Garden', 'Kitchen tools']);
    await page.getByRole('button', { name: 'Apply filter' }).click();
    const included = PRODUCTS.filter((row) => row.category !== undefined && excluded.includes(row.category));
    await counted(included.length).waitFor();
    assert.deepEqual(await shownTitles(), titlesOf(included));
  });

  test('"holds" on a hasMany relation, found by a part of any translation of a translatable name', async () => {
    await page.goto(recordsUrl());
    await counted(PRODUCTS.length).waitFor();
    await page.getByRole('button', { name: 'Add condition' }).click();
    await condition(1, 'field').selectOption('tags');
    assert.equal(await condition(1, 'operator').inputValue(), 'contains');
    const value = condition(1, 'value');
    await value.getByLabel('Find Tag by name').fill('PREZENT');
    await value.getByText('1 match.').waitFor();
    await value.getByRole('button', { name: 'Choose Gifts' }).click();
    await page.getByRole('button', { name: 'Apply filter' }).click();
    const expected = PRODUCTS.filter((row) => row.tags?.includes('Gifts'));
    await counted(expected.length).waitFor();
    assert.deepEqual(await shownTitles(), titlesOf(expected));
    assert.deepEqual(appliedFilter(), { tags: { $contains: tagIds.get('Gifts') } });

    // A condition with no record chosen is not sent.
    await condition(1, 'value').getByRole('button', { name: 'Remove Gifts' }).click();
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.locator('.filter-bar [role="alert"]').filter({ hasText: 'Condition 1 (Tags): enter a value' }).waitFor();
    assert.deepEqual(appliedFilter(), { tags: { $contains: tagIds.get('Gifts') } });
  });

  test("a condition on the record's own id is still typed", async () => {
    await page.goto(recordsUrl());
    await counted(PRODUCTS.length).waitFor();
    await page.getByRole('button', { name: 'Add condition' }).click();
    await condition(1, 'field').selectOption('id');
    assert.equal(await condition(1, 'value').getAttribute('placeholder'), 'record id');
  });
});
