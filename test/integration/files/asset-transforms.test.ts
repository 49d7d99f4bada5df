import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp, { type Metadata } from 'sharp';
import { describeEachDatabase, type ServerContext } from '../../support/server.js';
import { sqliteTarget } from '../../support/services.js';
import { adminApi, dataOf } from '../commands/schema.js';
import { adminGet, sendForm, storedNames } from './helpers.js';

type Row = Record<string, unknown>;

/** A noisy picture (so quality shows in the size) of the given size, as `format`. */
function picture(width: number, height: number, format: 'jpeg' | 'png'): Promise<Buffer> {
  return sharp({
    create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
  })
    .toFormat(format)
    .toBuffer();
}

/** A real PNG of `side`×`side` 1-bit pixels, all zero: a few kB that decode to side²/8 bytes. */
function decompressionBomb(side: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr.writeUInt8(1, 8); // bit depth 1, grey, no interlace
  const raw = Buffer.alloc((1 + Math.ceil(side / 8)) * side);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

async function upload(ctx: ServerContext, content: Uint8Array, name: string, type: string): Promise<Row> {
  return dataOf<Row>(await sendForm(ctx, 'POST', '/files', [['file', content, name, type]]));
}

async function image(res: Response): Promise<{ buffer: Buffer; meta: Metadata }> {
  expect(res.status, res.status === 200 ? '' : await res.clone().text()).to.equal(200);
  const buffer = Buffer.from(await res.arrayBuffer());
  return { buffer, meta: await sharp(buffer).metadata() };
}

async function errorOf(
  res: Response,
): Promise<{ status: number; code: unknown; message: string; retryAfter: string | null }> {
  const body = (await res.json()) as { errors: { message: string; extensions: { code: unknown } }[] };
  return {
    status: res.status,
    code: body.errors[0]?.extensions.code,
    message: body.errors[0]?.message ?? '',
    retryAfter: res.headers.get('retry-after'),
  };
}

const root = mkdtempSync(join(tmpdir(), 'svc-transforms-'));
after(() => rmSync(root, { recursive: true, force: true }));

describeEachDatabase(
  'image transformations on /assets',
  (ctx) => {
    let photo: Row;
    const asset = (query: string, headers: Record<string, string> = {}) =>
      adminGet(ctx(), `/assets/${String(photo['id'])}?${query}`, headers);
    const variants = async (file: Row) =>
      (await storedNames(root)).filter((name) => name.startsWith(`${String(file['id'])}__`));

    before(async () => {
      photo = await upload(ctx(), await picture(400, 200, 'jpeg'), 'photo.jpg', 'image/jpeg');
    });

    it('resizes (width, height, fit), converts (format, quality) and keeps small images small (withoutEnlargement)', async () => {
      expect((await image(await asset('width=100'))).meta).to.include({ width: 100, height: 50, format: 'jpeg' });
      const cover = await image(await asset('width=50&height=50&fit=cover&format=png'));
      expect(cover.meta).to.include({ width: 50, height: 50, format: 'png' });
      expect((await image(await asset('width=50&height=50&fit=inside'))).meta).to.include({ width: 50, height: 25 });
      expect((await image(await asset('width=50&height=50&fit=outside'))).meta).to.include({ width: 100, height: 50 });
      const contained = await image(await asset('width=50&height=50&fit=contain&format=webp'));
      expect(contained.meta).to.include({ width: 50, height: 50, format: 'webp' });
      expect((await image(await asset('width=800'))).meta).to.include({ width: 800 });
      expect((await image(await asset('width=800&withoutEnlargement=true'))).meta).to.include({ width: 400 });
      const low = await image(await asset('width=300&quality=10'));
      const high = await image(await asset('width=300&quality=95'));
      expect(low.buffer.length).to.be.lessThan(high.buffer.length / 2);
      const res = await asset('width=20&format=png');
      expect(res.headers.get('content-type')).to.equal('image/png');
      expect(res.headers.get('cache-control')).to.match(/^private, max-age=\d+$/);
      const grey = await image(await asset('width=40&transforms=[["grayscale"],["rotate",90]]'));
      expect(grey.meta).to.include({ width: 20, height: 40 });
    });

    it('format=auto follows Accept (AVIF, then WebP, else the original format) and says Vary: Accept', async () => {
      const avif = await asset('width=32&format=auto', { Accept: 'image/avif,image/webp,*/*' });
      expect(avif.headers.get('content-type')).to.equal('image/avif');
      expect(avif.headers.get('vary')).to.include('Accept');
      expect((await image(avif)).meta.format).to.equal('heif');
      const webp = await asset('width=32&format=auto', { Accept: 'image/webp,*/*;q=0.8' });
      expect(webp.headers.get('content-type')).to.equal('image/webp');
      expect((await image(webp)).meta.format).to.equal('webp');
      const plain = await asset('width=32&format=auto', { Accept: 'image/avif;q=0,*/*' });
      expect(plain.headers.get('content-type')).to.equal('image/jpeg');
      await image(plain);
    });

    it('stores each variant once, in storage beside the original, and serves it from there (Range too)', async () => {
      const before = await variants(photo);
      const first = await image(await asset('width=123'));
      const made = (await variants(photo)).filter((name) => !before.includes(name));
      expect(made).to.have.length(1);
      expect(made[0]).to.match(/^[0-9a-f-]{36}__[0-9a-f]{20}\.jpg$/);
      expect(await readFile(join(root, made[0]!))).to.deep.equal(first.buffer);
      // What is stored is what is served: a changed stored variant shows.
      await writeFile(join(root, made[0]!), 'stored variant');
      expect(await (await asset('width=123')).text()).to.equal('stored variant');
      const part = await asset('width=123', { Range: 'bytes=0-5' });
      expect(part.status).to.equal(206);
      expect(await part.text()).to.equal('stored');
      expect(await variants(photo)).to.have.length(before.length + 1);
      // The original is untouched.
      expect(await readFile(join(root, String(photo['filename_disk'])))).to.have.length(Number(photo['filesize']));
    });

    it('key: a preset from settings (and the system presets); the settings can allow presets only', async () => {
      dataOf(
        await adminApi(ctx(), 'PATCH', '/settings', {
          storage_asset_presets: [{ key: 'square', width: 30, height: 30, fit: 'cover', format: 'png' }],
        }),
      );
      expect((await image(await asset('key=square'))).meta).to.include({ width: 30, height: 30, format: 'png' });
      expect((await image(await asset('key=system-small-cover'))).meta).to.include({ width: 64, height: 64 });
      const unknown = await errorOf(await asset('key=round'));
      expect(unknown).to.deep.include({ status: 400, code: 'ILLEGAL_ASSET_TRANSFORMATION' });
      expect(unknown.message).to.include('no preset named "round"');
      dataOf(await adminApi(ctx(), 'PATCH', '/settings', { storage_asset_transform: 'presets' }));
      try {
        expect((await errorOf(await asset('width=10'))).message).to.include('presets (key) only');
        expect((await image(await asset('key=square'))).meta).to.include({ width: 30 });
      } finally {
        dataOf(await adminApi(ctx(), 'PATCH', '/settings', { storage_asset_transform: 'all' }));
      }
    });

    it('refuses bad values with 400 ILLEGAL_ASSET_TRANSFORMATION and the reason, and ignores the parameters for other files', async () => {
      for (const query of [
        'width=0',
        'fit=stretch',
        'transforms=[["toFile","/tmp/x"]]',
        'width=7000',
        'key=x&width=3',
      ]) {
        const error = await errorOf(await asset(query));
        expect(error, query).to.deep.include({ status: 400, code: 'ILLEGAL_ASSET_TRANSFORMATION' });
        expect(error.message, query).to.match(/^Illegal asset transformation: .+\.$/);
      }
      // Arguments of the right type that sharp refuses: the arguments are named, not the image.
      const stored = await variants(photo);
      for (const [operation, reason] of [
        ['["sharpen",{"sigma":0}]', /the arguments of sharpen .*sigma/],
        ['["modulate",{"hue":1.5}]', /the arguments of modulate .*hue/],
        ['["tint","notacolor"]', /the arguments of tint .*notacolor/],
      ] as const) {
        const error = await errorOf(await asset(`transforms=[${operation}]`));
        expect(error, operation).to.deep.include({ status: 400, code: 'ILLEGAL_ASSET_TRANSFORMATION' });
        expect(error.message, operation).to.match(reason);
      }
      expect(await variants(photo)).to.deep.equal(stored);
      const text = await upload(ctx(), Buffer.from('just text'), 'note.txt', 'text/plain');
      const res = await adminGet(ctx(), `/assets/${String(text['id'])}?width=10&format=webp`);
      expect(res.status).to.equal(200);
      expect(await res.text()).to.equal('just text');
      expect(await variants(text)).to.deep.equal([]);
    });

    it('a file that is not a readable image: 400, nothing stored, the original served as it was', async () => {
      const broken = await upload(ctx(), Buffer.from('not a png at all'), 'broken.png', 'image/png');
      for (let i = 0; i < 2; i += 1) {
        const error = await errorOf(await adminGet(ctx(), `/assets/${String(broken['id'])}?width=10`));
        expect(error).to.deep.include({ status: 400, code: 'ILLEGAL_ASSET_TRANSFORMATION' });
        expect(error.message).to.include('cannot be read as an image');
      }
      expect(await variants(broken)).to.deep.equal([]);
      expect(await (await adminGet(ctx(), `/assets/${String(broken['id'])}`)).text()).to.equal('not a png at all');
    });

    it('replacing or deleting a file removes its variants; the next request makes one from the new content', async () => {
      const file = await upload(ctx(), await picture(100, 100, 'png'), 'swap.png', 'image/png');
      const path = `/assets/${String(file['id'])}?width=10`;
      expect((await image(await adminGet(ctx(), path))).meta).to.include({ width: 10, height: 10 });
      expect((await image(await adminGet(ctx(), `${path}&format=webp`))).meta.format).to.equal('webp');
      expect(await variants(file)).to.have.length(2);
      const replaced = await sendForm(ctx(), 'PATCH', `/files/${String(file['id'])}`, [
        ['file', await picture(100, 50, 'png'), 'swap.png', 'image/png'],
      ]);
      expect(replaced.status, JSON.stringify(replaced.body)).to.equal(200);
      expect(await variants(file)).to.deep.equal([]);
      expect((await image(await adminGet(ctx(), path))).meta).to.include({ width: 10, height: 5 });
      expect(await variants(file)).to.have.length(1);
      expect((await adminApi(ctx(), 'DELETE', `/files/${String(file['id'])}`)).status).to.equal(204);
      expect(await variants(file)).to.deep.equal([]);
    });

    it('limits: a decompression bomb and a too large result are 400 before any pixel is decoded; nothing stored', async () => {
      const bomb = decompressionBomb(20_000);
      expect(bomb.length).to.be.lessThan(200_000);
      const file = await upload(ctx(), bomb, 'bomb.png', 'image/png');
      expect(file).to.include({ width: 20_000, height: 20_000 });
      const path = `/assets/${String(file['id'])}?width=100`;
      const known = await errorOf(await adminGet(ctx(), path));
      expect(known).to.deep.include({ status: 400, code: 'ILLEGAL_ASSET_TRANSFORMATION' });
      expect(known.message).to.include('more than 6000×6000 pixels');
      // Without the dimensions on the row, sharp's pixel limit stops it at the header.
      await ctx().server.db('svc_files').where('id', String(file['id'])).update({ width: null, height: null });
      const unknown = await errorOf(await adminGet(ctx(), path));
      expect(unknown).to.deep.include({ status: 400, code: 'ILLEGAL_ASSET_TRANSFORMATION' });
      expect(unknown.message).to.include('more than 6000×6000 pixels');
      expect(await variants(file)).to.deep.equal([]);
      expect((await adminGet(ctx(), `/assets/${String(file['id'])}`)).status).to.equal(200);

      const tall = await upload(ctx(), await picture(10, 1000, 'png'), 'tall.png', 'image/png');
      const result = await errorOf(await adminGet(ctx(), `/assets/${String(tall['id'])}?width=900`));
      expect(result).to.deep.include({ status: 400, code: 'ILLEGAL_ASSET_TRANSFORMATION' });
      expect(result.message).to.include('900×90000');
      expect(await variants(tall)).to.deep.equal([]);
    });
  },
  { env: { STORAGE_LOCAL_ROOT: root } },
);

describeEachDatabase(
  'image transformation limits: concurrency and time',
  (ctx) => {
    it('one more than ASSETS_TRANSFORM_MAX_CONCURRENT is 503, one past ASSETS_TRANSFORM_TIMEOUT is 503; then all is well', async function () {
      this.timeout(60_000);
      const big = await upload(ctx(), await picture(2000, 2000, 'jpeg'), 'big.jpg', 'image/jpeg');
      const small = await upload(ctx(), await picture(40, 40, 'png'), 'small.png', 'image/png');
      const slowPath = `/assets/${String(big['id'])}?transforms=[["blur",300]]`;
      const slow = adminGet(ctx(), slowPath);
      // The slow one takes its place once its file is read: until then a small one still gets
      // through (each asks for a new width, so none is answered from a stored variant).
      let busy: Awaited<ReturnType<typeof errorOf>> | undefined;
      for (let width = 10; width < 30 && busy === undefined; width += 1) {
        await new Promise((resolve) => setTimeout(resolve, width === 10 ? 300 : 100));
        const res = await adminGet(ctx(), `/assets/${String(small['id'])}?width=${width}`);
        if (res.status === 503) busy = await errorOf(res);
        else await res.arrayBuffer();
      }
      expect(busy).to.deep.include({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(busy?.message).to.include('Too many image transformations');
      const late = await errorOf(await slow);
      expect(late).to.deep.include({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(late.message).to.include('ASSETS_TRANSFORM_TIMEOUT');
      expect(late.retryAfter).to.equal('1');
      // The late one keeps its place until sharp's own timeout has stopped libvips: then all is well.
      // A width no probe asked for: made now, not read from storage.
      const smallPath = `/assets/${String(small['id'])}?width=9`;
      let res = await adminGet(ctx(), smallPath);
      for (const until = Date.now() + 30_000; res.status === 503 && Date.now() < until;) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        res = await adminGet(ctx(), smallPath);
      }
      expect((await image(res)).meta.width).to.equal(9);
      expect((await storedNames(root)).filter((name) => name.startsWith(`${String(big['id'])}__`))).to.deep.equal([]);
    });
  },
  {
    targets: [sqliteTarget],
    env: { STORAGE_LOCAL_ROOT: root, ASSETS_TRANSFORM_MAX_CONCURRENT: '1', ASSETS_TRANSFORM_TIMEOUT: '1s' },
  },
);
