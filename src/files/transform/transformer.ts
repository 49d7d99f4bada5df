import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Sharp, SharpOptions } from 'sharp';
import type { AssetsTransformConfig } from '../../config/index.js';
import { IllegalAssetTransformationError, ServiceError, ServiceUnavailableError } from '../../errors.js';
import type { Asset, StorageDriver } from '../storage/storage-driver.js';
import type { Operation, Transformation } from './transformation.js';

/** The formats sharp writes, by the media type they are served as. */
const OUTPUT_TYPES = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  tiff: 'image/tiff',
  avif: 'image/avif',
  gif: 'image/gif',
} as const;
type OutputFormat = keyof typeof OUTPUT_TYPES;

/** Media types of originals that are transformed; anything else is served as it is. */
const SOURCE_FORMATS: Readonly<Record<string, OutputFormat>> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/tiff': 'tiff',
  'image/avif': 'avif',
  'image/gif': 'gif',
};

/** The stored original a variant is made from. */
export interface TransformSource {
  readonly id: string;
  readonly type: string;
  readonly filenameDownload: string;
  readonly driver: StorageDriver;
  readonly path: string;
  /** svc_files.width / height, when known: a too large image is refused before it is read. */
  readonly width: number | null;
  readonly height: number | null;
  /** The original's size and time: part of the variant's name, so a replaced original never serves old variants. */
  readonly size: number;
  readonly modified: Date;
}

interface Generated {
  readonly data: Buffer;
  readonly modified: Date;
}

export interface TransformLog {
  debug(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * Makes image variants with sharp and keeps them in the original's storage location, next
 * to it, as `<id>__<hash>.<ext>` (through the StorageDriver, so on any driver): a variant
 * asked for again is read from there. The same variant asked for twice at once is made
 * once. Limits (ASSETS_TRANSFORM_*): input pixels (checked on the header, before decoding),
 * output sides, concurrent generations (503 beyond) and time (503). A failed generation
 * stores nothing (driver writes are all or nothing) and never touches the original.
 */
export class AssetTransformer {
  /** Generations whose sharp work has not ended: a timed-out one still counts until it does. */
  private active = 0;
  private readonly inFlight = new Map<string, Promise<Generated>>();
  /** Variants answered 503 for time whose sharp work goes on (an AVIF encoder cannot be stopped). */
  private readonly lingering = new Set<string>();

  constructor(
    private readonly config: AssetsTransformConfig,
    private readonly log?: TransformLog,
  ) {}

  /** The variant as an asset, or undefined when the original is not an image sharp transforms. */
  async variant(
    source: TransformSource,
    transformation: Transformation,
    accept: string | undefined,
  ): Promise<Asset | undefined> {
    const sourceFormat = SOURCE_FORMATS[source.type.split(';')[0]?.trim().toLowerCase() ?? ''];
    if (sourceFormat === undefined) return undefined;
    const format = this.avifWithin(outputFormat(transformation.format, sourceFormat, accept), source, transformation);
    const name = variantName(source, transformation, format);
    const asset = (size: number, modified: Date, open: Asset['open']): Asset => ({
      type: OUTPUT_TYPES[format],
      filenameDownload: source.filenameDownload,
      size,
      modified,
      open,
    });
    const stored = await source.driver.stat(name);
    if (stored !== undefined) return asset(stored.size, stored.modified, (range) => source.driver.read(name, range));
    let generating = this.inFlight.get(name);
    if (generating === undefined) {
      generating = this.generate(source, transformation, format, name).finally(() => this.inFlight.delete(name));
      this.inFlight.set(name, generating);
    }
    const { data, modified } = await generating;
    return asset(data.length, modified, (range) =>
      Promise.resolve(Readable.from([range === undefined ? data : data.subarray(range.start, range.end + 1)])),
    );
  }

  private async generate(
    source: TransformSource,
    transformation: Transformation,
    format: OutputFormat,
    name: string,
  ): Promise<Generated> {
    const max = this.config.imageMaxDimension;
    if (source.width !== null && source.height !== null && source.width * source.height > max * max)
      throw tooManyPixels(max);
    if (this.lingering.has(name))
      throw this.unavailable(
        'This image transformation is still being made after ASSETS_TRANSFORM_TIMEOUT; try again shortly',
      );
    if (this.active >= this.config.maxConcurrent)
      throw this.unavailable('Too many image transformations at once; try again shortly');
    this.active += 1;
    const started = Date.now();
    const work = this.transform(source, transformation, format);
    // The place is given back when sharp's work ends, not when the answer goes: work the
    // timeout could not stop (an AVIF encoder) still counts against ASSETS_TRANSFORM_MAX_CONCURRENT.
    const ended = work.then(
      () => undefined,
      () => undefined,
    );
    let isEnded = false;
    void ended.then(() => {
      isEnded = true;
      this.active -= 1;
      this.lingering.delete(name);
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        if (!isEnded) this.lingering.add(name);
        reject(new TransformTimeout());
      }, this.config.timeoutMs);
    });
    let data: Buffer;
    try {
      data = await Promise.race([work, late]);
    } catch (error) {
      throw this.explain(error, source, Date.now() - started);
    } finally {
      clearTimeout(timer);
    }
    const modified = new Date();
    try {
      await source.driver.write(name, Readable.from([data]));
    } catch (error) {
      // Served all the same; the next request makes it again.
      this.log?.warn({ err: error, file: source.id, variant: name }, 'image variant could not be stored');
    }
    return { data, modified };
  }

  private async transform(
    source: TransformSource,
    transformation: Transformation,
    format: OutputFormat,
  ): Promise<Buffer> {
    const max = this.config.imageMaxDimension;
    const image = (await loadSharp())({ limitInputPixels: max * max, sequentialRead: true });
    image.timeout({ seconds: Math.max(1, Math.ceil(this.config.timeoutMs / 1000)) });
    // The pipeline is set up before the original is read: sharp checks each call's arguments.
    image.autoOrient();
    if (transformation.width !== undefined || transformation.height !== undefined) {
      image.resize({
        ...(transformation.width === undefined ? {} : { width: transformation.width }),
        ...(transformation.height === undefined ? {} : { height: transformation.height }),
        fit: transformation.fit ?? 'cover',
        withoutEnlargement: transformation.withoutEnlargement ?? false,
      });
    }
    for (const operation of transformation.transforms ?? []) apply(image, operation);
    image.toFormat(format, transformation.quality === undefined ? {} : { quality: transformation.quality });
    const input = await source.driver.read(source.path);
    input.once('error', (error) => image.destroy(error));
    input.pipe(image);
    try {
      const meta = await image.metadata();
      const turned = (meta.orientation ?? 1) >= 5;
      const width = turned ? meta.height : meta.width;
      const height = turned ? meta.width : meta.height;
      const out = outputSize(width, height, transformation);
      if (out.width > max || out.height > max)
        throw new IllegalAssetTransformationError(
          `the result would be ${out.width}×${out.height}, beyond ${max} (ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION)`,
        );
      if (format === 'avif' && out.width * out.height > this.config.avifMaxPixels) throw this.tooLargeForAvif(out);
      return await image.toBuffer();
    } finally {
      input.destroy();
    }
  }

  /**
   * A generation's failure as the answer it gets: 400 for the image, 503 for time. sharp's own
   * timeout stops libvips mid-read, which sharp may report as any warning of the decoder
   * ("Warning treated as error due to failOn setting"): a failure once the time is up is the
   * time's, never the image's.
   */
  private explain(error: unknown, source: TransformSource, elapsedMs: number): Error {
    if (error instanceof ServiceError) return error;
    if (error instanceof TransformTimeout || elapsedMs >= this.config.timeoutMs)
      return this.unavailable('The image transformation took longer than ASSETS_TRANSFORM_TIMEOUT');
    const message = error instanceof Error ? error.message : String(error);
    this.log?.debug({ err: error, file: source.id }, 'image transformation failed');
    if (/pixel limit/i.test(message)) return tooManyPixels(this.config.imageMaxDimension);
    if (/timeout/i.test(message))
      return this.unavailable('The image transformation took longer than ASSETS_TRANSFORM_TIMEOUT');
    return new IllegalAssetTransformationError('the file cannot be read as an image');
  }

  /** 503 with `Retry-After`: a place frees within ASSETS_TRANSFORM_TIMEOUT, usually. */
  private unavailable(reason: string): ServiceUnavailableError {
    return new ServiceUnavailableError('assets', reason, Math.max(1, Math.ceil(this.config.timeoutMs / 1000)));
  }

  /**
   * AVIF when its result stays within ASSETS_TRANSFORM_AVIF_MAX_PIXELS, as far as the file
   * row's dimensions tell before anything is read: beyond, `format=auto` falls back to WebP and
   * an asked-for `avif` is refused (transform() checks again on the image's own header).
   */
  private avifWithin(format: OutputFormat, source: TransformSource, transformation: Transformation): OutputFormat {
    if (format !== 'avif' || source.width === null || source.height === null) return format;
    const out = outputSize(source.width, source.height, transformation);
    if (out.width * out.height <= this.config.avifMaxPixels) return format;
    if (transformation.format === 'auto') return 'webp';
    throw this.tooLargeForAvif(out);
  }

  private tooLargeForAvif(out: { readonly width: number; readonly height: number }): IllegalAssetTransformationError {
    return new IllegalAssetTransformationError(
      `an AVIF result of ${out.width}×${out.height} has more than ${this.config.avifMaxPixels} pixels (ASSETS_TRANSFORM_AVIF_MAX_PIXELS); ask for a smaller size or another format`,
    );
  }
}

/** ASSETS_TRANSFORM_TIMEOUT passed before sharp ended: the answer goes, the work may go on. */
class TransformTimeout extends Error {}

function tooManyPixels(max: number): IllegalAssetTransformationError {
  return new IllegalAssetTransformationError(
    `the image has more than ${max}×${max} pixels (ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION)`,
  );
}

/** `auto`: AVIF, else WebP when the client accepts them, else the original's (JPEG for TIFF). */
function outputFormat(
  requested: Transformation['format'],
  source: OutputFormat,
  accept: string | undefined,
): OutputFormat {
  if (requested === 'jpg' || requested === 'jpeg') return 'jpeg';
  if (requested !== undefined && requested !== 'auto') return requested;
  if (requested === undefined) return source;
  const accepted = (type: string) =>
    (accept ?? '').split(',').some((entry) => {
      const [media, ...params] = entry.split(';').map((part) => part.trim().toLowerCase());
      return media === type && !params.some((p) => /^q=0(\.0*)?$/.test(p));
    });
  if (accepted('image/avif')) return 'avif';
  if (accepted('image/webp')) return 'webp';
  return source === 'png' || source === 'gif' ? source : 'jpeg';
}

/** What the stored names of a file's variants start with. */
export function variantPrefix(fileId: string): string {
  return `${fileId.toLowerCase()}__`;
}

function variantName(source: TransformSource, transformation: Transformation, format: OutputFormat): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([source.path, source.size, source.modified.getTime(), transformation, format]))
    .digest('hex')
    .slice(0, 20);
  return `${variantPrefix(source.id)}${hash}.${format === 'jpeg' ? 'jpg' : format}`;
}

/** The largest result a transformation can give an image of width × height (before `transforms`). */
export function outputSize(
  width: number,
  height: number,
  t: Transformation,
): { readonly width: number; readonly height: number } {
  if (t.width === undefined && t.height === undefined) return { width, height };
  if (width === 0 || height === 0) return { width: t.width ?? 0, height: t.height ?? 0 };
  const scaleW = t.width === undefined ? undefined : t.width / width;
  const scaleH = t.height === undefined ? undefined : t.height / height;
  let scale: number;
  if (scaleW === undefined || scaleH === undefined) scale = scaleW ?? scaleH ?? 1;
  else if ((t.fit ?? 'cover') === 'cover' || t.fit === 'contain') return { width: t.width ?? 0, height: t.height ?? 0 };
  else scale = t.fit === 'inside' ? Math.min(scaleW, scaleH) : Math.max(scaleW, scaleH);
  if (t.withoutEnlargement === true) scale = Math.min(scale, 1);
  return { width: Math.round(width * scale), height: Math.round(height * scale) };
}

/**
 * One `transforms` operation on the pipeline. Names and argument types are checked against
 * the list in transformation.ts; sharp's refusal of a value (a sigma of 0, a colour it does
 * not know) is the request's fault, and says which.
 */
function apply(image: Sharp, [name, ...args]: Operation): void {
  const method = (image as unknown as Record<string, (...values: unknown[]) => Sharp>)[name];
  try {
    method?.apply(image, args);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new IllegalAssetTransformationError(`transforms: the arguments of ${name} are out of range (${reason})`);
  }
}

type SharpFactory = (options: SharpOptions) => Sharp;
let sharpFactory: Promise<SharpFactory> | undefined;

/** sharp (some 20 MB of memory) is loaded by the first transformation, not at start. */
function loadSharp(): Promise<SharpFactory> {
  sharpFactory ??= import('sharp').then((loaded) => loaded.default);
  return sharpFactory;
}
