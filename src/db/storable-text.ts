import type { DbClient } from '../db-client.js';
import { databaseDialect } from './dialects/index.js';

/** A UTF-16 surrogate without its pair: no UTF-8 encoding exists for it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why a database cannot store `text`, or undefined when it can. PostgreSQL refuses NUL in
 * text and json (22021, 22P05) and lone surrogates in json (22P02); the drivers of all three
 * would silently turn a lone surrogate into U+FFFD. MariaDB (utf8mb4) and SQLite store NUL
 * and give it back; a lone surrogate is refused everywhere, so no value is changed unseen.
 */
export function unstorableText(dialect: DbClient, text: string): string | undefined {
  if (text.includes('\u0000') && databaseDialect(dialect).refusesNul)
    return "Text can't contain the NUL character (\\u0000)";
  if (LONE_SURROGATE.test(text)) return "Text can't contain a lone UTF-16 surrogate";
  return undefined;
}

/** {@link unstorableText} of the first string in `value` (keys and values of objects and arrays) that fails. */
export function findUnstorableText(dialect: DbClient, value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') return unstorableText(dialect, value);
  // JSON nests no deeper than its text is long; the bound keeps the walk off the call stack limit.
  if (typeof value !== 'object' || value === null || depth > 1000) return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const reason = findUnstorableText(dialect, item, depth + 1);
      if (reason !== undefined) return reason;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const reason = unstorableText(dialect, key) ?? findUnstorableText(dialect, item, depth + 1);
    if (reason !== undefined) return reason;
  }
  return undefined;
}
