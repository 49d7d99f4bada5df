import type { RunData } from './types.js';

const WHOLE = /^\{\{\s*([^{}]+?)\s*\}\}$/;
const ANY = /\{\{\s*([^{}]+?)\s*\}\}/g;

/**
 * Directus's options templates: every string in `value` with `{{ path }}` gets the run data at
 * `path` (`$trigger.payload.title`, `$last`, an operation's key). A string that is a single
 * template takes the value itself (an object stays an object); inside text a value is written
 * as JSON unless it is a string. A path that leads nowhere is empty.
 */
export function renderOptions(value: unknown, data: RunData): unknown {
  if (typeof value === 'string') return renderString(value, data);
  if (Array.isArray(value)) return value.map((entry) => renderOptions(entry, data));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, renderOptions(entry, data)]));
  }
  return value;
}

function renderString(text: string, data: RunData): unknown {
  const whole = WHOLE.exec(text);
  if (whole?.[1] !== undefined) return valueAt(data, whole[1]);
  return text.replace(ANY, (_match, path: string) => {
    const found = valueAt(data, path);
    if (found === undefined || found === null) return '';
    return typeof found === 'string' ? found : JSON.stringify(found);
  });
}

/** The value at a dotted path (`a.b.0.c`); own properties only, so `__proto__` leads nowhere. */
export function valueAt(data: unknown, path: string): unknown {
  let current = data;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A value as text: strings as they are, nothing as empty, anything else as JSON. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return value.toString();
  return JSON.stringify(value);
}
