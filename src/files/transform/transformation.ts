import { IllegalAssetTransformationError } from '../../errors.js';

const FITS = ['cover', 'contain', 'inside', 'outside'] as const;
const FORMATS = ['auto', 'jpg', 'jpeg', 'png', 'webp', 'tiff', 'avif'] as const;
type Fit = (typeof FITS)[number];
type RequestedFormat = (typeof FORMATS)[number];

/** One entry of `transforms`: a sharp operation and its arguments, e.g. `["blur", 4]`. */
export type Operation = readonly [name: string, ...args: unknown[]];

/** What an /assets request asks to be made of an image. */
export interface Transformation {
  readonly width?: number;
  readonly height?: number;
  readonly fit?: Fit;
  readonly quality?: number;
  readonly format?: RequestedFormat;
  readonly withoutEnlargement?: boolean;
  readonly transforms?: readonly Operation[];
}

/** svc_settings.storage_asset_transform and storage_asset_presets. */
export interface TransformSettings {
  /** `all`: any transformation; `presets`: `key` only; `none`: the system presets only. */
  readonly policy: 'all' | 'presets' | 'none';
  readonly presets: readonly (Transformation & { readonly key: string })[];
}

/** The query parameters that ask for a transformation. */
const PARAMS = ['key', 'width', 'height', 'fit', 'quality', 'format', 'withoutEnlargement', 'transforms'] as const;

/** The presets every project has (Directus 10's names), used by the admin app's thumbnails. */
const SYSTEM_PRESETS: readonly (Transformation & { readonly key: string })[] = [
  { key: 'system-small-cover', width: 64, height: 64, fit: 'cover', quality: 80 },
  { key: 'system-small-contain', width: 64, fit: 'contain', quality: 80 },
  { key: 'system-medium-cover', width: 300, height: 300, fit: 'cover', quality: 80 },
  { key: 'system-medium-contain', width: 300, fit: 'contain', quality: 80 },
  { key: 'system-large-cover', width: 800, height: 800, fit: 'cover', quality: 80 },
  { key: 'system-large-contain', width: 800, fit: 'contain', quality: 80 },
];

const fail = (reason: string) => new IllegalAssetTransformationError(reason);
const isNumber = (value: unknown, min: number, max: number): boolean =>
  typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;
const isOptions = (value: unknown, keys: readonly string[]): boolean =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  Object.entries(value).every(([k, v]) => keys.includes(k) && isNumber(v, -1e6, 1e6));

/** The operations `transforms` may name, each with a check of its arguments. */
const OPERATIONS: Readonly<Record<string, (args: readonly unknown[]) => boolean>> = {
  rotate: (args) => args.length === 1 && [0, 90, 180, 270, -90, -180, -270].includes(args[0] as number),
  flip: (args) => args.length === 0,
  flop: (args) => args.length === 0,
  grayscale: (args) => args.length === 0,
  greyscale: (args) => args.length === 0,
  negate: (args) => args.length === 0,
  normalise: (args) => args.length === 0,
  normalize: (args) => args.length === 0,
  blur: (args) => args.length === 1 && isNumber(args[0], 0.3, 1000),
  sharpen: (args) =>
    args.length === 0 || (args.length === 1 && isOptions(args[0], ['sigma', 'm1', 'm2', 'x1', 'y2', 'y3'])),
  median: (args) => args.length === 1 && Number.isInteger(args[0]) && isNumber(args[0], 1, 25),
  gamma: (args) => args.length === 1 && isNumber(args[0], 1, 3),
  tint: (args) => args.length === 1 && typeof args[0] === 'string' && /^#?[0-9a-f]{3,8}$|^[a-z]{3,20}$/i.test(args[0]),
  modulate: (args) => args.length === 1 && isOptions(args[0], ['brightness', 'saturation', 'hue', 'lightness']),
};

/** An /assets query's transformation parameters, each value checked: a preset's `key` or the parameters. */
export type AskedTransformation =
  { readonly key: string } | { readonly key?: undefined; readonly transformation: Transformation };

type Limits = { readonly maxOperations: number; readonly maxDimension: number };

/**
 * The transformation parameters of an /assets query, or undefined when it gives none (an
 * empty `transforms` alone is none). ILLEGAL_ASSET_TRANSFORMATION (400) for a value out of
 * range, `key` with other parameters, more `transforms` than `maxOperations`, an operation
 * not on the list, or a side longer than `maxDimension`.
 */
export function askedTransformation(
  query: Readonly<Record<string, unknown>>,
  limits: Limits,
): AskedTransformation | undefined {
  const given = PARAMS.filter((name) => query[name] !== undefined);
  if (given.length === 0) return undefined;
  const transformation = parseParameters(query, limits);
  const key = query['key'];
  if (key !== undefined) {
    if (typeof key !== 'string' || key === '') throw fail('key must be a preset name');
    if (given.length > 1) throw fail('key cannot be combined with other parameters');
    return { key };
  }
  if (transformation.transforms?.length === 0 && given.length === 1) return undefined;
  return { transformation };
}

/**
 * What `asked` comes to under the settings: a preset's transformation (a system preset
 * always; the project's unless the policy is `none`), or the parameters when the policy is
 * `all`. 400 for an unknown preset, parameters the policy refuses, or a preset out of limits.
 */
export function resolveTransformation(
  asked: AskedTransformation,
  settings: TransformSettings,
  limits: Limits,
): Transformation {
  if (asked.key === undefined) {
    if (settings.policy !== 'all') throw fail('the settings allow presets (key) only');
    return asked.transformation;
  }
  const { key } = asked;
  const preset =
    SYSTEM_PRESETS.find((p) => p.key === key) ??
    (settings.policy === 'none' ? undefined : settings.presets.find((p) => p.key === key));
  if (preset === undefined) throw fail(`no preset named "${key}"`);
  const { key: _name, ...transformation } = preset;
  return checkTransformation(transformation, limits, `preset "${key}"`);
}

/** The query's parameters as a transformation (each checked). */
function parseParameters(query: Readonly<Record<string, unknown>>, limits: Limits): Transformation {
  const integer = (name: string, max: number, note = ''): number | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max)
      throw fail(`${name} must be a whole number from 1 to ${max}${note}`);
    return Number(value);
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[]): T | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
      throw fail(`${name} must be one of ${allowed.join(', ')}`);
    return value as T;
  };
  const side = ' (ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION)';
  const width = integer('width', limits.maxDimension, side);
  const height = integer('height', limits.maxDimension, side);
  const quality = integer('quality', 100);
  const fit = oneOf('fit', FITS);
  const format = oneOf('format', FORMATS);
  const enlargement = oneOf('withoutEnlargement', ['true', 'false']);
  const transforms = query['transforms'] === undefined ? undefined : parseOperations(query['transforms']);
  return checkTransformation(
    {
      ...(width === undefined ? {} : { width }),
      ...(height === undefined ? {} : { height }),
      ...(quality === undefined ? {} : { quality }),
      ...(fit === undefined ? {} : { fit }),
      ...(format === undefined ? {} : { format }),
      ...(enlargement === undefined ? {} : { withoutEnlargement: enlargement === 'true' }),
      ...(transforms === undefined ? {} : { transforms }),
    },
    limits,
    'transforms',
  );
}

function parseOperations(value: unknown): Operation[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(value));
  } catch {
    throw fail('transforms must be a JSON array of [operation, ...arguments]');
  }
  if (!Array.isArray(parsed)) throw fail('transforms must be a JSON array of [operation, ...arguments]');
  return parsed as Operation[];
}

/** A transformation (from a query or a preset) within the limits, or 400. */
function checkTransformation(transformation: Transformation, limits: Limits, where: string): Transformation {
  const { width, height, quality, fit, format, transforms = [] } = transformation;
  for (const [name, side] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (side !== undefined && !(Number.isInteger(side) && side >= 1 && side <= limits.maxDimension))
      throw fail(
        `${name} must be a whole number from 1 to ${limits.maxDimension} (ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION)`,
      );
  }
  if (quality !== undefined && !(Number.isInteger(quality) && quality >= 1 && quality <= 100))
    throw fail('quality must be a whole number from 1 to 100');
  if (fit !== undefined && !FITS.includes(fit)) throw fail(`fit must be one of ${FITS.join(', ')}`);
  if (format !== undefined && !FORMATS.includes(format)) throw fail(`format must be one of ${FORMATS.join(', ')}`);
  if (!Array.isArray(transforms)) throw fail(`${where} must be a list of operations`);
  if (transforms.length > limits.maxOperations)
    throw fail(`at most ${limits.maxOperations} transforms (ASSETS_TRANSFORM_MAX_OPERATIONS)`);
  for (const operation of transforms) {
    const [name, ...args] = Array.isArray(operation) ? (operation as unknown[]) : [];
    const known = typeof name === 'string' && Object.hasOwn(OPERATIONS, name) ? name : undefined;
    const check = known === undefined ? undefined : OPERATIONS[known];
    if (known === undefined || check === undefined) {
      throw fail(`${where}: ${JSON.stringify(name ?? operation)} is not an operation allowed`);
    }
    if (!check(args)) throw fail(`${where}: the arguments of ${known} are out of range`);
  }
  return transformation;
}

/** svc_settings' two transformation columns, as a database returns them. */
export interface TransformSettingsRow {
  readonly storage_asset_transform?: unknown;
  readonly storage_asset_presets?: unknown;
}

/** svc_settings' two columns (JSON as text on some databases) as TransformSettings. */
export function transformSettings(row: TransformSettingsRow | undefined): TransformSettings {
  const policy = row?.storage_asset_transform;
  let presets: unknown = row?.storage_asset_presets ?? null;
  if (typeof presets === 'string') {
    try {
      presets = JSON.parse(presets) as unknown;
    } catch {
      presets = null;
    }
  }
  return {
    policy: policy === 'presets' || policy === 'none' ? policy : 'all',
    presets: Array.isArray(presets)
      ? (presets as unknown[]).filter(
          (p): p is Transformation & { key: string } =>
            p !== null && typeof p === 'object' && 'key' in p && typeof p.key === 'string',
        )
      : [],
  };
}
