import { readFileSync } from 'node:fs';
import bytes from 'bytes';
import { parseDuration } from './durations.js';

/** A configuration value the service cannot start with; the message names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}.`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Typed reads of environment variables (type prefixes `string:` etc.,
 * `<NAME>_FILE` indirection, ms durations, byte sizes). Every reader throws ConfigError
 * naming the variable when the value cannot be used.
 */
export class EnvReader {
  constructor(
    private readonly env: Env,
    /** Told every variable name read (the settings table's test). */
    private readonly onRead: (name: string) => void = () => undefined,
  ) {}

  /** Every variable set, as written (for extensions' `env`, as Directus gives it them). */
  entries(): Readonly<Record<string, string>> {
    const set = Object.entries(this.env).filter((entry): entry is [string, string] => entry[1] !== undefined);
    return Object.freeze(Object.fromEntries(set));
  }

  /**
   * The value after `_FILE` indirection, a leading `string:`, `number:` or `array:` dropped
   * (every kind of setting takes them); undefined when unset or empty.
   */
  raw(name: string): string | undefined {
    this.onRead(name);
    const file = this.env[`${name}_FILE`];
    if (file !== undefined && file !== '') {
      try {
        return readFileSync(file, 'utf8').trim();
      } catch (error) {
        throw new ConfigError(`${name}_FILE`, `cannot be read (${(error as Error).message})`);
      }
    }
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value.replace(TYPE_PREFIX, '');
  }

  /** Names of set variables starting with `prefix`. */
  namesWithPrefix(prefix: string): string[] {
    return Object.keys(this.env).filter((k) => k.startsWith(prefix) && this.env[k] !== '');
  }

  string(name: string): string | undefined;
  string(name: string, fallback: string): string;
  string(name: string, fallback?: string): string | undefined {
    const value = this.raw(name);
    return value ?? fallback;
  }

  int(name: string, fallback: number, bounds: { min?: number; max?: number } = {}): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isInteger(parsed)) throw new ConfigError(name, `must be an integer, got "${value}"`);
    if (bounds.min !== undefined && parsed < bounds.min) {
      throw new ConfigError(name, `must be at least ${bounds.min}, got ${parsed}`);
    }
    if (bounds.max !== undefined && parsed > bounds.max) {
      throw new ConfigError(name, `must be at most ${bounds.max}, got ${parsed}`);
    }
    return parsed;
  }

  /** An integer or `Infinity` (for limits that default to unlimited). */
  limit(name: string, fallback: number, min: number): number {
    const value = this.raw(name);
    if (value !== undefined && /^infinity$/i.test(value)) return Infinity;
    return this.int(name, fallback, { min });
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (value === 'true') return true;
    if (value === 'false') return false;
    throw new ConfigError(name, `must be true or false, got "${value}"`);
  }

  /** A duration in milliseconds: `15m`, `7d`, `500ms` or a plain number of ms. */
  duration(name: string, fallback: string | number): number {
    const value = this.raw(name) ?? String(fallback);
    const parsed = parseDuration(value);
    if (parsed === undefined) {
      throw new ConfigError(name, `must be a duration such as 15m, 7d or 500ms, got "${value}"`);
    }
    return parsed;
  }

  /** A size in bytes: `1mb`, `10kb` or a plain number of bytes. */
  size(name: string, fallback: string): number {
    const value = this.raw(name) ?? fallback;
    const parsed = bytes.parse(value);
    if (parsed === null || !Number.isFinite(parsed) || parsed < 0) {
      throw new ConfigError(name, `must be a size such as 1mb or 500kb, got "${value}"`);
    }
    return parsed;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${value}"`);
  }

  /** A comma list. */
  list(name: string, fallback: readonly string[] = []): string[] {
    const value = this.raw(name);
    if (value === undefined) return [...fallback];
    return value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }

  url(name: string): string | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    try {
      new URL(value);
    } catch {
      throw new ConfigError(name, `must be an absolute URL, got "${value}"`);
    }
    return value;
  }
}

/** The type prefixes allowed in front of any value, as in Directus 10. */
const TYPE_PREFIX = /^(string|number|array):/;

/** A variable that is either `false` (or unset, without a fallback) or a string. */
export function readFalseOrString(env: EnvReader, name: string, fallback?: string): string | false {
  const value = env.string(name);
  if (value === undefined) return fallback ?? false;
  return value === 'false' ? false : value;
}
