// End to end, in headless Chromium against a real server: the record form returns to the records list in the view it
// was opened from (filter, sort, page size and page), after saving, cancelling, creating or deleting, and the view
// stays in the address, so a reload of the form and the back button keep it. What each page should show is computed
// here from the rows made through the API.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { Admin } from '../support/client.js';
import { chromiumMissing, signInThroughPage, startAdminSetup, type AdminSetup } from './support.js';

const missing = chromiumMissing();
if (missing && process.env.CI === 'true') {
  test('Chromium is installed', () => assert.fail(missing));
} else if (missing) {
  console.log(`# record-form-return e2e skipped: ${missing}`);
}

interface Book {
  title: string;
  price: number;
}

/** Book 01 … Book 45, priced 1 … 45. */
const BOOKS: Book[] = Array.from({ length: 45 }, (_, index) => ({
  title: `Book ${String(index + 1).padStart(2, '0')}`,
  price: index + 1,
}));

describe('record form: back to the list in the view it was opened from', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;
  let modelId: string;
  /** The rows as they are now: the tests change them, and the expected pages follow. */
  let books: Book[] = [...BOOKS];

  before(async () => {
    setup = await startAdminSetup();
    page = setup.page;
    const admin = new Admin(setup.server, { token: setup.workspace.token, workspaceId: setup.workspace.workspaceId });
    const model = await admin.createModel({
      slug: 'book',
      name: 'Book',
      displayField: 'title',
      fields: [
        { key: 'title', label: 'Title', type: 'text', required: true },
        { key: 'price', label: 'Price', type: 'number' },
      ],
    });
    modelId = model.id;
    for (const book of BOOKS) await admin.createRecord(modelId, { ...book });
    await signInThroughPage(page, setup.url);
  });

  after(async () => {
    await setup?.close();
  });

  interface View {
    minPrice: number;
    limit: number;
    offset: number;
  }

  /** The list at `view`: titles descending, price at least `minPrice`. */
  const listUrl = (view: View) => {
    const query = new URLSearchParams({
      sort: 'title_desc',
      limit: String(view.limit),
      offset: String(view.offset),
      filter: JSON.stringify({ price: { $gte: view.minPrice } }),
    });
    return `${setup.url}/admin#/models/${modelId}/records?${query}`;
  };

  const expectedPage = (view: View) => {
    const matching = books
      .filter((book) => book.price >= view.minPrice)
      .map((book) => book.title)
      .sort()
      .reverse();
    return { total: matching.length, titles: matching.slice(view.offset, view.offset + view.limit) };
  };

  /** Waits for the list in `view` and checks the address, the rows, the sort and the filter bar. */
  async function assertListShows(view: View): Promise<void> {
    const { total, titles } = expectedPage(view);
    const status = `Records ${view.offset + 1}–${view.offset + titles.length} of ${total}`;
    await page.locator('.pager-status').filter({ hasText: status }).waitFor();
    const query = new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '');
    assert.match(new URL(page.url()).hash, new RegExp(`^#/models/${modelId}/records\\?`));
    assert.equal(query.get('sort'), 'title_desc');
    assert.equal(query.get('limit'), String(view.limit));
    assert.equal(query.get('offset'), String(view.offset));
    assert.deepEqual(JSON.parse(query.get('filter') ?? 'null'), { price: { $gte: view.minPrice } });
    assert.deepEqual(await page.locator('table.records tbody th[scope="row"]').allInnerTexts(), titles);
    await page.locator('th[aria-sort="descending"]').filter({ hasText: 'Title' }).waitFor();
    assert.equal(await page.getByLabel('Condition 1: field').inputValue(), 'price');
    assert.equal(await page.getByLabel('Condition 1: value').inputValue(), String(view.minPrice));
  }

  const pageTwo: View = { minPrice: 10, limit: 20, offset: 20 };

  test('saving an edit returns to the filtered, sorted page; a reload of the form keeps the view', async () => {
    await page.goto(listUrl(pageTwo));
    await assertListShows(pageTwo);
    await page.getByRole('link', { name: 'Book 20', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit Book 20' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Edit Book 20' }).waitFor();
    await page.getByLabel('Price').fill('21');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Book 20 saved.' }).waitFor();
    books = books.map((book) => (book.title === 'Book 20' ? { ...book, price: 21 } : book));
    await assertListShows(pageTwo);
  });

  test('cancel and the breadcrumb return to the view; so does the back button', async () => {
    await page.getByRole('link', { name: 'Edit Book 18' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit Book 18' }).waitFor();
    await page.getByRole('link', { name: 'Cancel' }).click();
    await assertListShows(pageTwo);

    await page.getByRole('link', { name: 'Book 17', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit Book 17' }).waitFor();
    await page.locator('.breadcrumbs').getByRole('link', { name: 'Book', exact: true }).click();
    await assertListShows(pageTwo);

    await page.getByRole('link', { name: 'Book 16', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit Book 16' }).waitFor();
    await page.goBack();
    await assertListShows(pageTwo);
  });

  test('a new record made from the view returns to it', async () => {
    await page.getByRole('link', { name: 'New record' }).click();
    await page.getByRole('heading', { level: 1, name: 'New Book record' }).waitFor();
    await page.getByLabel('Title').fill('Book 46');
    await page.getByLabel('Price').fill('46');
    await page.getByRole('button', { name: 'Create record' }).click();
    await page.getByRole('status').filter({ hasText: 'Book 46 created.' }).waitFor();
    books.push({ title: 'Book 46', price: 46 });
    await assertListShows(pageTwo);
  });

  test('deleting returns to the view; when the page empties, to the page before it', async () => {
    await page.getByRole('link', { name: 'Book 12', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit Book 12' }).waitFor();
    await page.getByRole('button', { name: 'Delete record' }).click();
    await page.getByRole('dialog', { name: 'Delete Book 12?' }).getByRole('button', { name: 'Delete record' }).click();
    await page.getByRole('status').filter({ hasText: 'Book 12 deleted.' }).waitFor();
    books = books.filter((book) => book.title !== 'Book 12');
    await assertListShows(pageTwo);

    // The only record of the last page: the list shows the page before, in the same filter and sort.
    const lastPage: View = { minPrice: 26, limit: 20, offset: 20 };
    assert.equal(expectedPage(lastPage).titles.length, 1);
    const [only] = expectedPage(lastPage).titles;
    await page.goto(listUrl(lastPage));
    await assertListShows(lastPage);
    await page.getByRole('link', { name: only, exact: true }).click();
    await page.getByRole('button', { name: 'Delete record' }).click();
    await page
      .getByRole('dialog', { name: `Delete ${only}?` })
      .getByRole('button', { name: 'Delete record' })
      .click();
    books = books.filter((book) => book.title !== only);
    await assertListShows({ ...lastPage, offset: 0 });
    const message = page.getByRole('status').filter({ hasText: `${only} deleted.` });
    assert.ok(await message.isVisible(), 'the message stays on the page shown instead');
  });
});
