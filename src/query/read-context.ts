import type { Knex } from 'knex';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import type { ReadAccess } from '../access/read-access.js';
import type { QueryLimits } from './ast/build-context.js';

/** What a read needs from the process: the database, the current overview, the limits. */
export interface ReadContext {
  /** A transaction works too: the write side re-reads what it wrote before committing. */
  readonly db: Knex | Knex.Transaction;
  readonly overview: SchemaOverview;
  readonly limits: QueryLimits;
}

/** Who reads, and what they may read (admins read everything). */
export interface Reader {
  readonly accountability: Accountability;
  readonly access: ReadAccess;
}
