import type { Knex } from 'knex';
import { postgres } from './dialects/postgres/index.js';

/**
 * PostgreSQL: a row inserted with its own key into a serial or identity column leaves the
 * column's sequence where it was, so a later generated key could take that value again.
 * MariaDB's AUTO_INCREMENT and SQLite's rowid move past the largest key themselves.
 *
 * One instance per write transaction remembers the tables that received given keys, and
 * moves each of their sequences once: before the next insert of generated keys into the
 * same table, or when the write finishes. A sequence only ever moves forward.
 */
export class SerialSequences {
  /** table → primary key column, of the sequences that may be behind. */
  readonly #behind = new Map<string, string>();

  /** Rows with given keys went into `table`. */
  noteGivenKeys(table: string, column: string): void {
    this.#behind.set(table, column);
  }

  /** Before generated keys are taken from `table`'s sequence: moves it if it may be behind. */
  async moveBeforeGenerating(db: Knex | Knex.Transaction, table: string): Promise<void> {
    const column = this.#behind.get(table);
    if (column === undefined) return;
    this.#behind.delete(table);
    await moveSequence(db, table, column);
  }

  /** Moves every sequence that may be behind, once each. */
  async moveAll(db: Knex | Knex.Transaction): Promise<void> {
    const behind = [...this.#behind];
    this.#behind.clear();
    for (const [table, column] of behind) await moveSequence(db, table, column);
  }
}

/**
 * Sets the sequence of `table.column` to the column's largest value when the sequence's
 * next value would not exceed it (the next generated key is then that value + 1); never
 * backwards. pg_get_serial_sequence parses its first argument as SQL, hence the quoting.
 */
async function moveSequence(db: Knex | Knex.Transaction, table: string, column: string): Promise<void> {
  await db.raw(
    `select setval(s.seq, m.top)
       from (select pg_get_serial_sequence(?, ?)::regclass as seq) s
       join pg_sequence p on p.seqrelid = s.seq
       cross join (select max(??) as top from ??) m
      where m.top >= coalesce(pg_sequence_last_value(s.seq) + p.seqincrement, p.seqstart)`,
    [postgres.quoteId(table), column, column, table],
  );
}
