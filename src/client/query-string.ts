/**
 * Query parameters the way the convention's client sends them: arrays as repeated `key[]=v`,
 * objects (filter, deep, alias, aggregate) as JSON
 * strings, null and undefined left out.
 */
export function encodeQuery(params: Readonly<Record<string, unknown>>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      for (const entry of value as unknown[]) search.append(`${key}[]`, toParamValue(entry));
    } else {
      search.append(key, toParamValue(value));
    }
  }
  return search.toString();
}

function toParamValue(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}
