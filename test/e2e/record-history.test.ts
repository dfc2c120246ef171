// End to end, in headless Chromium against a real server: the History section of a record's form. Records are made
// and changed through the API; the page lists their revisions (newest first, "Load more" for older ones), compares a
// revision with the current data (a row per changed field, its value then and now), restores one after a
// confirmation (the form then shows the restored data, and the history the new revision), shows a refusal of the
// server in the section, and shows a viewer the history without the Restore button.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { Admin, dataOf } from '../support/client.js';
import { setPassword } from '../support/session.js';
import { chromiumMissing, PASSWORD, signInThroughPage, startAdminSetup, type AdminSetup } from './support.js';

const missing = chromiumMissing();
if (missing && process.env.CI === 'true') {
  test('Chromium is installed', () => assert.fail(missing));
} else if (missing) {
  console.log(`# record-history e2e skipped: ${missing}`);
}

const VIEWER_EMAIL = 'viewer@acme.test';

describe('record form: the History section', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;
  let admin: Admin;
  let bookModelId: string;
  let viewerContext: BrowserContext | undefined;

  before(async () => {
    setup = await startAdminSetup();
    page = setup.page;
    admin = new Admin(setup.server, { token: setup.workspace.token, workspaceId: setup.workspace.workspaceId });
    const model = await admin.createModel({
      slug: 'book',
      name: 'Book',
      displayField: 'title',
      fields: [
        { key: 'title', label: 'Title', type: 'text', required: true },
        { key: 'price', label: 'Price', type: 'number' },
      ],
    });
    bookModelId = model.id;
    await signInThroughPage(page, setup.url);
  });

  after(async () => {
    await viewerContext?.close().catch(() => undefined);
    await setup?.close();
  });

  async function patch(id: string, data: Record<string, unknown>): Promise<void> {
    dataOf(await admin.patchRaw(id, data));
  }

  const formUrl = (modelId: string, id: string) => `${setup.url}/admin#/models/${modelId}/records/${id}`;
  const history = (on: Page) => on.getByRole('region', { name: 'History' });
  /** The revision numbers the History table lists, top to bottom. */
  const listedRevisions = async (on: Page) =>
    (await history(on).locator('table.revisions tbody th[scope="row"]').allInnerTexts()).map(Number);
  const revisionRow = (on: Page, revision: number): Locator =>
    history(on)
      .locator('table.revisions tbody tr')
      .filter({ has: on.locator('th[scope="row"]', { hasText: new RegExp(`^${revision}$`) }) });

  test('lists the revisions, compares revision 1 with the current one, and restores it as revision 4', async () => {
    const record = await admin.createRecord(bookModelId, { title: 'First draft', price: 10 });
    await patch(record.id, { title: 'Second draft' });
    await patch(record.id, { title: 'Final', price: 12 });

    await page.goto(formUrl(bookModelId, record.id));
    await page.getByRole('heading', { level: 1, name: 'Edit Final' }).waitFor();
    await history(page).getByText('3 revisions').waitFor();
    assert.deepEqual(await listedRevisions(page), [3, 2, 1]);
    const first = await revisionRow(page, 1).locator('td').allInnerTexts();
    assert.equal(first[0], 'Created');
    assert.equal(first[1], 'owner@acme.test');
    assert.match(first[2]!, /\d{4}/, 'when: a date and time');
    assert.match(await revisionRow(page, 3).innerText(), /Edited \(current\)/);
    assert.equal(await revisionRow(page, 3).getByRole('button').count(), 0, 'the current revision has nothing to compare');

    await history(page).getByRole('button', { name: 'Compare revision 1 with the current revision' }).click();
    await history(page).getByRole('heading', { name: 'Revision 1 compared with the current revision (3)' }).waitFor();
    const changes = history(page).locator('table.changes');
    assert.deepEqual(await changes.locator('thead th').allInnerTexts(), ['Field', 'Change', 'In revision 1', 'Now (revision 3)']);
    const rows = await changes
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((cell) => (cell as HTMLElement).innerText)));
    assert.deepEqual(rows, [
      ['Price\nprice', 'changed', '10', '12'],
      ['Title\ntitle', 'changed', 'First draft', 'Final'],
    ]);

    // Cancel first: nothing is written.
    await history(page).getByRole('button', { name: 'Restore this revision' }).click();
    await page.getByRole('dialog', { name: 'Restore revision 1?' }).getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await admin.getRecord(record.id)).data.title, 'Final');

    await history(page).getByRole('button', { name: 'Restore this revision' }).click();
    await page.getByRole('dialog', { name: 'Restore revision 1?' }).getByRole('button', { name: 'Restore revision' }).click();
    await page.getByRole('status').filter({ hasText: 'First draft restored to revision 1 (now revision 4).' }).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Edit First draft' }).waitFor();
    assert.equal(await page.getByLabel('Title').inputValue(), 'First draft');
    assert.equal(await page.getByLabel('Price').inputValue(), '10');
    await history(page).getByText('4 revisions').waitFor();
    assert.deepEqual(await listedRevisions(page), [4, 3, 2, 1]);
    assert.match(await revisionRow(page, 4).innerText(), /Restored \(current\)/);
    assert.deepEqual((await admin.getRecord(record.id)).data, { title: 'First draft', price: 10 });
  });

  test('a restore the server refuses is shown in the section, naming the field; the record stays as it was', async () => {
    const product = await admin.createProductModel({ slug: 'mug' });
    const record = await admin.createRecord(product.id, { sku: 'M-1', title: 'Mug' });
    await patch(record.id, { sku: 'M-2' });
    // Another record takes the old SKU: revision 1 no longer fits.
    await admin.createRecord(product.id, { sku: 'M-1', title: 'Other mug' });

    await page.goto(formUrl(product.id, record.id));
    await page.getByRole('heading', { level: 1, name: 'Edit Mug' }).waitFor();
    await history(page).getByRole('button', { name: 'Compare revision 1 with the current revision' }).click();
    await history(page).getByRole('button', { name: 'Restore this revision' }).click();
    await page.getByRole('dialog', { name: 'Restore revision 1?' }).getByRole('button', { name: 'Restore revision' }).click();
    const alert = history(page).getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /^The revision was not restored\. sku: /);
    assert.equal((await admin.getRecord(record.id)).data.sku, 'M-2');
    assert.deepEqual(await listedRevisions(page), [2, 1]);
  });

  test('a viewer sees the history and the comparison, not the Restore button; Load more reads older revisions', async () => {
    const record = await admin.createRecord(bookModelId, { title: 'Rev 1' });
    for (let revision = 2; revision <= 23; revision++) await patch(record.id, { title: `Rev ${revision}` });
    await setup.server.createToken({ workspaceId: setup.workspace.workspaceId, email: VIEWER_EMAIL, role: 'viewer' });
    await setPassword(setup.server, VIEWER_EMAIL, PASSWORD);
    viewerContext = await setup.browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
    const viewer = await viewerContext.newPage();
    viewer.setDefaultTimeout(15_000);
    await signInThroughPage(viewer, setup.url, VIEWER_EMAIL, PASSWORD);

    await viewer.goto(formUrl(bookModelId, record.id));
    await viewer.getByRole('heading', { level: 1, name: 'View Rev 23' }).waitFor();
    await history(viewer).getByText('Showing 20 of 23 revisions').waitFor();
    assert.deepEqual(
      await listedRevisions(viewer),
      Array.from({ length: 20 }, (_, index) => 23 - index),
    );
    await history(viewer).getByRole('button', { name: 'Load more revisions' }).click();
    await history(viewer).getByText('23 revisions', { exact: true }).waitFor();
    assert.deepEqual(
      await listedRevisions(viewer),
      Array.from({ length: 23 }, (_, index) => 23 - index),
    );
    assert.equal(await history(viewer).getByRole('button', { name: 'Load more revisions' }).count(), 0);

    await history(viewer).getByRole('button', { name: 'Compare revision 1 with the current revision' }).click();
    await history(viewer).getByRole('heading', { name: 'Revision 1 compared with the current revision (23)' }).waitFor();
    assert.deepEqual(await history(viewer).locator('table.changes tbody td').allInnerTexts(), ['changed', 'Rev 1', 'Rev 23']);
    assert.equal(await viewer.getByRole('button', { name: 'Restore this revision' }).count(), 0);
  });
});
