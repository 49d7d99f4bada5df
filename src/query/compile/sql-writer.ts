import { invariant } from '../../errors.js';
import type { Dialect } from './dialect.js';

/** SQL text with `?` placeholders (knex numbers them for PostgreSQL) and the values in order. */
export interface CompiledSql {
  readonly sql: string;
  readonly values: readonly unknown[];
}

/**
 * Appends SQL text; identifiers go through the dialect's quoting and values are always bound
 * (`?`), never spliced, so nothing from a request reaches the SQL text.
 */
export class SqlWriter {
  #text = '';
  readonly #values: unknown[] = [];

  constructor(readonly dialect: Dialect) {}

  raw(text: string): this {
    this.#text += text;
    return this;
  }

  id(name: string): this {
    // knex and mysql2 read every `?` as a placeholder, even inside quoted identifiers.
    invariant(!name.includes('?'), `identifier without "?": ${name}`);
    this.#text += this.dialect.quoteId(name);
    return this;
  }

  /** `"alias"."column"` */
  column(alias: string, column: string): this {
    return this.id(alias).raw('.').id(column);
  }

  value(value: unknown): this {
    invariant(value !== undefined, 'bound values are defined');
    this.#values.push(value);
    this.#text += '?';
    return this;
  }

  /** Writes each item with `each`, separated by `separator`. */
  join<T>(items: readonly T[], separator: string, each: (item: T, index: number) => void): this {
    items.forEach((item, index) => {
      if (index > 0) this.raw(separator);
      each(item, index);
    });
    return this;
  }

  finish(): CompiledSql {
    return Object.freeze({ sql: this.#text, values: Object.freeze([...this.#values]) });
  }
}

/** Writes part of an expression. */
export type Emit = (w: SqlWriter) => void;
