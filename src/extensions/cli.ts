import { openSchemaCache } from '../cache/open-schema-cache.js';
import { openRedisBus, type RedisBus } from '../cache/redis-bus.js';
import type { SchemaCache } from '../cache/schema-cache.js';
import type { Config } from '../config/index.js';
import { createDatabase } from '../db/index.js';
import { HookBus } from '../items/hooks.js';
import type { Logger } from '../logger/index.js';
import { PermissionStore } from '../access/permission-store.js';
import { discoverExtensions } from './discover.js';
import { readOnlyItems } from './read-items.js';
import { loadExtensions, type Extensions } from './index.js';

/**
 * The extensions of a command-line run, for Directus 10's `cli.before` / `cli.after` init
 * events (`{ program }`: commander, to which they add commands): loaded only when
 * EXTENSIONS_PATH holds any, without schedules; the database connects at first use and is
 * closed by `close`. Undefined when there are none.
 */
export async function loadCliExtensions(config: Config, logger: Logger): Promise<Extensions | undefined> {
  if (discoverExtensions(config.extensions.path).entries.length === 0) return undefined;
  // knex connects at its first query: a command whose extensions never use it opens nothing.
  const db = createDatabase(config.db);
  let bus: RedisBus | undefined;
  let schema: Promise<SchemaCache> | undefined;
  const openSchema = async () => {
    bus = await openRedisBus(config.redis);
    return openSchemaCache(config, db, logger, bus);
  };
  const overview = { getOverview: async () => (await (schema ??= openSchema())).getOverview() };
  const extensions = await loadExtensions({
    config,
    db,
    schema: overview,
    logger,
    hooks: new HookBus((failure) => {
      logger.error(
        { err: failure.err, extension: failure.owner },
        `extension "${failure.owner}": the "${failure.event}" action failed`,
      );
    }),
    schedules: false,
    items: readOnlyItems({ config, db, schema: overview, permissions: new PermissionStore(db, { enabled: false }) }),
  });
  return {
    ...extensions,
    async close() {
      await extensions.close();
      if (schema !== undefined) await (await schema).close();
      await bus?.close();
      await db.destroy();
    },
  };
}
