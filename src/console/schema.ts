/** How the plain-DOM pages show a stored value. */

/** A value as one line of text for a table cell or a diff. */
export function display(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
