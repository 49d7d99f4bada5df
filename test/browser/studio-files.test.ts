import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { asAdmin, dataOf } from '../integration/access/permission-helpers.js';
import { TEST_ADMIN } from '../support/server.js';
import { studioSuite } from '../support/studio-suite.js';

interface FileRow {
  readonly id: string;
  readonly title: string | null;
  readonly folder: string | null;
  readonly focal_point_x: number | null;
  readonly focal_point_y: number | null;
  readonly filesize: number;
  readonly width: number | null;
}

const png = (width: number, height: number, background: string) =>
  sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();

/**
 * The Studio's file library (/admin/files) in Chromium: uploads by the dropzone, folders,
 * moving files (drag and the "Move to" menu), metadata and focal point, import from a URL,
 * replace, a transform preset's preview; each step checked in the API.
 */
describe('Studio file library in Chromium', function () {
  this.timeout(180_000);
  const studio = studioSuite('studio-files', { database: 'sqlite' });
  const { browser, shot, expectAccessible } = studio;
  let page: Page;
  let images: Server | undefined;
  let imagesUrl = '';

  before(async () => {
    page = studio.page;
    const remote = await png(120, 80, '#0a0');
    images = createServer((req, res) => {
      if (req.url === '/remote.png') res.writeHead(200, { 'content-type': 'image/png' }).end(remote);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => images?.listen(0, '127.0.0.1', resolve));
    imagesUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => images?.close(resolve));
  });

  studio.onDatabase(
    'files',
    (ctx) => {
      const { url } = studio;
      const files = async (query = '') =>
        dataOf<FileRow[]>(await asAdmin(ctx(), 'GET', `/files?limit=-1&sort=filename_download${query}`));
      const folderButton = (name: string) =>
        page.getByRole('navigation', { name: 'Folders' }).getByRole('button', { name, exact: true });

      before(async () => {
        dataOf(
          await asAdmin(ctx(), 'PATCH', '/settings', {
            storage_asset_presets: [{ key: 'square', fit: 'cover', width: 50, height: 50, quality: 80, format: 'png' }],
          }),
        );
      });

      it('uploads three files at once by the dropzone, makes two folders and moves files between them', async () => {
        await browser().signIn(url(''), TEST_ADMIN);
        await browser().nav().getByRole('link', { name: 'Files' }).click();
        await page.getByRole('heading', { name: 'All files' }).waitFor();
        const uploads = await Promise.all(
          ['#c00', '#00c', '#cc0'].map(async (colour, i) => ({
            name: `picture-${i + 1}.png`,
            mimeType: 'image/png',
            buffer: await png(300, 200, colour),
          })),
        );
        await page.locator('input[type="file"]').first().setInputFiles(uploads);
        for (const u of uploads) {
          const title = u.name.replace('.png', '').replace('picture-', 'Picture ');
          await page.getByRole('button', { name: title, exact: true }).waitFor();
        }
        for (const u of uploads) {
          expect(
            await page.getByRole('progressbar', { name: `Upload progress of ${u.name}` }).getAttribute('aria-valuenow'),
          ).to.equal('100');
        }
        expect((await files()).map((f) => f.title)).to.have.length(3);
        await shot('uploaded');
        await expectAccessible('files');

        // Two folders: "Photos" at the root, "Holidays" inside it.
        await page.getByRole('button', { name: 'New folder' }).click();
        await page.getByRole('dialog').getByLabel('Name').fill('Photos');
        await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
        await folderButton('Photos').waitFor();
        await folderButton('Photos').click();
        await page.getByRole('heading', { name: 'Photos' }).waitFor();
        await page.getByRole('button', { name: 'New folder' }).click();
        await page.getByRole('dialog').getByLabel('Name').fill('Holidays');
        await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
        await folderButton('Holidays').waitFor();
        const folders = dataOf<{ id: string; name: string; parent: string | null }[]>(
          await asAdmin(ctx(), 'GET', '/folders?limit=-1'),
        );
        const photos = folders.find((f) => f.name === 'Photos');
        const holidays = folders.find((f) => f.name === 'Holidays');
        expect(photos?.parent).to.equal(null);
        expect(holidays?.parent).to.equal(photos?.id);

        // Drag picture-1 onto Photos.
        await folderButton('All files').click();
        await page.getByRole('heading', { name: 'All files' }).waitFor();
        const first = (await files()).find((f) => f.title?.includes('1'));
        await page.locator(`[data-file="${first?.id}"]`).dragTo(folderButton('Photos'));
        await page.getByText('File moved.').waitFor();
        expect((await files()).find((f) => f.id === first?.id)?.folder).to.equal(photos?.id);

        // The keyboard's way: picture-2's "Move to" menu, Holidays.
        const second = (await files()).find((f) => f.title?.includes('2'));
        const mover = page.getByRole('button', { name: /^Move Picture 2 to$/i });
        await mover.focus();
        await page.keyboard.press('Enter');
        await page.getByRole('menuitem', { name: 'Photos / Holidays' }).waitFor();
        await page.getByRole('menuitem', { name: 'Photos / Holidays' }).focus();
        await page.keyboard.press('Enter');
        await page.getByText('File moved.').first().waitFor();
        await browser().until(
          async () => (await files()).find((f) => f.id === second?.id)?.folder === holidays?.id,
          'the file never moved',
        );
        await folderButton('Holidays').click();
        await page.getByRole('heading', { name: 'Holidays' }).waitFor();
        await page.locator(`[data-file="${second?.id}"]`).waitFor();
        await shot('moved');

        // The table view lists the same files.
        await page.getByRole('button', { name: 'Table' }).click();
        await page
          .getByRole('table')
          .getByText(/picture 2/i)
          .waitFor();
        await expectAccessible('files-table');
        await page.getByRole('button', { name: 'Thumbnails' }).click();
      });

      it('edits a title and a focal point, replaces the file and previews a preset', async () => {
        await page.goto(url('/admin/files'));
        await page.getByRole('heading', { name: 'All files' }).waitFor();
        const third = (await files()).find((f) => f.title?.includes('3'));
        await page.locator(`[data-file="${third?.id}"]`).getByRole('button').first().click();
        const dialog = page.getByRole('dialog');
        await dialog.getByLabel('Title').fill('Sunset');
        // A click at the image's centre: the focal point of a 300 × 200 image is about (150, 100).
        const image = dialog.locator('[data-focal-image]');
        await image.waitFor();
        const box = await image.boundingBox();
        if (box === null) throw new Error('no image box');
        await image.click({ position: { x: box.width / 2, y: box.height / 2 } });
        const x = Number(await dialog.getByLabel('Focal point x').inputValue());
        expect(x).to.be.within(140, 160);
        await shot('file-dialog');
        await expectAccessible('file-dialog');
        await dialog.getByRole('button', { name: 'Save' }).click();
        await page.getByText('File saved.').waitFor();
        const saved = (await files()).find((f) => f.id === third?.id);
        expect(saved?.title).to.equal('Sunset');
        expect(saved?.focal_point_x).to.be.within(140, 160);
        expect(saved?.focal_point_y).to.be.within(90, 110);

        // Replace: the same id, new content (a wider image).
        await page.getByRole('button', { name: 'Sunset', exact: true }).click();
        await dialog.locator('input[type="file"]').setInputFiles({
          name: 'wide.png',
          mimeType: 'image/png',
          buffer: await png(400, 100, '#088'),
        });
        await page.getByText('File replaced.').waitFor();
        const replaced = (await files()).find((f) => f.id === third?.id);
        expect(replaced?.width).to.equal(400);

        // The "square" preset previewed on the image.
        await dialog.getByRole('button', { name: 'square' }).click();
        const preview = dialog.locator('[data-preset="square"]');
        await preview.waitFor();
        expect(await preview.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).to.equal(50);
        await shot('preset');
        await dialog.getByRole('button', { name: 'Close' }).click();
      });

      it('imports a file from a URL into the open folder', async () => {
        await page.goto(url('/admin/files'));
        await folderButton('Photos').click();
        await page.getByRole('heading', { name: 'Photos' }).waitFor();
        await page.getByLabel('Import from a URL').fill(`${imagesUrl}/remote.png`);
        await page.getByRole('button', { name: 'Import', exact: true }).click();
        await page.getByText('File imported.').waitFor();
        const imported = (await files()).find((f) => f.title === 'Remote');
        const photos = dataOf<{ id: string }[]>(await asAdmin(ctx(), 'GET', '/folders?filter[name][_eq]=Photos'))[0];
        expect(imported?.folder).to.equal(photos?.id);
        await page.locator(`[data-file="${imported?.id}"]`).waitFor();
        await shot('imported');
      });

      it('fits a 390 px screen', async () => {
        await page.setViewportSize({ width: 390, height: 800 });
        try {
          await page.goto(url('/admin/files'));
          await page.getByRole('heading', { name: 'All files' }).waitFor();
          const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
          expect(overflow).to.be.at.most(0);
          await shot('files-390');
          await expectAccessible('files-390');
        } finally {
          await page.setViewportSize({ width: 1280, height: 900 });
        }
      });
    },
    // The test's image server is on 127.0.0.1.
    { extraEnv: () => ({ IMPORT_IP_DENY_LIST: '169.254.169.254' }) },
  );
});
