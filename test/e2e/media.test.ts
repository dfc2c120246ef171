// End to end, in headless Chromium against a real server: media in the admin application (docs/media.md). On the
// Media page a JPEG chosen with the file input goes up with a progress bar and its thumbnail appears (loaded through
// the image transforms; a private asset's too, by the session cookie); search and the type filter narrow the grid
// and stay in the address; the asset panel saves alt text and a focal point clicked on the preview. The model editor
// makes media fields (accepted types, several assets); the record form's picker chooses an asset (only the accepted
// types are listed), uploads one in its dialog and keeps an ordered list; the saved record holds the ids and the
// records table shows thumbnails. Deleting an asset a record uses is refused with the server's message, then
// Delete anyway removes it from the record.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { Admin } from '../support/client.js';
import { chromiumMissing, signInThroughPage, startAdminSetup, type AdminSetup } from './support.js';

const missing = chromiumMissing();
if (missing && process.env.CI === 'true') {
  test('Chromium is installed', () => assert.fail(missing));
} else if (missing) {
  console.log(`# media e2e skipped: ${missing}`);
}

const ASSET = 'id filename type alt tags focalPoint { x y } access usage';

function jpeg(width: number, height: number, colour: { r: number; g: number; b: number }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .jpeg()
    .toBuffer();
}

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

describe('admin: media (the Media page, the picker of media fields, thumbnails)', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;
  let admin: Admin;

  async function upload(bytes: Buffer, filename: string, parts: Record<string, string> = {}): Promise<any> {
    const form = new FormData();
    for (const [name, value] of Object.entries(parts)) form.append(name, value);
    form.append('file', new Blob([new Uint8Array(bytes)]), filename);
    const response = await fetch(`${setup.url}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.token}`, 'x-workspace-id': admin.workspaceId },
      body: form,
    });
    const body = await response.json();
    assert.equal(response.status, 201, JSON.stringify(body));
    return body.asset;
  }
  const assetByName = async (filename: string): Promise<any> =>
    (
      await admin.ok(`query ($s: String) { asset { list(search: $s) { items { ${ASSET} } } } }`, { s: filename })
    ).asset.list.items.find((asset: any) => asset.filename === filename);
  const cards = () => page.locator('.media-grid-area .media-card');
  const card = (filename: string) => page.locator('.media-grid-area .media-card').filter({ hasText: filename });
  async function mediaPage(query = ''): Promise<void> {
    const target = `${setup.url}/admin#/media${query ? `?${query}` : ''}`;
    // The same address again changes no hash, so it is read again by a reload.
    if (page.url() === target) await page.reload();
    else await page.goto(target);
    await page.getByRole('heading', { level: 1, name: 'Media' }).waitFor();
    await page.locator('main [aria-busy="true"]').waitFor({ state: 'detached' });
  }
  /** The image has loaded (not a broken image): the thumbnail was served to the session. */
  const loaded = (image: ReturnType<Page['locator']>) =>
    image.evaluate((element) => (element as HTMLImageElement).complete && (element as HTMLImageElement).naturalWidth > 0);

  before(async () => {
    setup = await startAdminSetup();
    page = setup.page;
    admin = new Admin(setup.server, { token: setup.workspace.token, workspaceId: setup.workspace.workspaceId });
    await signInThroughPage(page, setup.url);
  });

  after(async () => {
    await setup?.close();
  });

  test('a JPEG chosen with Upload files goes up with a progress bar and its thumbnail appears', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Media' }).click();
    await page.getByRole('heading', { level: 1, name: 'Media' }).waitFor();
    await page.getByText('No assets yet.').waitFor();
    // Every value the upload's progress bar shows, as the page sets it.
    await page.evaluate(() => {
      const seen: number[] = [];
      (window as unknown as { progressSeen: number[] }).progressSeen = seen;
      new MutationObserver((changes) => {
        for (const change of changes) {
          const target = change.target as Element;
          if (target instanceof HTMLProgressElement) seen.push(target.value);
          for (const added of change.addedNodes) {
            if (added instanceof Element) for (const bar of added.querySelectorAll('progress')) seen.push(bar.value);
          }
        }
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['value'] });
    });
    await page.locator('#media-upload-input').setInputFiles({
      name: 'red-ball.jpg',
      mimeType: 'image/jpeg',
      buffer: await jpeg(640, 480, { r: 200, g: 30, b: 30 }),
    });
    const row = page.locator('.upload-row[data-file="red-ball.jpg"]');
    await row.locator('progress').waitFor();
    await row.filter({ hasText: 'Uploaded' }).waitFor();
    assert.equal(await row.locator('progress').evaluate((bar) => (bar as HTMLProgressElement).value), 100);
    const seen = await page.evaluate(() => (window as unknown as { progressSeen: number[] }).progressSeen);
    assert.equal(seen[0], 0, `the bar starts empty: ${seen.join(', ')}`);
    assert.equal(seen.at(-1), 100);
    const image = card('red-ball.jpg').locator('img');
    await image.waitFor();
    assert.match((await image.getAttribute('src')) ?? '', /\/assets\/.+\/red-ball\.jpg\?w=240&h=240&fit=cover&format=auto$/);
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('.media-card img');
      return img !== null && img.complete && img.naturalWidth > 0;
    });
    assert.equal(await loaded(image), true);
    assert.match(await card('red-ball.jpg').innerText(), /640×480/);

    // A private asset's thumbnail is served to the signed-in member too; a PDF shows its kind.
    await upload(await jpeg(300, 300, { r: 20, g: 120, b: 40 }), 'green-summer.jpg', { tags: '["summer"]' });
    const secret = await upload(await jpeg(200, 100, { r: 20, g: 20, b: 160 }), 'blue-secret.jpg');
    await admin.ok('mutation ($input: UpdateAssetInput!) { asset { update(input: $input) { id } } }', {
      input: { id: secret.id, access: 'private' },
    });
    await upload(PDF, 'manual.pdf', { alt: 'The owner manual' });
    await mediaPage();
    assert.equal(await cards().count(), 4);
    const privateImage = card('blue-secret.jpg').locator('img');
    await page.waitForFunction(() =>
      [...document.querySelectorAll<HTMLImageElement>('.media-card img')].every((img) => img.complete && img.naturalWidth > 0),
    );
    assert.equal(await loaded(privateImage), true);
    assert.match(await card('blue-secret.jpg').innerText(), /private/);
    assert.equal(await card('manual.pdf').locator('.media-file-badge').innerText(), 'PDF');
  });

  test('search (filename, tag, alt text) and the type filter narrow the grid and stay in the address', async () => {
    await mediaPage();
    const names = async () => (await page.locator('.media-grid-area .media-name').allInnerTexts()).sort();
    await page.getByLabel('Search', { exact: true }).fill('summer');
    await page.getByLabel('Search', { exact: true }).press('Enter');
    await page.waitForURL(/search=summer/);
    await cards().first().waitFor();
    assert.deepEqual(await names(), ['green-summer.jpg']);
    await page.getByLabel('Search', { exact: true }).fill('owner manual');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/search=owner/);
    await card('manual.pdf').waitFor();
    assert.deepEqual(await names(), ['manual.pdf']);
    await page.getByLabel('Search', { exact: true }).fill('');
    await page.getByLabel('Type').selectOption('image');
    await page.waitForURL(/type=image/);
    await page.locator('main [aria-busy="true"]').waitFor({ state: 'detached' });
    assert.deepEqual(await names(), ['blue-secret.jpg', 'green-summer.jpg', 'red-ball.jpg']);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Media' }).waitFor();
    assert.equal(await page.getByLabel('Type').inputValue(), 'image');
    await page.getByLabel('Search', { exact: true }).fill('nothing-like-this');
    await page.getByLabel('Search', { exact: true }).press('Enter');
    await page.getByText('No assets match.').waitFor();
  });

  test('the asset panel saves alt text and the focal point clicked on the preview', async () => {
    await mediaPage();
    await card('red-ball.jpg').click();
    const panel = page.locator('aside.media-detail');
    await panel.getByRole('heading', { name: 'red-ball.jpg' }).waitFor();
    assert.match(await panel.innerText(), /Not used by any record/);
    await panel.getByLabel('Alt text (en)').fill('A red ball on grass');
    await panel.getByLabel('Tags').fill('red, ball');
    const preview = panel.locator('img.focal-image');
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('img.focal-image');
      return img !== null && img.complete && img.naturalWidth > 0;
    });
    const box = (await preview.boundingBox())!;
    await preview.click({ position: { x: box.width * 0.25, y: box.height * 0.75 } });
    await panel.locator('.focal-marker:not([hidden])').waitFor();
    const x = Number(await panel.getByLabel('x', { exact: true }).inputValue());
    assert.ok(Math.abs(x - 0.25) < 0.02, `x ${x}`);
    await panel.getByRole('button', { name: 'Save changes' }).click();
    await panel.getByText('Saved.').waitFor();
    const saved = await assetByName('red-ball.jpg');
    assert.deepEqual(saved.alt, { en: 'A red ball on grass' });
    assert.deepEqual(saved.tags, ['red', 'ball']);
    assert.ok(Math.abs(saved.focalPoint.x - 0.25) < 0.02 && Math.abs(saved.focalPoint.y - 0.75) < 0.02, JSON.stringify(saved));
    // Typed in place of a click, and kept when the panel opens again.
    await panel.getByLabel('y', { exact: true }).fill('0.4');
    await panel.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForFunction(() => document.querySelector('.media-detail .alert-ok') !== null);
    await page.waitForTimeout(200);
    assert.equal((await assetByName('red-ball.jpg')).focalPoint.y, 0.4);
    await panel.getByRole('button', { name: 'Close red-ball.jpg' }).click();
    await card('red-ball.jpg').click();
    assert.equal(await page.locator('aside.media-detail').getByLabel('y', { exact: true }).inputValue(), '0.4');
  });

  test('the model editor makes media fields; the record form picks assets, uploads one, and saves the ids', async () => {
    await page.goto(`${setup.url}/admin#/models/new`);
    await page.getByRole('heading', { level: 1, name: 'New model' }).waitFor();
    await page.getByLabel('Name (required)', { exact: true }).fill('Article');
    const field = (index: number) => page.locator('fieldset.field-editor').nth(index);
    await field(0).getByLabel('Label').fill('Title');
    await field(0).getByLabel('Required').check();
    await page.getByRole('button', { name: 'Add field', exact: true }).click();
    await field(1).getByLabel('Label').fill('Photo');
    await field(1).getByLabel('Type').selectOption('media');
    await field(1).getByLabel('Images').check();
    await page.getByRole('button', { name: 'Add field', exact: true }).click();
    await field(2).getByLabel('Label').fill('Gallery');
    await field(2).getByLabel('Type').selectOption('media');
    await field(2).getByLabel('Several assets').check();
    await page.getByRole('button', { name: 'Create model' }).click();
    await page.getByRole('heading', { level: 1, name: 'Article' }).waitFor();
    const models = (await admin.ok('{ model { list { id slug fields { key type multiple acceptedTypes } } } }')).model.list;
    const article = models.find((model: any) => model.slug === 'article');
    assert.deepEqual(article.fields.slice(1), [
      { key: 'photo', type: 'media', multiple: false, acceptedTypes: ['image'] },
      { key: 'gallery', type: 'media', multiple: true, acceptedTypes: null },
    ]);

    await page.goto(`${setup.url}/admin#/models/${article.id}/records/new`);
    await page.getByRole('heading', { level: 1, name: 'New Article record' }).waitFor();
    await page.getByLabel('Title').fill('Summer match');
    await page.getByRole('button', { name: 'Choose an asset for Photo' }).click();
    const dialog = page.getByRole('dialog', { name: 'Choose for Photo' });
    await dialog.locator('.media-card').first().waitFor();
    const offered = await dialog.locator('.media-name').allInnerTexts();
    assert.equal(offered.includes('manual.pdf'), false, offered.join(', '));
    await dialog.locator('.media-card').filter({ hasText: 'red-ball.jpg' }).click();
    await dialog.waitFor({ state: 'detached' });
    const photo = page.locator('[data-field="photo"]');
    await photo.locator('.media-chosen-item img').waitFor();
    assert.match(await photo.innerText(), /red-ball\.jpg/);

    await page.getByRole('button', { name: 'Choose assets for Gallery' }).click();
    const gallery = page.getByRole('dialog', { name: 'Choose for Gallery' });
    await gallery.locator('.media-card').filter({ hasText: 'manual.pdf' }).click();
    await gallery.locator('.media-card').filter({ hasText: 'green-summer.jpg' }).click();
    // An upload in the dialog is chosen too, after the others.
    await gallery.locator('input[type="file"]').setInputFiles({
      name: 'new-in-picker.jpg',
      mimeType: 'image/jpeg',
      buffer: await jpeg(120, 90, { r: 240, g: 200, b: 10 }),
    });
    await gallery.locator('.upload-row').filter({ hasText: 'Uploaded' }).waitFor();
    const galleryField = page.locator('[data-field="gallery"]');
    await galleryField.locator('.media-chosen-item').nth(2).waitFor();
    await gallery.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Move green-summer.jpg up' }).click();
    await page.getByRole('button', { name: 'Remove new-in-picker.jpg from Gallery' }).click();
    await page.getByRole('button', { name: 'Create record' }).click();
    await page.getByRole('heading', { level: 1, name: 'Article' }).waitFor();

    const [redBall, green, manual] = await Promise.all(['red-ball.jpg', 'green-summer.jpg', 'manual.pdf'].map(assetByName));
    const records = (await admin.ok('query ($id: ID!) { record { list(modelId: $id) { items { data } } } }', { id: article.id }))
      .record.list.items;
    assert.deepEqual(records[0].data, { title: 'Summer match', photo: redBall.id, gallery: [green.id, manual.id] });

    // The records table shows the thumbnails.
    const row = page.locator('table.records tbody tr').filter({ hasText: 'Summer match' });
    const thumb = row.locator('td.media-cell img').first();
    await thumb.waitFor();
    assert.match((await thumb.getAttribute('src')) ?? '', /red-ball\.jpg\?w=96&h=96&fit=cover&format=auto$/);
    assert.equal(await row.locator('td.media-cell .media-file-badge').innerText(), 'PDF');
  });

  test('deleting an asset a record uses is refused with the message, then Delete anyway removes it', async () => {
    await mediaPage('search=red-ball');
    await card('red-ball.jpg').click();
    const panel = page.locator('aside.media-detail');
    await panel.getByText('Used by 1 record').waitFor();
    await panel.getByRole('button', { name: 'Delete asset' }).click();
    await page.getByRole('dialog', { name: 'Delete red-ball.jpg?' }).getByRole('button', { name: 'Delete asset' }).click();
    const refusal = panel.getByRole('alert');
    await refusal.filter({ hasText: 'The asset was not deleted.' }).waitFor();
    assert.match(await refusal.innerText(), /used by a record \(model "article", field "photo"\)/);
    const before = await assetByName('red-ball.jpg');
    assert.ok(before, 'still there');
    await panel.getByRole('button', { name: 'Delete anyway' }).click();
    await panel.waitFor({ state: 'detached' });
    await page.getByText('No assets match.').waitFor();
    assert.equal((await admin.ok('query ($id: ID!) { asset { get(id: $id) { id } } }', { id: before.id })).asset.get, null);
    const models = (await admin.ok('{ model { list { id slug } } }')).model.list;
    const article = models.find((model: any) => model.slug === 'article');
    const data = (await admin.ok('query ($id: ID!) { record { list(modelId: $id) { items { data } } } }', { id: article.id }))
      .record.list.items[0].data;
    assert.equal('photo' in data, false, JSON.stringify(data));
  });
});
