import type { Request } from 'express';
import type { IncomingMessage } from 'node:http';
import type { Knex } from 'knex';
import type { SchemaCache } from '../cache/schema-cache.js';
import type { Accountability } from '../access/accountability.js';
import type { Config } from '../config/index.js';
import { readDatabase, replicaCaller } from '../db/replicas.js';
import { parseQuery, queryLimits, type Query, type ReadContext } from '../query/index.js';
import { requestQuery as queryOfRequest } from './request-pipeline.js';
import { requestOverview } from './request-overview.js';

export interface ReadContextDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly schema: SchemaCache;
}

/**
 * What the read side needs for one request: the database (a read replica unless the caller
 * wrote lately, db/replicas.ts), the request's overview, the limits. `accountability`: the
 * caller, when it is not on `req` (Express's `req.accountability`).
 */
export async function readContext(
  deps: ReadContextDeps,
  req: IncomingMessage,
  accountability?: Accountability,
): Promise<ReadContext> {
  const caller = accountability ?? (req as { accountability?: Accountability }).accountability;
  return {
    db: readDatabase(deps.db, caller === undefined ? undefined : replicaCaller(caller)),
    overview: await requestOverview(req, deps.schema),
    limits: queryLimits(deps.config),
  };
}

/** The query string's query, or a SEARCH body's `query`, which replaces it. */
export function requestQuery(req: Request, bodyQuery?: Readonly<Record<string, unknown>>): Query {
  if (bodyQuery !== undefined) return parseQuery(bodyQuery);
  return queryOfRequest(req);
}
