import { ConfigError, type EnvReader } from './env-reader.js';

export interface CorsConfig {
  readonly enabled: boolean;
  /**
   * Which origins may read answers: true reflects the request's origin, false answers none;
   * a list names them (`*`, alone, is any origin), a regular expression matches them.
   */
  readonly origin: boolean | readonly string[] | RegExp;
  readonly methods: readonly string[];
  readonly allowedHeaders: readonly string[];
  readonly exposedHeaders: readonly string[];
  readonly credentials: boolean;
  readonly maxAgeSeconds: number;
}

/** CORS_*, as Directus 10 reads them (src/http/cors.ts answers with them, through the `cors` package). */
export function readCorsConfig(env: EnvReader): CorsConfig {
  return {
    enabled: env.bool('CORS_ENABLED', false),
    origin: readCorsOrigin(env),
    methods: env.list('CORS_METHODS', ['GET', 'POST', 'PATCH', 'DELETE']),
    allowedHeaders: env.list('CORS_ALLOWED_HEADERS', ['Content-Type', 'Authorization', 'Idempotency-Key']),
    exposedHeaders: env.list('CORS_EXPOSED_HEADERS', [
      'Content-Range',
      'Location',
      'X-Export-Job',
      'Idempotent-Replayed',
    ]),
    credentials: env.bool('CORS_CREDENTIALS', true),
    maxAgeSeconds: env.int('CORS_MAX_AGE', 18000, { min: 0 }),
  };
}

/** The type prefix of a regular expression (Directus 10's `regex:`). */
const REGEX_PREFIX = 'regex:';

/** CORS_ORIGIN: `true`, `false`, `regex:<pattern>`, or a comma list of origins. */
function readCorsOrigin(env: EnvReader): boolean | string[] | RegExp {
  const value = env.string('CORS_ORIGIN');
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (value.startsWith(REGEX_PREFIX)) {
    try {
      return new RegExp(value.slice(REGEX_PREFIX.length));
    } catch (error) {
      throw new ConfigError('CORS_ORIGIN', `is not a valid regular expression (${(error as Error).message})`);
    }
  }
  return env.list('CORS_ORIGIN');
}
