/**
 * A plain object: `{...}` as JSON.parse, qs, a JSON body or graphql-js arguments (prototype
 * null) give it; not an array, not null, not a Date, Buffer or other class instance. The one
 * such test (issue 37): payloads, filters, query parameters and catalogue JSON all use it.
 * A leaf: it imports nothing.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
