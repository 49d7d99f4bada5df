import type { Express } from 'express';

/** One route an Express app serves: a lower-case method (`all` for `router.all`) and its full path. */
export interface ServedRoute {
  readonly method: string;
  /** OpenAPI form: `{id}` where the router has `:id`; no trailing slash. */
  readonly path: string;
}

/** The parts of router 2.x (Express 5) layers the walk reads. */
interface Layer {
  /** The path given to `use()` or `route()`, one or several. */
  readonly rawPath?: string | readonly string[];
  readonly route?: { readonly methods: Readonly<Record<string, boolean>> };
  /** A mounted router has a stack of its own; other middleware has none. */
  readonly handle: { readonly stack?: readonly Layer[] };
}

/**
 * Every route of `app`, read from its router stack: the routes of mounted routers under
 * their mount paths. Middleware without routes (body parsers, accountability) is skipped.
 */
export function servedRoutes(app: Express): ServedRoute[] {
  const { router } = app as unknown as { router: { stack: readonly Layer[] } };
  return walk(router.stack, '');
}

function walk(stack: readonly Layer[], prefix: string): ServedRoute[] {
  const routes: ServedRoute[] = [];
  for (const layer of stack) {
    for (const path of pathsOf(layer).map((p) => join(prefix, p))) {
      if (layer.route !== undefined) {
        const methods = Object.keys(layer.route.methods).filter((m) => layer.route?.methods[m] === true);
        routes.push(...methods.map((m) => ({ method: m === '_all' ? 'all' : m, path: toOpenApiPath(path) })));
      } else if (layer.handle.stack !== undefined) {
        routes.push(...walk(layer.handle.stack, path));
      }
    }
  }
  return routes;
}

function pathsOf(layer: Layer): readonly string[] {
  const raw = layer.rawPath ?? '/';
  const paths: readonly unknown[] = typeof raw === 'string' ? [raw] : raw;
  // A regular expression path has no name to look up in a document: fail rather than skip it.
  if (!paths.every((p): p is string => typeof p === 'string'))
    throw new Error(`a route path is not a string: ${String(raw)}`);
  return paths;
}

function join(prefix: string, path: string): string {
  return `${prefix}/${path}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
}

function toOpenApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}
