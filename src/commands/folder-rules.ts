import type { Knex } from 'knex';
import { FailedValidationError } from '../errors.js';
import type { Item, PrimaryKey } from './types.js';

export const FOLDERS_COLLECTION = 'svc_folders';

/**
 * The svc_folders rule (collection-rules.ts): a folder's `parent` is never the folder itself
 * nor a folder inside it, so that every folder stays reachable from the top of the tree (a
 * cycle hides its folders and files from every tree walk). `key` is the folder updated,
 * undefined for a new one (whose given `id` counts). FAILED_VALIDATION `cycle` on `parent`.
 * Directus 10 takes the cycle.
 */
export async function checkFolderParent(trx: Knex.Transaction, data: Item, key: PrimaryKey | undefined): Promise<void> {
  if (!('parent' in data)) return;
  const self = key ?? data['id'];
  if (typeof self !== 'string') return;
  const seen = new Set<string>();
  // A nested parent object is a folder being created (no ancestors yet) or one named by its id.
  let ancestor = keyOf(data['parent']);
  while (ancestor !== undefined && !seen.has(ancestor)) {
    if (ancestor === self.toLowerCase()) {
      throw new FailedValidationError(
        { field: 'parent', type: 'cycle' },
        'Validation failed for field "parent". A folder cannot be inside itself or one of its subfolders.',
      );
    }
    seen.add(ancestor);
    const row = await trx(FOLDERS_COLLECTION).where('id', ancestor).first<{ parent: unknown } | undefined>('parent');
    ancestor = keyOf(row?.parent);
  }
}

function keyOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.toLowerCase();
  if (value !== null && typeof value === 'object' && 'id' in value) return keyOf(value.id);
  return undefined;
}
