// End to end, in headless Chromium against a real server: drafts in the admin application (docs/lifecycle.md). The
// model editor's Drafts checkbox (on publishes every record; off is refused with the server's CONFLICT, shown at the
// row); the records table of a model with drafts (a status badge per row, a status filter that sends `status` to
// record.list and is kept in the address, Publish and Unpublish of the selected rows, the note offering to publish
// the linked records a publish left unpublished); the record form (the badge, Publish, Unpublish and Discard changes
// offered only when they apply, Discard after a confirmation); a viewer sees badges and no buttons; a model without
// drafts shows none of it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { Admin } from '../support/client.js';
import { setPassword } from '../support/session.js';
import { chromiumMissing, PASSWORD, signInThroughPage, startAdminSetup, type AdminSetup } from './support.js';

const missing = chromiumMissing();
if (missing && process.env.CI === 'true') {
  test('Chromium is installed', () => assert.fail(missing));
} else if (missing) {
  console.log(`# drafts e2e skipped: ${missing}`);
}

const VIEWER_EMAIL = 'drafts-viewer@acme.test';

describe('admin: drafts (model setting, status badges and filter, publish, unpublish, discard)', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;
  let admin: Admin;
  let categoryModelId: string;
  let articleModelId: string;
  let plainModelId: string;
  let viewerContext: BrowserContext | undefined;

  async function createModel(input: Record<string, unknown>): Promise<string> {
    const data = await admin.ok('mutation ($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }', {
      input,
    });
    return data.model.create.id as string;
  }
  const publish = (ids: string[]) =>
    admin.ok('mutation ($ids: [ID!]!) { record { publish(ids: $ids) { records { id } } } }', { ids });
  const statusOf = async (id: string): Promise<string> =>
    (await admin.ok('query ($id: ID!) { record { get(id: $id) { status } } }', { id })).record.get.status;
  const patch = (id: string, data: Record<string, unknown>) =>
    admin.ok('mutation ($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }', { input: { id, data } });
  /** A record in each status: `draft`, `published` and `changed` (its title changed after the publish). */
  async function threeArticles(
    prefix: string,
    category?: string,
  ): Promise<{ draft: string; published: string; changed: string }> {
    const make = async (title: string) =>
      (await admin.createRecord(articleModelId, { title, ...(category ? { category } : {}) })).id as string;
    const draft = await make(`${prefix} draft`);
    const published = await make(`${prefix} published`);
    const changed = await make(`${prefix} changed`);
    await publish([published, changed]);
    await patch(changed, { title: `${prefix} changed`, body: 'edited' });
    return { draft, published, changed };
  }

  before(async () => {
    setup = await startAdminSetup();
    page = setup.page;
    admin = new Admin(setup.server, { token: setup.workspace.token, workspaceId: setup.workspace.workspaceId });
    categoryModelId = await createModel({
      slug: 'category',
      name: 'Category',
      displayField: 'name',
      drafts: true,
      fields: [{ key: 'name', label: 'Name', type: 'text', required: true }],
    });
    articleModelId = await createModel({
      slug: 'article',
      name: 'Article',
      displayField: 'title',
      drafts: true,
      fields: [
        { key: 'title', label: 'Title', type: 'text', required: true },
        { key: 'body', label: 'Body', type: 'text' },
        { key: 'category', label: 'Category', type: 'relation', relationTo: 'model:category', relationType: 'hasOne' },
      ],
    });
    plainModelId = await createModel({
      slug: 'note',
      name: 'Note',
      displayField: 'title',
      fields: [{ key: 'title', label: 'Title', type: 'text', required: true }],
    });
    await signInThroughPage(page, setup.url);
  });

  after(async () => {
    await viewerContext?.close().catch(() => undefined);
    await setup?.close();
  });

  const recordsUrl = (modelId: string, query = '') => `${setup.url}/admin#/models/${modelId}/records${query ? `?${query}` : ''}`;
  const formUrl = (modelId: string, id: string) => `${setup.url}/admin#/models/${modelId}/records/${id}`;
  const row = (on: Page, name: string): Locator =>
    on.locator('table.records tbody tr').filter({ has: on.getByRole('rowheader', { name, exact: true }) });
  const badgeIn = (on: Page, name: string) => row(on, name).locator('.record-status').innerText();
  const shownTitles = (on: Page) => on.locator('table.records tbody th[scope="row"]').allInnerTexts();
  const flash = (on: Page, text: string) => on.getByRole('status').filter({ hasText: text }).waitFor();
  const publishing = (on: Page) => on.getByRole('group', { name: 'Publishing' });
  const factsStatus = (on: Page) => on.locator('dl.meta .record-status');

  test('the model editor: Drafts on publishes every record; off is refused with the CONFLICT at the row', async () => {
    const modelId = await createModel({
      slug: 'page',
      name: 'Page',
      displayField: 'title',
      fields: [{ key: 'title', label: 'Title', type: 'text', required: true }],
    });
    const first = (await admin.createRecord(modelId, { title: 'About' })).id as string;
    await admin.createRecord(modelId, { title: 'Contact' });

    await page.goto(`${setup.url}/admin#/models/${modelId}/edit`);
    await page.getByRole('heading', { level: 1, name: 'Edit model Page' }).waitFor();
    const box = page.getByLabel('Drafts', { exact: true });
    assert.equal(await box.isChecked(), false);
    assert.match(await page.locator('.drafts-row .hint').innerText(), /every change stays a draft until it is published/);
    await box.check();
    await page.getByRole('button', { name: 'Save model' }).click();
    await page.getByRole('heading', { level: 1, name: 'Page', exact: true }).waitFor();
    const saved = await admin.ok('query ($id: ID!) { model { get(id: $id) { drafts } } }', { id: modelId });
    assert.equal(saved.model.get.drafts, true);
    assert.equal(await statusOf(first), 'published', 'turning drafts on published the records that were there');
    assert.deepEqual(await page.locator('table.records tbody .record-status').allInnerTexts(), ['Published', 'Published']);

    await patch(first, { title: 'About us' });
    await page.goto(`${setup.url}/admin#/models/${modelId}/edit`);
    await page.getByRole('heading', { level: 1, name: 'Edit model Page' }).waitFor();
    assert.equal(await box.isChecked(), true);
    await box.uncheck();
    await page.getByRole('button', { name: 'Save model' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /^The model was not saved\. drafts: 1 record is not published as it is; /);
    assert.match(await page.locator('.drafts-row .field-error').innerText(), /^1 record is not published as it is; /);
    assert.equal(await box.getAttribute('aria-invalid'), 'true');
    const kept = await admin.ok('query ($id: ID!) { model { get(id: $id) { drafts } } }', { id: modelId });
    assert.equal(kept.model.get.drafts, true, 'refused: drafts stay on');
  });

  test('the records table: a badge per row, and the status filter sends status to record.list and stays in the address', async () => {
    const ids = await threeArticles('Filter');
    await page.goto(recordsUrl(articleModelId, 'sort=title_asc'));
    await page.getByRole('heading', { level: 1, name: 'Article' }).waitFor();
    assert.ok((await page.locator('table.records thead th').allInnerTexts()).includes('Status'));
    assert.equal(await badgeIn(page, 'Filter draft'), 'Draft');
    assert.equal(await badgeIn(page, 'Filter published'), 'Published');
    assert.equal(await badgeIn(page, 'Filter changed'), 'Changed');

    const select = page.getByLabel('Status', { exact: true });
    assert.deepEqual(await select.locator('option').allInnerTexts(), ['All statuses', 'Draft', 'Changed', 'Published']);
    const [request] = await Promise.all([
      page.waitForRequest((candidate) => (candidate.postData() ?? '').includes('AdminRecords')),
      select.selectOption('draft'),
    ]);
    const sent = request.postDataJSON() as { query: string; variables: { status?: unknown } };
    assert.deepEqual(sent.variables.status, ['draft']);
    assert.match(sent.query, /status: \$status/);
    await page.waitForURL(/status=draft/);
    await page.locator('table.records caption', { hasText: 'draft only' }).waitFor({ state: 'attached' });
    const drafts = await shownTitles(page);
    assert.ok(drafts.includes('Filter draft'));
    assert.ok(!drafts.includes('Filter published') && !drafts.includes('Filter changed'));
    assert.deepEqual([...new Set(await page.locator('table.records tbody .record-status').allInnerTexts())], ['Draft']);

    await select.selectOption('changed');
    await page.waitForURL(/status=changed/);
    await page.locator('table.records caption', { hasText: 'changed only' }).waitFor({ state: 'attached' });
    assert.deepEqual(await shownTitles(page), ['Filter changed']);

    // The record form returns to the filtered view.
    await page.getByRole('link', { name: 'Filter changed', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit Filter changed' }).waitFor();
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForURL(/status=changed/);
    assert.equal(await page.getByLabel('Status', { exact: true }).inputValue(), 'changed');

    await page.getByLabel('Status', { exact: true }).selectOption('published');
    await page.locator('table.records caption', { hasText: 'published only' }).waitFor({ state: 'attached' });
    assert.ok((await shownTitles(page)).includes('Filter published'));
    assert.ok(!(await shownTitles(page)).includes('Filter changed'));

    await page.getByLabel('Status', { exact: true }).selectOption('');
    await page.waitForURL((url) => !url.hash.includes('status='));
    await row(page, 'Filter draft').waitFor();
    assert.equal(await statusOf(ids.draft), 'draft', 'filtering wrote nothing');
  });

  test('bulk Publish and Unpublish on the selected rows; the note publishes the linked records too', async () => {
    const category = (await admin.createRecord(categoryModelId, { name: 'Unpublished category' })).id as string;
    const ids = await threeArticles('Bulk', category);
    await page.goto(recordsUrl(articleModelId, 'sort=title_asc'));
    await row(page, 'Bulk draft').waitFor();
    const publishButton = page.getByRole('button', { name: 'Publish selected', exact: true });
    const unpublishButton = page.getByRole('button', { name: 'Unpublish selected' });
    assert.equal(await publishButton.isDisabled(), true, 'nothing selected');
    await page.getByLabel('Select Bulk published').check();
    assert.equal(await publishButton.isDisabled(), true, 'a published row has nothing to publish');
    assert.equal(await unpublishButton.isDisabled(), false);
    await page.getByLabel('Select Bulk published').uncheck();
    await page.getByLabel('Select Bulk draft').check();
    await page.getByLabel('Select Bulk changed').check();
    assert.equal(await publishButton.isDisabled(), false);

    await publishButton.click();
    await flash(page, '2 records published.');
    assert.equal(await badgeIn(page, 'Bulk draft'), 'Published');
    assert.equal(await badgeIn(page, 'Bulk changed'), 'Published');
    assert.equal(await statusOf(ids.draft), 'published');
    assert.equal(await statusOf(ids.changed), 'published');
    const note = page.locator('.targets-note');
    assert.equal(
      await note.locator('p').first().innerText(),
      '1 record these link to is not published: the delivery route shows that link as empty.',
    );
    assert.equal(await statusOf(category), 'draft');
    await note.getByRole('button', { name: 'Publish the linked record too' }).click();
    await flash(page, '1 record published.');
    assert.equal(await statusOf(category), 'published');
    assert.equal(await page.locator('.targets-note').count(), 0, 'nothing left to offer');

    await page.getByLabel('Select Bulk published').check();
    await page.getByLabel('Select Bulk draft').check();
    await unpublishButton.click();
    await flash(page, '2 records unpublished.');
    assert.equal(await badgeIn(page, 'Bulk published'), 'Draft');
    assert.equal(await badgeIn(page, 'Bulk draft'), 'Draft');
    assert.equal(await statusOf(ids.published), 'draft');
  });

  test('the record form: the badge, and Publish, Unpublish and Discard changes only when they apply', async () => {
    const id = (await admin.createRecord(articleModelId, { title: 'Form article', body: 'first' })).id as string;
    await page.goto(formUrl(articleModelId, id));
    await page.getByRole('heading', { level: 1, name: 'Edit Form article' }).waitFor();
    assert.equal(await factsStatus(page).innerText(), 'Draft');
    const buttonNames = () => publishing(page).getByRole('button').allInnerTexts();
    assert.deepEqual(await buttonNames(), ['Publish']);

    await publishing(page).getByRole('button', { name: 'Publish' }).click();
    await flash(page, 'Form article published.');
    assert.equal(await factsStatus(page).innerText(), 'Published');
    assert.match(await page.locator('.record-status-facts').innerText(), /Revision 1 is live, published /);
    assert.deepEqual(await buttonNames(), ['Unpublish']);
    assert.equal(await statusOf(id), 'published');

    // A save keeps the change as a draft: Changed, with all three buttons.
    await page.getByLabel('Body').fill('second');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { level: 1, name: 'Article' }).waitFor();
    assert.equal(await badgeIn(page, 'Form article'), 'Changed');
    await page.goto(formUrl(articleModelId, id));
    await page.getByRole('heading', { level: 1, name: 'Edit Form article' }).waitFor();
    assert.equal(await factsStatus(page).innerText(), 'Changed');
    assert.deepEqual(await buttonNames(), ['Publish', 'Unpublish', 'Discard changes']);

    // Discard asks first; Cancel changes nothing.
    await publishing(page).getByRole('button', { name: 'Discard changes' }).click();
    const dialog = page.getByRole('dialog', { name: 'Discard the changes to Form article?' });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /gets its published data \(revision 1\) again, as a new revision/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await statusOf(id), 'changed');
    await publishing(page).getByRole('button', { name: 'Discard changes' }).click();
    await dialog.getByRole('button', { name: 'Discard changes' }).click();
    await flash(page, 'The changes to Form article were discarded.');
    assert.equal(await factsStatus(page).innerText(), 'Published');
    assert.equal(await page.getByLabel('Body').inputValue(), 'first');
    assert.equal((await admin.getRecord(id)).data.body, 'first');
    assert.deepEqual(await buttonNames(), ['Unpublish']);

    await publishing(page).getByRole('button', { name: 'Unpublish' }).click();
    await flash(page, 'Form article unpublished.');
    assert.equal(await factsStatus(page).innerText(), 'Draft');
    assert.match(await page.locator('.record-status-facts').innerText(), /Not published/);
    assert.deepEqual(await buttonNames(), ['Publish']);
    assert.equal(await statusOf(id), 'draft');
  });

  test('a publish from the form whose record links to an unpublished record offers to publish it', async () => {
    const category = (await admin.createRecord(categoryModelId, { name: 'Linked from the form' })).id as string;
    const id = (await admin.createRecord(articleModelId, { title: 'Linking article', category })).id as string;
    await page.goto(formUrl(articleModelId, id));
    await page.getByRole('heading', { level: 1, name: 'Edit Linking article' }).waitFor();
    await publishing(page).getByRole('button', { name: 'Publish' }).click();
    await flash(page, 'Linking article published.');
    await publishing(page).getByRole('button', { name: 'Publish the linked record too' }).click();
    await flash(page, '1 record published.');
    assert.equal(await statusOf(category), 'published');
    assert.equal(await page.locator('.targets-note').count(), 0);
  });

  test('a viewer sees the badges and the filter, and no publishing button', async () => {
    const ids = await threeArticles('Viewer');
    await setup.server.createToken({ workspaceId: setup.workspace.workspaceId, email: VIEWER_EMAIL, role: 'viewer' });
    await setPassword(setup.server, VIEWER_EMAIL, PASSWORD);
    viewerContext = await setup.browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
    const viewer = await viewerContext.newPage();
    viewer.setDefaultTimeout(15_000);
    await signInThroughPage(viewer, setup.url, VIEWER_EMAIL, PASSWORD);

    await viewer.goto(recordsUrl(articleModelId, 'sort=title_asc'));
    await row(viewer, 'Viewer changed').waitFor();
    assert.equal(await badgeIn(viewer, 'Viewer changed'), 'Changed');
    assert.equal(await viewer.getByLabel('Status', { exact: true }).count(), 1);
    assert.equal(await viewer.getByRole('button', { name: 'Publish selected', exact: true }).count(), 0);
    assert.equal(await viewer.getByRole('button', { name: 'Unpublish selected' }).count(), 0);

    await viewer.goto(formUrl(articleModelId, ids.changed));
    await viewer.getByRole('heading', { level: 1, name: 'View Viewer changed' }).waitFor();
    assert.equal(await factsStatus(viewer).innerText(), 'Changed');
    assert.equal(await publishing(viewer).count(), 0);
    for (const name of ['Publish', 'Unpublish', 'Discard changes']) {
      assert.equal(await viewer.getByRole('button', { name, exact: true }).count(), 0, name);
    }
  });

  test('a model without drafts shows no status column, filter or publishing buttons', async () => {
    const id = (await admin.createRecord(plainModelId, { title: 'Plain note' })).id as string;
    await page.goto(recordsUrl(plainModelId, 'status=draft'));
    await row(page, 'Plain note').waitFor();
    assert.ok(!page.url().includes('status='), 'a status in the address is dropped for a model without drafts');
    assert.ok(!(await page.locator('table.records thead th').allInnerTexts()).includes('Status'));
    assert.equal(await page.locator('.record-status').count(), 0);
    assert.equal(await page.getByLabel('Status', { exact: true }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Publish selected', exact: true }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Delete selected' }).count(), 1);

    await page.goto(formUrl(plainModelId, id));
    await page.getByRole('heading', { level: 1, name: 'Edit Plain note' }).waitFor();
    assert.equal(await page.locator('dl.meta dt', { hasText: 'Status' }).count(), 0);
    assert.equal(await publishing(page).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Publish', exact: true }).count(), 0);
  });
});
