import type { Express, RequestHandler } from 'express';
import { MethodNotAllowedError, RouteNotFoundError } from '../errors.js';

/**
 * The methods that work at a path, read from the app's own routes (the routers' stacks, as
 * Express walks them): the `Allow` of OPTIONS and of METHOD_NOT_ALLOWED. The fast answers
 * (fast-path.ts) answer only methods these routes have, with the routes' own handlers, so one
 * table serves both ways.
 */
export type MethodsAt = (path: string) => readonly string[] | undefined;

/** The parts of router 2.x (Express 5) layers read here (test/support/served-routes.ts reads the same). */
interface Layer {
  readonly route?: {
    readonly methods: Readonly<Record<string, boolean | undefined>>;
    readonly stack: readonly { readonly handle: unknown }[];
  };
  readonly handle: { readonly stack?: readonly Layer[] };
  /** The layer's own matching (no state kept): the matched part of the path and its parameters. */
  match(path: string): { readonly path: string; readonly params: Readonly<Record<string, string>> } | false;
}

/** The test of a {@link routerGuard}, kept on its handler for the walk. */
const GUARD = Symbol('router guard');

type GuardTest = (params: Readonly<Record<string, string>>) => boolean;

/**
 * A `router.all` handler that leaves its router (`next('router')`) when `leaves` holds for the
 * path's parameters: `/users/me` is not an item of `/users/:id`. The walk below knows it,
 * so the methods of the routes it skips are not offered at those paths.
 */
export function routerGuard(leaves: GuardTest): RequestHandler {
  const handler: RequestHandler = (req, _res, next) => {
    next(leaves(req.params as Record<string, string>) ? 'router' : undefined);
  };
  return Object.assign(handler, { [GUARD]: leaves });
}

/**
 * The methods of the routes that match a path, sorted, HEAD with GET (Express answers it);
 * undefined when no route matches, or a route takes every method (`router.all`: /graphql
 * answers other methods itself).
 */
export function methodsAt(app: Express): MethodsAt {
  return (path) => {
    const { router } = app as unknown as { router: { stack: readonly Layer[] } };
    const found = new Set<string>();
    if (walk(router.stack, path, found) === 'any' || found.size === 0) return undefined;
    return [...found].sort();
  };
}

/** Adds the methods of `stack`'s routes matching `path`; 'any' when one takes every method. */
function walk(stack: readonly Layer[], path: string, found: Set<string>): 'any' | undefined {
  for (const layer of stack) {
    const match = matchOf(layer, path);
    if (match === undefined) continue;
    const { route } = layer;
    if (route !== undefined) {
      if (route.methods['_all'] === true) {
        const guard = guardOf(route.stack);
        if (guard === undefined) return 'any';
        if (guard(match.params)) return undefined;
        continue;
      }
      for (const [method, on] of Object.entries(route.methods)) if (on === true) found.add(method.toUpperCase());
      if (found.has('GET')) found.add('HEAD');
    } else if (layer.handle.stack !== undefined) {
      // A mounted router sees the rest of the path (router 2.x's trimPrefix).
      const next = path[match.path.length];
      if (next !== undefined && next !== '/') continue;
      if (walk(layer.handle.stack, path.slice(match.path.length) || '/', found) === 'any') return 'any';
    }
  }
  return undefined;
}

function matchOf(layer: Layer, path: string): { path: string; params: Readonly<Record<string, string>> } | undefined {
  try {
    return layer.match(path) || undefined;
  } catch {
    // A parameter that is not valid percent-encoding: Express refuses it (url-path.ts).
    return undefined;
  }
}

function guardOf(stack: readonly { readonly handle: unknown }[]): GuardTest | undefined {
  if (stack.length !== 1) return undefined;
  const handle = stack[0]?.handle as { [GUARD]?: GuardTest } | undefined;
  return handle?.[GUARD];
}

/**
 * The Express app's answers from the route table: OPTIONS at a path with routes is 204 with
 * `Allow` (a CORS preflight is answered before, by cors.ts); after every route, a method a
 * matching route lacks is 405 METHOD_NOT_ALLOWED with `Allow`, and the rest ROUTE_NOT_FOUND.
 */
export function routeMethodAnswers(app: Express): { options: RequestHandler; notFound: RequestHandler } {
  const allowedAt = methodsAt(app);
  return {
    options: (req, res, next) => {
      const allowed = req.method === 'OPTIONS' ? allowedAt(req.path) : undefined;
      if (allowed === undefined) {
        next();
        return;
      }
      res.setHeader('Allow', allowed.join(', '));
      res.status(204).end();
    },
    notFound: (req, _res, next) => {
      const allowed = allowedAt(req.path);
      next(
        allowed !== undefined && !allowed.includes(req.method)
          ? new MethodNotAllowedError(req.method, allowed)
          : new RouteNotFoundError(req.path),
      );
    },
  };
}
