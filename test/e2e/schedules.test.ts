// End to end, in headless Chromium against a real server: schedules in the admin application (docs/lifecycle.md
// "Schedules"). Schedule publish… of the rows selected in the records table, a few seconds ahead: the schedule made is
// shown with a link to the Schedules page, where it is pending, then (read again until a deadline) done, with the
// records' names linked to their forms, and the records read Published; a schedule whose record was deleted shows
// failed with its error. Schedule publish… on the record form sends the browser's local time as UTC; Cancel on the
// Schedules page asks first and the schedule reads cancelled; the status filter is kept in the address. A past time is
// refused with the server's message, at the field too. A viewer sees the Schedules page without Cancel and no
// Schedule action; a model without drafts has none either.
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
  console.log(`# schedules e2e skipped: ${missing}`);
}

const VIEWER_EMAIL = 'schedules-viewer@acme.test';
/** How long a due schedule may take to show done: it is carried out within about a second of its time. */
const DONE_DEADLINE_MS = 20_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A datetime-local value of `date` in UTC (the test browser's time zone); seconds only when there are some. */
function utcInputValue(date: Date): string {
  const iso = date.toISOString();
  return iso.slice(17, 19) === '00' ? iso.slice(0, 16) : iso.slice(0, 19);
}

describe('admin: schedules (the Schedules page, Schedule on the form and in the table, Cancel)', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;
  let admin: Admin;
  let articleModelId: string;
  let plainModelId: string;
  const contexts: BrowserContext[] = [];

  async function createModel(input: Record<string, unknown>): Promise<string> {
    const data = await admin.ok('mutation ($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }', {
      input,
    });
    return data.model.create.id as string;
  }
  const article = async (title: string) => (await admin.createRecord(articleModelId, { title })).id as string;
  const statusOf = async (id: string): Promise<string> =>
    (await admin.ok('query ($id: ID!) { record { get(id: $id) { status } } }', { id })).record.get.status;
  const scheduleTotal = async (): Promise<number> =>
    (await admin.ok('query { record { schedules { total } } }')).record.schedules.total;

  async function signedInContext(email: string, timezoneId: string): Promise<Page> {
    const context = await setup.browser.newContext({ locale: 'en-US', timezoneId });
    contexts.push(context);
    const other = await context.newPage();
    other.setDefaultTimeout(15_000);
    await signInThroughPage(other, setup.url, email, PASSWORD);
    return other;
  }

  before(async () => {
    setup = await startAdminSetup();
    page = setup.page;
    admin = new Admin(setup.server, { token: setup.workspace.token, workspaceId: setup.workspace.workspaceId });
    articleModelId = await createModel({
      slug: 'article',
      name: 'Article',
      displayField: 'title',
      drafts: true,
      fields: [{ key: 'title', label: 'Title', type: 'text', required: true }],
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
    for (const context of contexts) await context.close().catch(() => undefined);
    await setup?.close();
  });

  const recordsUrl = (modelId: string) => `${setup.url}/admin#/models/${modelId}/records?sort=title_asc`;
  const formUrl = (modelId: string, id: string) => `${setup.url}/admin#/models/${modelId}/records/${id}`;
  const schedulesUrl = (query = '') => `${setup.url}/admin#/schedules${query ? `?${query}` : ''}`;
  const recordRow = (on: Page, name: string): Locator =>
    on.locator('table.records tbody tr').filter({ has: on.getByRole('rowheader', { name, exact: true }) });
  const scheduleRow = (on: Page, text: string): Locator => on.locator('table.schedules tbody tr').filter({ hasText: text });
  const scheduling = (on: Page) => on.getByRole('group', { name: 'Scheduling' });
  async function schedulesPage(on: Page, query = ''): Promise<void> {
    await on.goto(schedulesUrl(query));
    await on.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor();
    await on.locator('main [aria-busy="true"]').waitFor({ state: 'detached' });
  }
  /** Reads the Schedules page again (a reload) until the row with `text` has `status`, or the deadline passes. */
  async function waitForStatus(text: string, status: string): Promise<void> {
    const deadline = Date.now() + DONE_DEADLINE_MS;
    let seen = '';
    for (;;) {
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor();
      await page.locator('main [aria-busy="true"]').waitFor({ state: 'detached' });
      const row = scheduleRow(page, text);
      seen = (await row.count()) === 1 ? await row.locator('.schedule-status').innerText() : '(no row)';
      if (seen === status) return;
      assert.ok(Date.now() < deadline, `the schedule of ${text} reads ${status} by the deadline (it reads ${seen})`);
      await sleep(300);
    }
  }

  test('a bulk Schedule publish a few seconds ahead is pending on the Schedules page, then done, and the records published', async () => {
    const first = await article('Spring sale');
    const second = await article('Summer sale');
    // A schedule whose record is deleted before its time fails, and changes nothing.
    const kept = await article('Kept draft');
    const doomed = await article('Deleted before its time');
    await admin.ok('mutation ($input: ScheduleInput!) { record { schedule(input: $input) { id } } }', {
      input: { ids: [kept, doomed], action: 'publish', at: new Date(Date.now() + 2_000).toISOString() },
    });
    await admin.ok('mutation ($id: ID!) { record { delete(id: $id) { deleted } } }', { id: doomed });

    await page.goto(recordsUrl(articleModelId));
    await recordRow(page, 'Spring sale').waitFor();
    const open = page.getByRole('button', { name: 'Schedule publish…' });
    assert.equal(await open.isDisabled(), true, 'nothing selected');
    assert.equal(await page.getByRole('button', { name: 'Schedule unpublish…' }).count(), 1);
    await page.getByLabel('Select Spring sale').check();
    await page.getByLabel('Select Summer sale').check();
    await open.click();
    const at = page.getByLabel('Publish at');
    assert.equal(await at.getAttribute('type'), 'datetime-local');
    assert.match(await page.locator('.schedule-form .hint').innerText(), /^In your local time \(UTC\)\.$/);
    await at.fill(utcInputValue(new Date(Date.now() + 3_000)));
    await page.getByRole('button', { name: 'Schedule publish', exact: true }).click();
    const made = page.locator('.schedule-made');
    await made.waitFor();
    assert.match(await made.innerText(), /^Publish of 2 records scheduled for .+\. See it on the Schedules page$/);
    assert.equal(await statusOf(first), 'draft', 'not yet');

    await made.getByRole('link', { name: 'See it on the Schedules page' }).click();
    await page.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor();
    assert.match(page.url(), /#\/schedules\?status=pending$/);
    const row = scheduleRow(page, 'Spring sale');
    await row.waitFor();
    assert.equal(await row.locator('.schedule-status').innerText(), 'Pending');
    assert.match(await row.innerText(), /Publish/);
    assert.match(await row.locator('.schedule-records').innerText(), /^2 records\nSpring sale\nSummer sale$/);
    assert.equal(
      await row.getByRole('link', { name: 'Summer sale' }).getAttribute('href'),
      `#/models/${articleModelId}/records/${second}`,
    );
    assert.match(await row.innerText(), /owner@acme\.test/);
    assert.equal(await row.getByRole('button', { name: /^Cancel the publish at / }).count(), 1);

    await page.goto(schedulesUrl());
    await waitForStatus('Spring sale', 'Done');
    assert.equal(await scheduleRow(page, 'Spring sale').getByRole('button').count(), 0, 'no Cancel once done');
    await waitForStatus('Kept draft', 'Failed');
    const failed = scheduleRow(page, 'Kept draft');
    assert.match(await failed.locator('.schedule-error').innerText(), new RegExp(`record ${doomed} no longer exists`));
    assert.match(await failed.locator('.schedule-records').innerText(), new RegExp(`${doomed} \\(gone\\)`));
    assert.equal(await statusOf(kept), 'draft', 'a failed schedule changed none of its records');

    await page.goto(recordsUrl(articleModelId));
    await recordRow(page, 'Spring sale').waitFor();
    assert.equal(await recordRow(page, 'Spring sale').locator('.record-status').innerText(), 'Published');
    assert.equal(await recordRow(page, 'Summer sale').locator('.record-status').innerText(), 'Published');
    assert.equal(await statusOf(second), 'published');
  });

  test('Schedule publish… on the record form sends local time as UTC; Cancel asks first and the schedule reads cancelled', async () => {
    const id = await article('Autumn sale');
    // The browser in India (UTC+05:30): 10:00 there is 04:30 in UTC.
    const owner = await signedInContext('owner@acme.test', 'Asia/Kolkata');
    const year = new Date().getUTCFullYear() + 1;
    await owner.goto(formUrl(articleModelId, id));
    await owner.getByRole('heading', { level: 1, name: 'Edit Autumn sale' }).waitFor();
    await scheduling(owner).getByRole('button', { name: 'Schedule publish…' }).click();
    assert.match(await owner.locator('.schedule-form .hint').innerText(), /\(Asia\/Calcutta\)|\(Asia\/Kolkata\)/);
    await owner.getByLabel('Publish at').fill(`${year}-06-01T10:00`);
    const [request] = await Promise.all([
      owner.waitForRequest((candidate) => (candidate.postData() ?? '').includes('ScheduleRecords')),
      owner.getByRole('button', { name: 'Schedule publish', exact: true }).click(),
    ]);
    const sent = request.postDataJSON() as { variables: { input: { ids: string[]; action: string; at: string } } };
    assert.deepEqual(sent.variables.input, { ids: [id], action: 'publish', at: `${year}-06-01T04:30:00.000Z` });
    await owner
      .locator('.schedule-made', { hasText: `Publish of Autumn sale scheduled for Jun 1, ${year}, 10:00:00 AM.` })
      .waitFor();

    await schedulesPage(page, 'status=pending');
    const row = scheduleRow(page, 'Autumn sale');
    assert.match(await row.locator('th').innerText(), new RegExp(`^Jun 1, ${year}, 04:30:00 AM$`), 'shown in UTC here');
    await row.getByRole('button', { name: /^Cancel the publish/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel the publish of 1 record?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await row.locator('.schedule-status').innerText(), 'Pending', 'dismissed: still pending');
    await row.getByRole('button', { name: /^Cancel the publish/ }).click();
    await dialog.getByRole('button', { name: 'Cancel schedule' }).click();
    await page.getByRole('status').filter({ hasText: 'The publish of 1 record was cancelled.' }).waitFor();
    assert.equal(await scheduleRow(page, 'Autumn sale').count(), 0, 'no longer pending');

    const select = page.getByLabel('Status', { exact: true });
    assert.deepEqual(await select.locator('option').allInnerTexts(), ['All', 'Pending', 'Done', 'Failed', 'Cancelled']);
    const [listRequest] = await Promise.all([
      page.waitForRequest((candidate) => (candidate.postData() ?? '').includes('AdminSchedules')),
      select.selectOption('cancelled'),
    ]);
    assert.equal((listRequest.postDataJSON() as { variables: { status: string } }).variables.status, 'cancelled');
    await page.waitForURL(/#\/schedules\?status=cancelled$/);
    const cancelled = scheduleRow(page, 'Autumn sale');
    await cancelled.waitFor();
    assert.equal(await cancelled.locator('.schedule-status').innerText(), 'Cancelled');
    assert.equal(await cancelled.getByRole('button').count(), 0);
    assert.equal(await statusOf(id), 'draft');
  });

  test('a past time is refused with the server’s message, at the field too, and nothing is scheduled', async () => {
    const id = await article('Winter sale');
    const before = await scheduleTotal();
    await page.goto(formUrl(articleModelId, id));
    await page.getByRole('heading', { level: 1, name: 'Edit Winter sale' }).waitFor();
    await scheduling(page).getByRole('button', { name: 'Schedule unpublish…' }).click();
    const at = page.getByLabel('Unpublish at');
    await at.fill(utcInputValue(new Date(Date.now() - 60_000)));
    await page.getByRole('button', { name: 'Schedule unpublish', exact: true }).click();
    const alert = scheduling(page).getByRole('alert');
    await alert.waitFor();
    assert.equal(await alert.innerText(), 'The schedule was not made. input.at: must be in the future');
    assert.equal(await page.locator('.schedule-form .field-error').innerText(), 'must be in the future');
    assert.equal(await at.getAttribute('aria-invalid'), 'true');
    assert.equal(await scheduleTotal(), before);
  });

  test('a viewer sees the Schedules page without Cancel, and no Schedule action', async () => {
    const id = await article('Viewer sale');
    await admin.ok('mutation ($input: ScheduleInput!) { record { schedule(input: $input) { id } } }', {
      input: { ids: [id], action: 'unpublish', at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    await setup.server.createToken({ workspaceId: setup.workspace.workspaceId, email: VIEWER_EMAIL, role: 'viewer' });
    await setPassword(setup.server, VIEWER_EMAIL, PASSWORD);
    const viewer = await signedInContext(VIEWER_EMAIL, 'UTC');
    await viewer.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Schedules' }).click();
    await viewer.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor();
    const row = scheduleRow(viewer, 'Viewer sale');
    await row.waitFor();
    assert.equal(await row.locator('.schedule-status').innerText(), 'Pending');
    assert.equal(await viewer.locator('table.schedules').getByRole('button').count(), 0, 'no Cancel');

    await viewer.goto(recordsUrl(articleModelId));
    await recordRow(viewer, 'Viewer sale').waitFor();
    assert.equal(await viewer.getByRole('button', { name: /^Schedule / }).count(), 0);
    await viewer.goto(formUrl(articleModelId, id));
    await viewer.getByRole('heading', { level: 1, name: 'View Viewer sale' }).waitFor();
    assert.equal(await scheduling(viewer).count(), 0);
    assert.equal(await viewer.getByRole('button', { name: /^Schedule / }).count(), 0);
  });

  test('a model without drafts shows no Schedule action', async () => {
    const id = (await admin.createRecord(plainModelId, { title: 'Plain note' })).id as string;
    await page.goto(recordsUrl(plainModelId));
    await recordRow(page, 'Plain note').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Delete selected' }).count(), 1);
    assert.equal(await page.getByRole('button', { name: /^Schedule / }).count(), 0);
    await page.goto(formUrl(plainModelId, id));
    await page.getByRole('heading', { level: 1, name: 'Edit Plain note' }).waitFor();
    assert.equal(await scheduling(page).count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Schedule / }).count(), 0);
  });
});
