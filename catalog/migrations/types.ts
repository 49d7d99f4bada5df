import type { Knex } from 'knex';

/** One step of the catalogue's schema history; `version` orders them and is never reused. */
export interface Migration {
  readonly version: string;
  readonly name: string;
  up(db: Knex): Promise<void>;
}
