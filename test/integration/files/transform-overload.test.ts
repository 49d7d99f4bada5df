import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describeEachDatabase, type ServerContext } from '../../support/server.js';
import { dataOf } from '../commands/schema.js';
import { adminGet, sendForm, storedNames } from './helpers.js';

/**
 * Image transformations under load and the AVIF encoder (issue 36, items 5 and 14): an overload
 * or a generation past ASSETS_TRANSFORM_TIMEOUT is 503 SERVICE_UNAVAILABLE with Retry-After,
 * answered in time, never 400 "cannot be read as an image"; an AVIF result is bounded by
 * ASSETS_TRANSFORM_AVIF_MAX_PIXELS, since no timeout stops its encoder.
 */

const root = mkdtempSync(join(tmpdir(), 'svc-transform-overload-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A noisy picture (the slowest kind to filter and encode), or a flat one. */
function picture(side: number, format: 'jpeg' | 'png', noisy = true): Promise<Buffer> {
  return sharp({
    create: {
      width: side,
      height: side,
      channels: 3,
      background: '#808080',
      ...(noisy ? { noise: { type: 'gaussian' as const, mean: 128, sigma: 40 } } : {}),
    },
  })
    .toFormat(format)
    .toBuffer();
}

async function upload(ctx: ServerContext, content: Uint8Array, name: string, type: string): Promise<string> {
  const row = dataOf<Record<string, unknown>>(await sendForm(ctx, 'POST', '/files', [['file', content, name, type]]));
  return String(row['id']);
}

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly code: unknown;
  readonly message: string;
  readonly type: string | null;
  readonly ms: number;
}

async function timedGet(ctx: ServerContext, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const started = Date.now();
  const res = await adminGet(ctx, path, headers);
  const type = res.headers.get('content-type');
  let code: unknown;
  let message = '';
  if (type?.startsWith('application/json') === true) {
    const body = (await res.json()) as { errors?: { message: string; extensions: { code: unknown } }[] };
    code = body.errors?.[0]?.extensions.code;
    message = body.errors?.[0]?.message ?? '';
  } else await res.arrayBuffer();
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    code,
    message,
    type,
    ms: Date.now() - started,
  };
}

const variantsOf = async (id: string) => (await storedNames(root)).filter((name) => name.startsWith(`${id}__`));

/** Until `check` passes (a lingering generation ends), at most `ms`. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not so within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describeEachDatabase(
  'image transformations under load',
  (ctx) => {
    it('more distinct transformations at once than ASSETS_TRANSFORM_MAX_CONCURRENT: each 200 or 503 with Retry-After, none 400', async function () {
      this.timeout(180_000);
      const id = await upload(ctx(), await picture(1500, 'jpeg'), 'load.jpg', 'image/jpeg');
      // Heavy enough that some pass ASSETS_TRANSFORM_TIMEOUT, which sharp stops mid-read.
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          timedGet(ctx(), `/assets/${id}?width=${1400 + i}&transforms=[["blur",${60 + i}]]`),
        ),
      );
      const statuses = answers.map((a) => a.status);
      expect(
        answers.filter((a) => a.status !== 200 && a.status !== 503),
        JSON.stringify(answers),
      ).to.deep.equal([]);
      expect(statuses, 'more than ASSETS_TRANSFORM_MAX_CONCURRENT at once').to.include(503);
      for (const answer of answers.filter((a) => a.status === 503)) {
        expect(answer.code).to.equal('SERVICE_UNAVAILABLE');
        expect(answer.message).to.match(/Too many image transformations|ASSETS_TRANSFORM_TIMEOUT/);
        expect(Number(answer.retryAfter), 'Retry-After').to.be.within(1, 5);
      }
      // What was answered 200 is stored; a refused or late one stored nothing.
      await eventually(async () => (await timedGet(ctx(), `/assets/${id}?width=20`)).status === 200, 120_000);
      const stored = await variantsOf(id);
      expect(stored).to.have.length(statuses.filter((s) => s === 200).length + 1);
    });

    it('a file that truly is not an image is still 400 once the load is gone, and the server serves on', async () => {
      const broken = await upload(ctx(), Buffer.from('not a jpeg at all'), 'broken.jpg', 'image/jpeg');
      const answer = await timedGet(ctx(), `/assets/${broken}?width=10`);
      expect(answer).to.deep.include({ status: 400, code: 'ILLEGAL_ASSET_TRANSFORMATION' });
      expect(answer.message).to.include('cannot be read as an image');
      expect(answer.retryAfter).to.equal(null);
      expect(await variantsOf(broken)).to.deep.equal([]);
    });

    it('format=auto past the cap gives WebP to a client that accepts AVIF', async () => {
      const flat = await upload(ctx(), await picture(300, 'png', false), 'flat.png', 'image/png');
      const answer = await timedGet(ctx(), `/assets/${flat}?width=200&height=200&format=auto`, {
        Accept: 'image/avif,image/webp,*/*',
      });
      expect(answer).to.deep.include({ status: 200, type: 'image/webp' });
      const small = await timedGet(ctx(), `/assets/${flat}?width=64&height=64&format=auto`, {
        Accept: 'image/avif,image/webp,*/*',
      });
      expect(small).to.deep.include({ status: 200, type: 'image/avif' });
    });
  },
  {
    env: {
      STORAGE_LOCAL_ROOT: root,
      ASSETS_TRANSFORM_MAX_CONCURRENT: '4',
      ASSETS_TRANSFORM_TIMEOUT: '1s',
      ASSETS_TRANSFORM_AVIF_MAX_PIXELS: '10000',
    },
  },
);

describeEachDatabase(
  'AVIF results: bounded by ASSETS_TRANSFORM_AVIF_MAX_PIXELS and answered within ASSETS_TRANSFORM_TIMEOUT',
  (ctx) => {
    let photo: string;
    before(async () => {
      photo = await upload(ctx(), await picture(500, 'jpeg'), 'photo.jpg', 'image/jpeg');
    });

    it('6000×6000 quality 100 as AVIF: 400 naming the cap at once, before any pixel is read; nothing stored', async () => {
      for (const quality of [100, 99]) {
        const answer = await timedGet(ctx(), `/assets/${photo}?width=6000&height=6000&format=avif&quality=${quality}`);
        expect(answer).to.deep.include({ status: 400, code: 'ILLEGAL_ASSET_TRANSFORMATION' });
        expect(answer.message).to.include('6000×6000').and.include('ASSETS_TRANSFORM_AVIF_MAX_PIXELS');
        expect(answer.ms).to.be.below(3000);
      }
      expect(await variantsOf(photo)).to.deep.equal([]);
    });

    it('an AVIF within the cap but slower than ASSETS_TRANSFORM_TIMEOUT: 503 in time with Retry-After; the server serves on', async function () {
      this.timeout(120_000);
      const path = `/assets/${photo}?width=500&height=500&format=avif&quality=100`;
      const late = await timedGet(ctx(), path);
      expect(late).to.deep.include({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: '1' });
      expect(late.message).to.include('ASSETS_TRANSFORM_TIMEOUT');
      expect(late.ms, 'answered within ASSETS_TRANSFORM_TIMEOUT (50 ms) and a margin').to.be.below(3000);
      // While its encoder runs on: the same variant is 503 at once, not a second encoder;
      // other requests are served.
      const again = await timedGet(ctx(), path);
      expect(again).to.deep.include({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: '1' });
      expect(again.message).to.include('still being made');
      expect(again.ms).to.be.below(2000);
      const ping = await ctx().api('/server/ping');
      expect(await ping.text()).to.equal('pong');
      expect(await timedGet(ctx(), `/assets/${photo}`)).to.deep.include({ status: 200, type: 'image/jpeg' });
      // Its encoder keeps its ASSETS_TRANSFORM_MAX_CONCURRENT place (1 here) until it ends.
      const busy = await timedGet(ctx(), `/assets/${photo}?width=8&format=png`);
      expect(busy).to.deep.include({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: '1' });
      expect(busy.message).to.include('Too many image transformations');
      // Nothing of the late AVIF is kept, even once its encoder is done.
      await eventually(
        async () => !(await timedGet(ctx(), `/assets/${photo}?width=8&format=png`)).message.includes('Too many'),
        100_000,
      );
      expect((await variantsOf(photo)).filter((name) => name.endsWith('.avif'))).to.deep.equal([]);
    });
  },
  {
    // 50 ms: shorter than any AVIF encoder's work, however fast the machine.
    env: {
      STORAGE_LOCAL_ROOT: root,
      ASSETS_TRANSFORM_TIMEOUT: '50ms',
      ASSETS_TRANSFORM_MAX_CONCURRENT: '1',
      ASSETS_TRANSFORM_AVIF_MAX_PIXELS: '250000',
    },
  },
);
