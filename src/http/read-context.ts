import type { Request } from 'express';
import type { IncomingMessage } from 'node:http';
import type { Knex } from 'knex';
import type { SchemaCache } from '../cache/schema-cache.js';
import type { Config } from '../config/index.js';
import { parseQuery, queryLimits, queryOfSearch, type Query, type ReadContext } from '../query/index.js';
import { requestOverview } from './request-overview.js';

export interface ReadContextDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly schema: SchemaCache;
}

/** What the read side needs for one request: the database, the request's overview, the limits. */
export async function readContext(deps: ReadContextDeps, req: IncomingMessage): Promise<ReadContext> {
  return { db: deps.db, overview: await requestOverview(req, deps.schema), limits: queryLimits(deps.config) };
}

/** The query string's query, or a SEARCH body's `query`, which replaces it (reference/routes.md). */
export function requestQuery(req: Request, bodyQuery?: Readonly<Record<string, unknown>>): Query {
  if (bodyQuery !== undefined) return parseQuery(bodyQuery);
  return queryOfSearch(new URL(req.originalUrl, 'http://localhost').search);
}
