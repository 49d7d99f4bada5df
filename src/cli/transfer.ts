import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ownAccountability } from '../access/accountability.js';
import { PermissionStore } from '../access/permission-store.js';
import { createDataInvalidation } from '../cache/data-invalidation.js';
import { handleImport } from '../commands/import/handle-import.js';
import { formatItems } from '../files/export/export-formats.js';
import { ItemsService } from '../items/items-service.js';
import { exportQuery } from '../files/export/run-export.js';
import {
  queryLimits,
  readMeta,
  readerOf,
  streamItems,
  type ExportFormat,
  type Item,
  type ReadContext,
} from '../query/index.js';
import { CliError, EXIT, type CliContext } from './context.js';
import type { Progress } from './progress.js';

/** The command line acts as an administrator without a user (the journal says `user: null`, agent `cli`). */
const CLI_ACCOUNTABILITY = ownAccountability('cli');

/**
 * `export <collection>`: the query's items (every row unless `limit` says) streamed in the
 * format to `out`, batch by batch from the read side (flat memory); progress in rows.
 */
export async function exportCollection(
  ctx: CliContext,
  options: { collection: string; format: ExportFormat; query: unknown; out: Writable; progress: Progress },
): Promise<number> {
  const overview = await (await ctx.schema()).getOverview();
  const collection = requireKnown(overview.collections, options.collection);
  const query = exportQuery(options.query, collection.primary);
  const readContext: ReadContext = {
    db: ctx.db,
    overview,
    limits: { ...queryLimits(ctx.config), queryLimitMax: Infinity },
  };
  const reader = await readerOf(
    { db: ctx.db, permissions: new PermissionStore(ctx.db, { enabled: false }) },
    overview,
    CLI_ACCOUNTABILITY,
  );
  const { filter_count: matching = 0 } = await readMeta(
    readContext,
    collection.collection,
    { ...query, meta: ['filter_count'] },
    reader,
  );
  const total = query.limit === undefined || query.limit < 0 ? matching : Math.min(matching, query.limit);
  let done = 0;
  const counted = async function* (items: AsyncIterable<Item>): AsyncGenerator<Item> {
    for await (const item of items) {
      yield item;
      done += 1;
      options.progress.update(done, total);
    }
  };
  await mkdir(ctx.config.tempPath, { recursive: true });
  const tempDir = await mkdtemp(join(ctx.config.tempPath, 'cli-export-'));
  try {
    const items = streamItems(readContext, collection.collection, query, reader, {
      batchSize: ctx.config.exportBatchSize,
    });
    const text = Readable.from(
      formatItems(counted(items), options.format, { tempDir, csvEscapeFormulas: ctx.config.exportCsvEscapeFormulas }),
    );
    await pipeline(text, options.out, { end: options.out !== process.stdout });
  } finally {
    await rm(tempDir, { recursive: true, force: true });
    options.progress.done();
  }
  return done;
}

/**
 * `import <collection> <file>`: the file (csv or json) through the same handler as POST
 * /utils/import (one transaction, journal per item, upsert by key); progress in bytes read.
 */
export async function importFile(
  ctx: CliContext,
  options: { collection: string; file: string; format: 'csv' | 'json'; progress: Progress },
): Promise<number> {
  const size = await stat(options.file).then(
    (s) => s.size,
    (error: unknown) => {
      throw new CliError(`Can't read "${options.file}": ${(error as Error).message}`, EXIT.usage);
    },
  );
  const schema = await ctx.schema();
  const overview = await schema.getOverview();
  const collection = requireKnown(overview.collections, options.collection);
  const invalidation = await createDataInvalidation({
    bus: await ctx.bus(),
    namespace: ctx.config.cache.namespace,
    logger: ctx.logger,
  });
  try {
    const deps = {
      config: ctx.config,
      db: ctx.db,
      permissions: new PermissionStore(ctx.db, { enabled: false }),
      schema,
      invalidation,
    };
    const items = new ItemsService(collection.collection, deps, {
      accountability: CLI_ACCOUNTABILITY,
      schema: overview,
    });
    // The items service's rule, as the import route has it: the journal and schema take no rows.
    await items.requireWritable();
    const commands = await items.commandContext();
    let read = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        read += chunk.length;
        options.progress.update(read, size);
        callback(null, chunk);
      },
    });
    const source = createReadStream(options.file).pipe(meter);
    return await handleImport(
      { kind: 'import', collection: collection.collection, format: options.format, source },
      commands,
    );
  } finally {
    options.progress.done();
    await invalidation.close();
  }
}

function requireKnown<T>(collections: Readonly<Record<string, T>>, name: string): T {
  const found = Object.hasOwn(collections, name) ? collections[name] : undefined;
  if (found === undefined) throw new CliError(`No collection "${name}"`, EXIT.failed);
  return found;
}
