import type { Request } from 'express';
import type { SchemaContext } from '../../catalog/ddl/context.js';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import { schemaReadAccess, type SchemaReadAccess } from '../access/schema-access.js';
import { ForbiddenError } from '../errors.js';
import { readerOf, type ReaderDeps } from '../query/index.js';
import { collectionParam } from './collection-name.js';

/** What the schema routes need: schema changes, and the caller's permissions for reads. */
export type SchemaRouteContext = SchemaContext & ReaderDeps;

/** The overview and which of its objects the caller may see (reference/routes.md, Schema routes). */
export async function readableSchema(
  ctx: SchemaRouteContext,
  req: Request,
): Promise<{ readonly overview: SchemaOverview; readonly canRead: SchemaReadAccess }> {
  const overview = await ctx.schema.getOverview();
  const reader = await readerOf(ctx, overview, req.accountability);
  return { overview, canRead: schemaReadAccess(reader.access) };
}

/** {@link readableSchema}, after checking the caller may read the `:collection` of the path. */
export async function readableCollectionSchema(
  ctx: SchemaRouteContext,
  req: Request,
): Promise<{ readonly overview: SchemaOverview; readonly canRead: SchemaReadAccess }> {
  const schema = await readableSchema(ctx, req);
  if (!schema.canRead.collection(collectionParam(req))) throw new ForbiddenError();
  return schema;
}
