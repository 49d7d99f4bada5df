import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Change } from '../commands/change-set.js';
import type { SchemaCache } from '../cache/schema-cache.js';

/**
 * The schema cache, telling the live-data feed what a schema change did: after each
 * invalidation made here the overviews before and after are compared, and the collections
 * created, changed (their fields too) or dropped go out as changes of
 * `svc_collections` (keys: collection names), the system events of /graphql/system
 * (`collections_mutated`) and the WebSocket protocol. Invalidations that changed no table (permissions, cache clears)
 * publish nothing.
 */
export function schemaWithEvents(
  schema: SchemaCache,
  changes: { publish(changes: readonly Change[]): Promise<void> },
): SchemaCache {
  return {
    getOverview: () => schema.getOverview(),
    close: () => schema.close(),
    async invalidate() {
      const before = await schema.getOverview();
      await schema.invalidate();
      const found = schemaChanges(before, await schema.getOverview());
      if (found.length > 0) await changes.publish(found);
    },
  };
}

function schemaChanges(before: SchemaOverview, after: SchemaOverview): Change[] {
  const found = diff(
    Object.keys(before.collections),
    Object.keys(after.collections),
    (name) => JSON.stringify(before.collections[name]) !== JSON.stringify(after.collections[name]),
  );
  return (['create', 'update', 'delete'] as const)
    .filter((action) => found[action].length > 0)
    .map((action) => ({ collection: 'svc_collections', action, keys: found[action] }));
}

type Diff = Record<Change['action'], string[]>;

function diff(before: readonly string[], after: readonly string[], isChanged: (key: string) => boolean): Diff {
  const old = new Set(before);
  const now = new Set(after);
  return {
    create: after.filter((k) => !old.has(k)),
    delete: before.filter((k) => !now.has(k)),
    update: after.filter((k) => old.has(k) && isChanged(k)),
  };
}
