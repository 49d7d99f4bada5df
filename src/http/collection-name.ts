import type { Request } from 'express';
import { toServiceCollectionName } from '../../catalog/system/definitions.js';

/**
 * Collection names, a deviation from Directus 10: `directus_<x>` in a path or
 * body names `svc_<x>` (the SDK sends the convention's names); responses use `svc_`.
 * The catalogue owns the rule (it applies it to schema payloads too).
 */
export const toCollectionName: (name: string) => string = toServiceCollectionName;

/** The `:collection` route parameter, resolved by the rule above. */
export function collectionParam(req: Request): string {
  return toCollectionName(String(req.params['collection']));
}
