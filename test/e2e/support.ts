// Shared by the end-to-end tests and the screenshot script: a real server (test/support/server.ts, on a temporary
// SQLite database), a user with a password set through the CLI, and the system Chromium driven by playwright-core.
// One Chromium per process, launched by the first setup and shared by the rest (each setup has a browser context of
// its own: its own cookies, storage and viewport); the e2e files run in one process (test/e2e/browser.test.ts), so
// the whole suite starts the browser once. closeBrowser() ends it.
// Playwright never downloads a browser here: Chromium comes from Debian (`apt-get install chromium`, see .ci/run).
import { existsSync } from 'node:fs';
import { after } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startServer, type BootstrapResult, type StartOptions, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const EMAIL = 'owner@acme.test';
export const PASSWORD = 'correct horse battery staple';

/**
 * Why the browser tests cannot run here, or undefined when they can. Under CI=true a missing Chromium is a
 * failure (the caller throws), elsewhere the tests are skipped with this reason.
 */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  return `Chromium not found at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (Debian) or set CHROMIUM_PATH`;
}

let sharedBrowser: Promise<Browser> | undefined;

/** The process's Chromium, launched on first use. */
export function browser(): Promise<Browser> {
  sharedBrowser ??= chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  const launching = sharedBrowser;
  // A failed launch is not kept: the next setup tries again (and reports its own failure).
  launching.catch(() => {
    if (sharedBrowser === launching) sharedBrowser = undefined;
  });
  return launching;
}

/** Closes the process's Chromium, if one was launched. */
export async function closeBrowser(): Promise<void> {
  const launched = sharedBrowser;
  sharedBrowser = undefined;
  await (await launched?.catch(() => undefined))?.close().catch(() => undefined);
}

// Under the test runner the browser closes after the last test of the process (a hook of the root test, as this
// module is first imported while a test file loads); a script (screenshots.ts) calls closeBrowser itself.
if (process.env.NODE_TEST_CONTEXT !== undefined) after(closeBrowser);

export interface AdminSetup {
  server: TestServer;
  workspace: BootstrapResult;
  /** The shared browser: a context made from it is the caller's to close. */
  browser: Browser;
  page: Page;
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

export async function startAdminSetup(
  options: { viewport?: { width: number; height: number }; server?: StartOptions } = {},
): Promise<AdminSetup> {
  const server = await startServer({ env: { LOG_LEVEL: 'warn' }, ...options.server });
  let context: BrowserContext | undefined;
  try {
    const [workspace, opened] = await Promise.all([
      server.bootstrap({ org: 'acme', workspace: 'main', email: EMAIL, role: 'owner' }),
      browser(),
    ]);
    await setPassword(server, EMAIL, PASSWORD);
    context = await opened.newContext({
      viewport: options.viewport ?? { width: 1280, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const own = context;
    return {
      server,
      workspace,
      browser: opened,
      page,
      url: server.url,
      async close() {
        await own.close().catch(() => undefined);
        await server.dispose();
      },
    };
  } catch (error) {
    await context?.close().catch(() => undefined);
    await server.dispose();
    throw error;
  }
}

/** Signs in through the sign-in page and waits for the models page. */
export async function signInThroughPage(page: Page, url: string, email = EMAIL, password = PASSWORD): Promise<void> {
  await page.goto(`${url}/admin`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Models' }).waitFor();
}

/** Fills the new-model form for a product model: title, sku, price; product catalog with SKU and price. */
export async function createProductModel(page: Page, extraFields: (page: Page) => Promise<void> = async () => {}): Promise<void> {
  await page.getByRole('link', { name: 'New model' }).click();
  await page.getByRole('heading', { level: 1, name: 'New model' }).waitFor();
  await page.getByLabel('Name (required)', { exact: true }).fill('Product');
  const field = (index: number) => page.locator('fieldset.field-editor').nth(index);
  await field(0).getByLabel('Label').fill('Title');
  await field(0).getByLabel('Required').check();
  await page.getByRole('button', { name: 'Add field', exact: true }).click();
  await field(1).getByLabel('Label').fill('SKU');
  await field(1).getByLabel('Key').fill('sku');
  await field(1).getByLabel('Required').check();
  await page.getByRole('button', { name: 'Add field', exact: true }).click();
  await field(2).getByLabel('Label').fill('Price');
  await field(2).getByLabel('Type').selectOption('number');
  await extraFields(page);
  await page.getByLabel('This model is a product catalog').check();
  await page.getByLabel('SKU field').selectOption('sku');
  await page.getByLabel('Price field').selectOption('price');
  await page.getByLabel('Public').check();
}

/** Form controls of the page without an accessible name (no label, aria-label or text): should be none. */
export function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('input, select, textarea, button')]
      .filter((element) => {
        if (element instanceof HTMLInputElement && element.type === 'hidden') return false;
        const labels = (element as HTMLInputElement).labels;
        const named =
          (labels !== null && labels !== undefined && labels.length > 0) ||
          Boolean(element.getAttribute('aria-label')) ||
          Boolean(element.getAttribute('aria-labelledby')) ||
          (element instanceof HTMLButtonElement && (element.textContent ?? '').trim() !== '');
        return !named;
      })
      .map((element) => element.outerHTML.slice(0, 120)),
  );
}
