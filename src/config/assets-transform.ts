import { ConfigError, type EnvReader } from './env-reader.js';

/** ASSETS_TRANSFORM_*: the limits of image transformations on /assets (files/transform/). */
export interface AssetsTransformConfig {
  /** Transformations generated at once; one more is 503. */
  readonly maxConcurrent: number;
  /** The longest side of an output, and (squared) the most pixels of an input. */
  readonly imageMaxDimension: number;
  /** Entries of `transforms` one request may give. */
  readonly maxOperations: number;
  readonly timeoutMs: number;
  /**
   * The most pixels of an AVIF result: its encoder cannot be stopped by the timeout, so its work
   * is bounded by size instead (beyond: 400, or WebP for `format=auto`).
   */
  readonly avifMaxPixels: number;
}

export function readAssetsTransformConfig(env: EnvReader): AssetsTransformConfig {
  const timeoutMs = env.duration('ASSETS_TRANSFORM_TIMEOUT', '7500ms');
  if (timeoutMs <= 0) throw new ConfigError('ASSETS_TRANSFORM_TIMEOUT', 'must be longer than 0ms');
  return {
    maxConcurrent: env.int('ASSETS_TRANSFORM_MAX_CONCURRENT', 25, { min: 1 }),
    imageMaxDimension: env.int('ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION', 6000, { min: 1, max: 100_000 }),
    maxOperations: env.int('ASSETS_TRANSFORM_MAX_OPERATIONS', 5, { min: 0 }),
    timeoutMs,
    avifMaxPixels: env.int('ASSETS_TRANSFORM_AVIF_MAX_PIXELS', 4_000_000, { min: 1 }),
  };
}
