import type { Request } from 'express';
import type { Knex } from 'knex';
import type { Accountability } from '../access/accountability.js';
import { defaultReadAccess } from '../access/read-access.js';
import type { SchemaCache } from '../cache/schema-cache.js';
import type { Config } from '../config/index.js';
import { parseQuery, parseQueryString, type Query, type ReadContext, type Reader } from '../query/index.js';

export interface ReadContextDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly schema: SchemaCache;
}

/** QUERY_LIMIT_DEFAULT, QUERY_LIMIT_MAX and MAX_RELATIONAL_DEPTH, as reads take them. */
export function queryLimits(config: Config): ReadContext['limits'] {
  return {
    queryLimitDefault: config.queryLimitDefault,
    queryLimitMax: config.queryLimitMax,
    maxRelationalDepth: config.maxRelationalDepth,
  };
}

/** What the read side needs for one request: the database, the current overview, the limits. */
export async function readContext(deps: ReadContextDeps): Promise<ReadContext> {
  return { db: deps.db, overview: await deps.schema.getOverview(), limits: queryLimits(deps.config) };
}

/**
 * The caller and what they may read: the one place HTTP reads and re-reads get their access.
 * Until role permissions are evaluated, admins read everything and everybody else nothing.
 */
export function readerOf(accountability: Accountability): Reader {
  return { accountability, access: defaultReadAccess(accountability) };
}

/** The query string's query, or a SEARCH body's `query`, which replaces it (reference/routes.md). */
export function requestQuery(req: Request, bodyQuery?: Readonly<Record<string, unknown>>): Query {
  if (bodyQuery !== undefined) return parseQuery(bodyQuery);
  return parseQuery(parseQueryString(new URL(req.originalUrl, 'http://localhost').search));
}
