import type { Knex } from 'knex';
import type { CollectionOverview } from '../../../catalog/overview/types.js';
import { ForbiddenError, InvalidPayloadError } from '../../errors.js';
import { keyId } from '../existing-items.js';
import { toPrimaryKey } from '../primary-key.js';
import type { ItemWriter } from '../item-writer.js';
import { giveWay } from '../give-way.js';
import { runWrite } from '../run-write.js';
import type { CommandContext, ImportCommand, Item, PrimaryKey } from '../types.js';
import { planCopy, prepareCopy, writeCopy, type CopyPlan, type PreparedCopy } from './copy-creates.js';
import { FileKeys, requireKnownKeys } from './file-rows.js';
import { writeInserts } from './insert-creates.js';
import { updateExisting, type FileUpdate } from './update-existing.js';
import { readCsvItems } from './read-csv-items.js';
import { readJsonItems } from './read-json-items.js';
import { atRow } from './row-error.js';

/** Items read from the file before their keys are looked up together. */
export const IMPORT_BATCH_SIZE = 2_000;

const SAVEPOINT = 'svc_import_rows';

/**
 * POST /utils/import/:collection: the file is parsed
 * as it arrives and written batch by batch in ONE transaction with the checks and journal of
 * the item writer's create and update (permissions, validation, specials, nested payloads,
 * activity and revisions per item): runs of creates and of updates set-based where they can
 * be (copy-creates.ts, insert-creates.ts, update-existing.ts), the writer otherwise. An item
 * whose key exists is updated, any other created; a key two rows of the file give, or a
 * column that is no field, refuses the file (file-rows.ts). The first failing row rolls
 * everything back; its error names it (`row`, 1-based, and the message).
 * System collections are for admins only. Returns the number of items written.
 */
export async function handleImport(
  cmd: ImportCommand,
  ctx: CommandContext,
  batchSize = IMPORT_BATCH_SIZE,
): Promise<number> {
  return runWrite(ctx, async (writer, trx, now) => {
    const collection = writer.collection(cmd.collection);
    requireImportAllowed(ctx, collection);
    const copy = await planCopy(trx, ctx, collection);
    // A batch's creates are written while the next batch is read and checked.
    let inFlight: Promise<unknown> | undefined;
    const settle = async () => {
      const writing = inFlight;
      inFlight = undefined;
      await writing;
    };
    const write: CreateRows = async (creates) => {
      await settle();
      return copy === undefined
        ? createRows(writer, trx, collection.collection, creates)
        : writeCopyOrCreateRows(writer, trx, ctx, copy, creates, await prepareCopy(ctx, copy, creates, now), now);
    };
    const update = async (updates: readonly FileUpdate[]) => {
      if (updates.length === 0) return;
      await settle();
      await updateExisting(writer, trx, ctx, collection.collection, copy, updates, now);
    };
    const items = cmd.format === 'csv' ? readCsvItems(cmd.source, ctx.overview, collection) : readJsonItems(cmd.source);
    // Issue 13: a key repeated in the file is refused (file-rows.ts), not upserted twice.
    const fileKeys = new FileKeys(collection);
    let row = 0;
    try {
      for await (const batch of batchesOf(items, batchSize, ctx)) {
        const keys = batch.map((item) => toPrimaryKey(collection, item[collection.primary]));
        const given = keys.filter((key): key is PrimaryKey => key !== undefined);
        if (given.length > 0) await settle();
        // Existing rows, those created by earlier batches included (a key the file did not give).
        const known = new Set((await writer.filterExisting(collection, given)).map(keyId));
        // Runs of consecutive creates and of consecutive updates, each written together in file order.
        let creates: { item: Item; row: number }[] = [];
        let updates: FileUpdate[] = [];
        // Indexed, and an update only where there are some: every row of the file comes here.
        for (let index = 0; index < batch.length; index += 1) {
          const item = batch[index] as Item;
          row += 1;
          const key = keys[index];
          fileKeys.note(key, row);
          if (cmd.format === 'json') requireKnownKeys(ctx.overview, collection, item, row);
          if (key !== undefined && known.has(keyId(key))) {
            // An update: the creates before it go first.
            if (creates.length > 0) {
              await write(creates);
              creates = [];
            }
            updates.push({ key, item, row });
          } else {
            if (updates.length > 0) {
              await update(updates);
              updates = [];
            }
            creates.push({ item, row });
          }
        }
        await update(updates);
        if (copy !== undefined && creates.length > 0) {
          const prepared = await prepareCopy(ctx, copy, creates, now);
          await settle();
          inFlight = writeCopyOrCreateRows(writer, trx, ctx, copy, creates, prepared, now);
          // Its failure is thrown where it is settled (the next batch, the end, or below).
          inFlight.catch(() => undefined);
        } else {
          await write(creates);
          // The journal of each batch is written with it: memory stays flat however long the file.
          await writer.flush();
        }
      }
      await settle();
    } catch (error) {
      // Nothing runs on the transaction after the rollback: the batch being written finishes
      // first, and its failure, of an earlier row, is the one reported.
      const earlier: unknown = await inFlight?.then(
        () => undefined,
        (failure: unknown) => failure,
      );
      throw earlier ?? error;
    }
    // Issue 13, bad input: an empty file (no bytes, a CSV header alone, `[]`) is refused.
    if (row === 0) throw new InvalidPayloadError('The file contains no items');
    return row;
  });
}

type CreateRows = (creates: readonly { item: Item; row: number }[]) => Promise<PrimaryKey[]>;

/**
 * The checked rows written set-based with their journal under a savepoint (PostgreSQL by
 * COPY, copy-creates.ts; MariaDB and SQLite by multi-row INSERTs, insert-creates.ts). A batch COPY cannot carry (`prepared` undefined), or whose statements fail (a
 * constraint, a value the column refuses, a permission rule), is rolled back to the
 * savepoint and written by {@link createRows}, which names the failing row.
 */
async function writeCopyOrCreateRows(
  writer: ItemWriter,
  trx: Knex.Transaction,
  ctx: CommandContext,
  plan: CopyPlan,
  creates: readonly { item: Item; row: number }[],
  prepared: PreparedCopy | undefined,
  now: Date,
): Promise<PrimaryKey[]> {
  if (creates.length === 0) return [];
  // The journal recorded before goes first: ids in the order of the rows.
  await writer.flush();
  if (prepared !== undefined) {
    await trx.raw(`SAVEPOINT ${SAVEPOINT}`);
    let keys: PrimaryKey[] | undefined;
    try {
      keys = plan.copies
        ? await writeCopy(trx, ctx, plan, prepared, now)
        : await writeInserts(trx, ctx, plan, prepared, now);
    } catch {
      keys = undefined;
    }
    if (keys !== undefined) {
      await trx.raw(`RELEASE SAVEPOINT ${SAVEPOINT}`);
      writer.touched.add(plan.collection.collection);
      return keys;
    }
    await trx.raw(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
  }
  return createRows(writer, trx, plan.collection.collection, creates);
}

/**
 * Creates consecutive rows of the file together (one multi-row INSERT, the journal in bulk:
 * ItemWriter.createMany) under a savepoint. If they fail, the savepoint is rolled back and
 * the rows are created one by one to find the first failing row for the error; the import
 * fails with it either way.
 */
async function createRows(
  writer: ItemWriter,
  trx: Knex.Transaction,
  collection: string,
  creates: readonly { item: Item; row: number }[],
): Promise<PrimaryKey[]> {
  if (creates.length === 0) return [];
  await trx.raw(`SAVEPOINT ${SAVEPOINT}`);
  try {
    const results = await writer.createMany(
      collection,
      creates.map((c) => c.item),
    );
    await trx.raw(`RELEASE SAVEPOINT ${SAVEPOINT}`);
    return results.map((r) => r.key);
  } catch (error) {
    await trx.raw(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
    for (const { item, row } of creates) {
      try {
        await writer.create(collection, item);
      } catch (rowError) {
        throw atRow(rowError, row);
      }
    }
    throw error;
  }
}

/**
 * FORBIDDEN unless the caller may import into `collection`: system collections for admins
 * only, and an upsert needs create and update permission,
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

/**
 * The file's items `size` at a time, from the readers' pieces of ROWS_PER_STEP items. Parsing
 * them is a long run of microtasks: after each piece it gives way (give-way.ts), as the checks
 * do, so that reads arriving meanwhile do not wait for a whole batch to be parsed.
 */
async function* batchesOf(pieces: AsyncIterable<Item[]>, size: number, ctx: CommandContext): AsyncGenerator<Item[]> {
  let batch: Item[] = [];
  for await (const piece of pieces) {
    for (const item of piece) {
      if (batch.push(item) >= size) {
        yield batch;
        batch = [];
      }
    }
    await giveWay(ctx);
  }
  if (batch.length > 0) yield batch;
}
