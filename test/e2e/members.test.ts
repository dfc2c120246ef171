// End to end: Settings → Members in headless Chromium against a real server. The owner adds a member (the one-time
// sign-in link is shown once, with a copy button), changes the member's role, the new member opens the link in
// another browser, chooses a password and is signed in; the link does not work twice; the owner removes the member
// after a confirmation, and the member's next request is refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { dataOf, gql } from '../support/client.js';
import { waitFor } from '../support/wait-for.js';
import { chromiumMissing, EMAIL, signInThroughPage, startAdminSetup, unlabelledControls, type AdminSetup } from './support.js';

const missing = chromiumMissing();
if (missing && process.env.CI === 'true') {
  test('Chromium is installed', () => assert.fail(missing));
} else if (missing) {
  console.log(`# members e2e skipped: ${missing}`);
}

const NEW_EMAIL = 'new.member@acme.test';
const NEW_PASSWORD = 'a long new password';

describe('admin web application: members', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;
  let link = '';
  let newcomer: BrowserContext | undefined;

  before(async () => {
    setup = await startAdminSetup();
    page = setup.page;
  });

  after(async () => {
    await newcomer?.close().catch(() => undefined);
    await setup?.close();
  });

  const api = async (query: string, variables?: Record<string, unknown>) =>
    dataOf(
      await gql(
        `${setup.url}/graphql`,
        { token: setup.workspace.token, workspaceId: setup.workspace.workspaceId },
        query,
        variables,
      ),
    );
  const memberRole = async (email: string) =>
    (await api('{ member { list { email role } } }')).member.list.find((m: any) => m.email === email)?.role;
  const row = (email: string) => page.locator('table.members tbody tr').filter({ hasText: email });

  test('the Members page is in the navigation for an owner and lists the owner, every control labelled', async () => {
    await signInThroughPage(page, setup.url);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    await row(EMAIL).getByText('(you)').waitFor();
    assert.equal(await row(EMAIL).getByLabel(`Role of ${EMAIL}`).inputValue(), 'owner');
    assert.deepEqual(await unlabelledControls(page), []);
  });

  test('adds a member and shows the one-time sign-in link once, with a copy button', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: setup.url });
    await page.getByLabel(/^Email/).fill(NEW_EMAIL);
    await page.getByLabel('Role', { exact: true }).selectOption('editor');
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('heading', { name: `${NEW_EMAIL} added as editor` }).waitFor();
    link = await page.getByLabel('The sign-in link').inputValue();
    assert.match(link, new RegExp(`^${setup.url}/admin/#/welcome\\?token=[A-Za-z0-9_-]{43}$`));
    await page.getByRole('button', { name: 'Copy link' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    await row(NEW_EMAIL).getByText('Not yet').waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByLabel('The sign-in link').count(), 0, 'the link is gone once dismissed');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    await row(NEW_EMAIL).waitFor();
    assert.equal(await page.getByLabel('The sign-in link').count(), 0, 'and is not shown again');
  });

  test("changes a member's role from the list", async () => {
    await row(NEW_EMAIL).getByLabel(`Role of ${NEW_EMAIL}`).selectOption('viewer');
    await waitFor(async () => (await memberRole(NEW_EMAIL)) === 'viewer', { timeoutMs: 10_000, message: 'the role is stored' });
  });

  test('refuses to demote the last owner, showing the rule', async () => {
    await row(EMAIL).getByLabel(`Role of ${EMAIL}`).selectOption('admin');
    await page.getByText('the last owner of the workspace cannot be demoted').waitFor();
    assert.equal(await row(EMAIL).getByLabel(`Role of ${EMAIL}`).inputValue(), 'owner');
    assert.equal(await memberRole(EMAIL), 'owner');
  });

  test('the link lets the new member choose a password and signs them in; it works once', async () => {
    newcomer = await setup.browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
    const other = await newcomer.newPage();
    other.setDefaultTimeout(15_000);
    await other.goto(link);
    await other.getByRole('heading', { level: 1, name: 'Welcome to Content Service' }).waitFor();
    await other.getByText(NEW_EMAIL).waitFor();
    await other.getByLabel('New password').fill(NEW_PASSWORD);
    await other.getByLabel('Repeat the password').fill(NEW_PASSWORD);
    await other.getByRole('button', { name: 'Set password and sign in' }).click();
    await other.getByRole('heading', { level: 1, name: 'Models' }).waitFor();
    await other.getByText(`Your password is set. You are signed in as ${NEW_EMAIL}.`).waitFor();
    // A viewer: no Members page in the navigation.
    assert.equal(await other.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).count(), 0);

    const again = await newcomer.newPage();
    await again.goto(link);
    await again.getByText('This sign-in link cannot be used').waitFor();
  });

  test('removes a member after a confirmation; their session stops', async () => {
    await page.reload();
    await row(NEW_EMAIL).getByText('Set', { exact: true }).waitFor();
    await row(NEW_EMAIL)
      .getByRole('button', { name: `Remove ${NEW_EMAIL}` })
      .click();
    const dialog = page.getByRole('dialog', { name: `Remove ${NEW_EMAIL}?` });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await memberRole(NEW_EMAIL), 'viewer', 'cancel keeps the member');
    await row(NEW_EMAIL)
      .getByRole('button', { name: `Remove ${NEW_EMAIL}` })
      .click();
    await dialog.getByRole('button', { name: 'Remove member' }).click();
    await waitFor(async () => (await row(NEW_EMAIL).count()) === 0, { timeoutMs: 10_000, message: 'the member leaves the list' });
    assert.equal(await memberRole(NEW_EMAIL), undefined);

    const other = newcomer!.pages()[0]!;
    await other.reload();
    await other.getByRole('heading', { level: 1, name: 'No workspace' }).waitFor();
  });
});
