import type { Request } from 'express';
import type { SchemaContext } from '../../catalog/ddl/context.js';
import { FULL_READ_ACCESS } from '../access/read-access.js';
import { readableSchemaObjects, type SchemaObjects } from '../access/schema-objects.js';
import { readerOf, type ReaderDeps } from '../query/index.js';

/** What the schema routes need: schema changes, and the caller's permissions for reads. */
export type SchemaRouteContext = SchemaContext & ReaderDeps;

/** The schema objects the caller may read (the same as GraphQL's). */
export async function readableSchema(ctx: SchemaRouteContext, req: Request): Promise<SchemaObjects> {
  const overview = await ctx.schema.getOverview();
  const reader = await readerOf(ctx, overview, req.accountability);
  return readableSchemaObjects(overview, reader.access);
}

/** Every schema object of the current overview: what an admin's schema change reads back. */
export async function changedSchema(ctx: SchemaRouteContext): Promise<SchemaObjects> {
  return readableSchemaObjects(await ctx.schema.getOverview(), FULL_READ_ACCESS);
}
