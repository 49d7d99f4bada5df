import type { Knex } from 'knex';
import { databaseDialectOf } from '../../src/db/dialects/index.js';
import { InvalidPayloadError } from '../../src/errors.js';

/** The two kinds of work in a schema change (reference: no half-done schema change). */
export interface SchemaChange {
  /**
   * A statement that changes the schema. `undo` reverses it; it is used only on MySQL, where
   * DDL commits implicitly and a failure later in the change has to be undone by hand.
   * Destructive statements (DROP) have no undo and come last.
   */
  ddl(run: (db: Knex) => Promise<unknown>, undo?: (db: Knex) => Promise<unknown>): Promise<void>;
  /** Metadata rows (svc_collections, svc_fields, svc_relations ...): always in the transaction. */
  data<T>(run: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
}

/** Receives undo failures on MySQL (the schema may then need an operator). */
export interface UndoReporter {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * Runs `body` as one all-or-nothing schema change. Inside `body`, talk to the database only
 * through the executor `ddl` and `data` hand over: on SQLite the one connection is pinned
 * for the change, so a query on the pool would wait for ever. Checks that read go before.
 *
 * - PostgreSQL: DDL and metadata in one transaction.
 * - SQLite: the same, on one pinned connection with foreign keys off: knex rebuilds tables to
 *   alter them, and with enforcement on, dropping the old copy would fire ON DELETE actions
 *   on the rows that reference it (the pragma cannot change inside a transaction). The
 *   foreign keys are checked before commit instead.
 * - MySQL/MariaDB: DDL commits implicitly, so each DDL statement runs on its own and records
 *   its undo; the metadata transaction stays open meanwhile and commits last. On failure it
 *   rolls back and the undos run in reverse.
 */
export async function runSchemaChange<T>(
  db: Knex,
  body: (change: SchemaChange) => Promise<T>,
  reporter?: UndoReporter,
): Promise<T> {
  switch (databaseDialectOf(db).schemaChanges) {
    case 'transaction':
      return db.transaction((trx) => body(inTransaction(trx)));
    case 'foreign-keys-off':
      return runOnSqlite(db, body);
    case 'undo':
      return runWithUndo(db, body, reporter);
  }
}

function inTransaction(trx: Knex.Transaction): SchemaChange {
  return {
    async ddl(run) {
      await run(trx);
    },
    data: (run) => run(trx),
  };
}

async function runOnSqlite<T>(db: Knex, body: (change: SchemaChange) => Promise<T>): Promise<T> {
  const client = db.client as Knex.Client;
  const connection: unknown = await client.acquireConnection();
  try {
    await db.raw('PRAGMA foreign_keys = OFF').connection(connection);
    return await db.transaction(
      async (trx) => {
        const sequences = await readSequences(trx);
        const result = await body(inTransaction(trx));
        await restoreSequences(trx, sequences);
        const broken = await trx.raw<{ table: string; parent: string }[]>('PRAGMA foreign_key_check');
        const [first] = broken;
        if (first !== undefined) throw danglingRowsError(first.table, first.parent);
        return result;
      },
      { connection },
    );
  } finally {
    await db.raw('PRAGMA foreign_keys = ON').connection(connection);
    await client.releaseConnection(connection);
  }
}

type Sequences = ReadonlyMap<string, number>;

/**
 * The AUTOINCREMENT counters of SQLite's tables (sqlite_sequence; none before the first such
 * table). A rebuild starts a table's counter again at its highest key, so after a deletion a
 * new item would take a deleted item's key, and with it that item's history, comments and
 * versions: PostgreSQL and MariaDB never give a key twice. The counters go back after the change.
 */
async function readSequences(trx: Knex.Transaction): Promise<Sequences> {
  const [exists] = await trx.raw<{ found: number }[]>(
    "SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'",
  );
  if (exists === undefined) return new Map();
  const rows = await trx.raw<{ name: string; seq: unknown }[]>('SELECT name, seq FROM sqlite_sequence');
  return new Map(rows.map((r) => [r.name, Number(r.seq)]));
}

async function restoreSequences(trx: Knex.Transaction, before: Sequences): Promise<void> {
  const after = await readSequences(trx);
  for (const [name, seq] of before) {
    const now = after.get(name);
    if (now === undefined) {
      // Dropped, or renamed away: only a table of that name still there gets its counter back.
      const [table] = await trx.raw<{ found: number }[]>(
        "SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?",
        [name],
      );
      if (table !== undefined) await trx.raw('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)', [name, seq]);
    } else if (now < seq) {
      await trx.raw('UPDATE sqlite_sequence SET seq = ? WHERE name = ?', [seq, name]);
    }
  }
}

/** INVALID_PAYLOAD: rows of `table` would refer to rows `parent` lacks (a foreign key the data breaks). */
export function danglingRowsError(table: string, parent: string): InvalidPayloadError {
  return new InvalidPayloadError(`The change leaves rows of "${table}" referring to missing rows of "${parent}"`);
}

async function runWithUndo<T>(
  db: Knex,
  body: (change: SchemaChange) => Promise<T>,
  reporter: UndoReporter | undefined,
): Promise<T> {
  const trx = await db.transaction();
  const undos: ((db: Knex) => Promise<unknown>)[] = [];
  try {
    const result = await body({
      async ddl(run, undo) {
        await run(db);
        if (undo !== undefined) undos.push(undo);
      },
      data: (run) => run(trx),
    });
    await trx.commit();
    return result;
  } catch (error) {
    if (!trx.isCompleted()) await trx.rollback().catch(() => undefined);
    for (const undo of undos.reverse()) {
      try {
        await undo(db);
      } catch (undoError) {
        reporter?.warn({ err: undoError }, 'schema change: undo failed; the schema may need repair');
      }
    }
    throw error;
  }
}
