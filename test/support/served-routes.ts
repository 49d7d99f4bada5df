import type { Express } from 'express';
import { walkRoutes, type RouterLayer } from '../../src/http/route-methods.js';

/** One route an Express app serves: a lower-case method (`all` for `router.all`) and its full path. */
export interface ServedRoute {
  readonly method: string;
  /** OpenAPI form: `{id}` where the router has `:id`; no trailing slash. */
  readonly path: string;
}

/**
 * Every route of `app`, read from its router stack by the walk that answers OPTIONS and 405
 * (src/http/route-methods.ts): the routes of mounted routers under their mount paths.
 * Middleware without routes (body parsers, accountability) is skipped.
 */
export function servedRoutes(app: Express): ServedRoute[] {
  const routes: ServedRoute[] = [];
  walkRoutes(app, '', fullPaths, (route, path) => {
    const methods = Object.keys(route.methods).filter((m) => route.methods[m] === true);
    routes.push(...methods.map((m) => ({ method: m === '_all' ? 'all' : m, path: toOpenApiPath(path) })));
    return 'next';
  });
  return routes;
}

/** The full paths of a route or mounted router under its parent's `prefix`. */
function fullPaths(layer: RouterLayer, prefix: string): readonly string[] {
  const raw = layer.rawPath ?? '/';
  const paths: readonly unknown[] = Array.isArray(raw) ? raw : [raw];
  // A regular expression path has no name to look up in a document: fail rather than skip it.
  if (!paths.every((p): p is string => typeof p === 'string'))
    throw new Error(`a route path is not a string: ${String(raw)}`);
  return paths.map((path) => `${prefix}/${path}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1'));
}

function toOpenApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}
