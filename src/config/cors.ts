import type { EnvReader } from './env-reader.js';

export interface CorsConfig {
  readonly enabled: boolean;
  readonly origin: boolean | readonly string[];
  readonly methods: readonly string[];
  readonly allowedHeaders: readonly string[];
  readonly exposedHeaders: readonly string[];
  readonly credentials: boolean;
  readonly maxAgeSeconds: number;
}

/** CORS_*: CORS_ORIGIN is true (reflect the request's origin), false, or a list of origins. */
export function readCorsConfig(env: EnvReader): CorsConfig {
  return {
    enabled: env.bool('CORS_ENABLED', false),
    origin: readCorsOrigin(env),
    methods: env.list('CORS_METHODS', ['GET', 'POST', 'PATCH', 'DELETE']),
    allowedHeaders: env.list('CORS_ALLOWED_HEADERS', ['Content-Type', 'Authorization']),
    exposedHeaders: env.list('CORS_EXPOSED_HEADERS', ['Content-Range']),
    credentials: env.bool('CORS_CREDENTIALS', true),
    maxAgeSeconds: env.int('CORS_MAX_AGE', 18000, { min: 0 }),
  };
}

function readCorsOrigin(env: EnvReader): boolean | string[] {
  const value = env.string('CORS_ORIGIN');
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return env.list('CORS_ORIGIN');
}
