import type { CollectionOverview } from '../../../catalog/overview/types.js';
import { ForbiddenError, ServiceError, ServiceErrorList } from '../../errors.js';
import { toPrimaryKey } from '../primary-key.js';
import { runWrite } from '../run-write.js';
import type { CommandContext, ImportCommand, Item, PrimaryKey } from '../types.js';
import { readCsvItems } from './read-csv-items.js';
import { readJsonItems } from './read-json-items.js';

/** Items read from the file before their keys are looked up together. */
export const IMPORT_BATCH_SIZE = 500;

/**
 * POST /utils/import/:collection (reference/audit-and-utils.md, "Import"): the file is parsed
 * as it arrives and written batch by batch in ONE transaction through the same item writer
 * as create and update (permissions, validation, specials, nested payloads, activity and
 * revisions per item). An item whose key exists is updated, any other created. The first
 * failing row rolls everything back; its error names it (`row`, 1-based, and the message).
 * System collections are for admins only. Returns the number of items written.
 */
export async function handleImport(
  cmd: ImportCommand,
  ctx: CommandContext,
  batchSize = IMPORT_BATCH_SIZE,
): Promise<number> {
  return runWrite(ctx, async (writer) => {
    const collection = writer.collection(cmd.collection);
    requireImportAllowed(ctx, collection);
    const items = cmd.format === 'csv' ? readCsvItems(cmd.source, ctx.overview, collection) : readJsonItems(cmd.source);
    let row = 0;
    for await (const batch of batchesOf(items, batchSize)) {
      const keys = batch.map((item) => toPrimaryKey(collection, item[collection.primary]));
      const given = keys.filter((key): key is PrimaryKey => key !== undefined);
      // Existing rows, those of earlier batches included; then the keys this batch creates.
      const known = new Set((await writer.filterExisting(collection, given)).map(keyId));
      for (const [index, item] of batch.entries()) {
        row += 1;
        const key = keys[index];
        try {
          if (key !== undefined && known.has(keyId(key))) await writer.update(collection.collection, key, item);
          else known.add(keyId((await writer.create(collection.collection, item)).key));
        } catch (error) {
          throw atRow(error, row);
        }
      }
      // The journal of each batch is written with it: memory stays flat however long the file.
      await writer.flush();
    }
    return row;
  });
}

/**
 * FORBIDDEN unless the caller may import into `collection`: system collections for admins
 * only, and (reference/audit-and-utils.md) an upsert needs create and update permission,
 * whichever each row takes. The route asks before it reads the body, so that a collection
 * the caller may not import into answers like a missing one.
 */
export function requireImportAllowed(ctx: CommandContext, collection: CollectionOverview): void {
  if (collection.isSystem && !ctx.accountability.admin) throw new ForbiddenError();
  if (
    !ctx.permissions.allows(collection.collection, 'create') ||
    !ctx.permissions.allows(collection.collection, 'update')
  ) {
    throw new ForbiddenError();
  }
}

async function* batchesOf(items: AsyncIterable<Item>, size: number): AsyncGenerator<Item[]> {
  let batch: Item[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

function keyId(key: PrimaryKey): string {
  return String(key).toLowerCase();
}

/** The error of one row, naming it: `Row <n>: ` before the message, `row` in the extensions. */
function atRow(error: unknown, row: number): unknown {
  if (error instanceof ServiceErrorList) return new ServiceErrorList(error.errors.map((e) => withRow(e, row)));
  if (error instanceof ServiceError) return withRow(error, row);
  return error;
}

/** The same error (class, code, status) with the row added. */
function withRow<E extends ServiceError>(error: E, row: number): E {
  const tagged = Object.create(Object.getPrototypeOf(error) as object) as E;
  Object.assign(tagged, error, { extensions: { ...error.extensions, row } });
  Object.defineProperty(tagged, 'message', {
    value: `Row ${row}: ${error.message}`,
    writable: true,
    configurable: true,
  });
  Object.defineProperty(tagged, 'stack', { value: error.stack, writable: true, configurable: true });
  return tagged;
}
