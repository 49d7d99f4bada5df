import { parseRetention, RETENTION_SYNTAX } from '../config/durations.js';
import { FailedValidationError } from '../errors.js';
import type { Item } from './types.js';

export const SETTINGS_COLLECTION = 'svc_settings';

/**
 * The svc_settings rule (collection-rules.ts): `export_retention` is one the export cleanup can
 * read at its next run (src/files/export/export-retention.ts), in EXPORT_RETENTION's syntax
 * (config/durations.ts): null or empty (EXPORT_RETENTION applies), a duration, `0` or `false`
 * (kept forever). Anything else, a negative duration too, is FAILED_VALIDATION `duration` on it,
 * rather than a cleanup that cannot tell how long was meant.
 */
export function checkSettingsPayload(data: Item): void {
  if (!('export_retention' in data)) return;
  const value = data['export_retention'];
  if (value === null || (typeof value === 'string' && (value.trim() === '' || parseRetention(value) !== undefined))) {
    return;
  }
  throw new FailedValidationError(
    { field: 'export_retention', type: 'duration' },
    `Validation failed for field "export_retention". Value has to be ${RETENTION_SYNTAX}.`,
  );
}
