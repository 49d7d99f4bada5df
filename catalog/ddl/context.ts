import type { Knex } from 'knex';
import type { SchemaOverview } from '../overview/types.js';
import type { UndoReporter } from './schema-change.js';

/** What a schema operation needs: the database and the schema cache it invalidates after commit. */
export interface SchemaContext {
  readonly db: Knex;
  readonly schema: {
    getOverview(): Promise<SchemaOverview>;
    invalidate(): Promise<void>;
  };
  readonly reporter?: UndoReporter;
}
