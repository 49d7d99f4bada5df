import ms from 'ms';

/**
 * How a retention is written, for the messages that refuse one: EXPORT_RETENTION and
 * svc_settings.export_retention take the same.
 */
export const RETENTION_SYNTAX = 'a duration such as 30d, 12h or 90m, or 0 or false to keep forever';

/**
 * A duration in milliseconds as the settings write it: plain digits are milliseconds, anything
 * else the `ms` package's syntax (`15m`, `7d`, `500ms`, `1.5h`). Undefined for anything else, a
 * negative duration, or one no number holds.
 */
export function parseDuration(value: string): number | undefined {
  if (value === '') return undefined;
  const parsed = /^\d+$/.test(value) ? Number(value) : ms(value as ms.StringValue);
  return typeof parsed === 'number' && Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
}

/**
 * A retention (EXPORT_RETENTION, svc_settings.export_retention): `0` or `false`, in any case,
 * keeps forever (`ms` null); else a duration ({@link parseDuration}) after which things go.
 * Undefined when it is neither.
 */
export function parseRetention(value: string): { readonly ms: number | null } | undefined {
  const text = value.trim();
  if (['0', 'false'].includes(text.toLowerCase())) return { ms: null };
  const duration = parseDuration(text);
  return duration === undefined ? undefined : { ms: duration };
}
