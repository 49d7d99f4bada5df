import type { CollectionOverview } from '../../catalog/overview/types.js';
import type { WriteAction } from '../access/write-permissions.js';
import type { CommandContext } from '../commands/types.js';
import { ForbiddenError } from '../errors.js';

/**
 * FORBIDDEN unless a permission allows one of `actions` on the collection (admins: always):
 * the first check of every write (spec, Errors, rule 1: no answer tells a forbidden
 * collection from a missing one). The items service runs it (ItemsService.requireAllowed);
 * the writes that are not item writes (content versions) call it directly.
 */
export function requirePermitted(
  ctx: CommandContext,
  collection: CollectionOverview,
  actions: readonly WriteAction[],
): void {
  if (!actions.some((action) => ctx.permissions.allows(collection.collection, action))) throw new ForbiddenError();
}
