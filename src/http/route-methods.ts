import type { Express, RequestHandler } from 'express';
import { MethodNotAllowedError, RouteNotFoundError } from '../errors.js';

/**
 * The methods that work at a path, read from the app's own routes (the routers' stacks, as
 * Express walks them): the `Allow` of OPTIONS and of METHOD_NOT_ALLOWED. The fast answers
 * (fast-path.ts) answer only methods these routes have, with the routes' own handlers, so one
 * table serves both ways.
 */
type MethodsAt = (path: string) => readonly string[] | undefined;

/** The parts of router 2.x (Express 5) layers the walk reads. */
export interface RouterLayer {
  /** The path given to `use()` or `route()`, one or several (a RegExp when given one). */
  readonly rawPath?: unknown;
  readonly route?: LayerRoute;
  /** A mounted router has a stack of its own; other middleware has none. */
  readonly handle: { readonly stack?: readonly RouterLayer[] };
  /** The layer's own matching (no state kept): the matched part of the path and its parameters. */
  match(path: string): { readonly path: string; readonly params: Readonly<Record<string, string>> } | false;
}

/** A route (`router.route(path)`): its methods (`_all` for `router.all`) and handlers. */
export interface LayerRoute {
  readonly methods: Readonly<Record<string, boolean | undefined>>;
  readonly stack: readonly { readonly handle: unknown }[];
}

/** What a visited route tells the walk: go on, leave the router it is in (`next('router')`), or stop. */
export type WalkStep = 'next' | 'leave router' | 'stop';

/**
 * Walks the app's router stack depth-first, in the order Express tries it, skipping middleware
 * without routes. `enter(layer, at)` gives the states under which a route or a mounted router
 * applies (none: passed by); `visit` sees a route under each, and a mounted router's own stack
 * is walked under each. True when a visit stopped it. The one reading of Express's routing
 * internals (tests list the served routes with it too).
 */
export function walkRoutes<S>(
  app: Express,
  at: S,
  enter: (layer: RouterLayer, at: S) => readonly S[],
  visit: (route: LayerRoute, at: S) => WalkStep,
): boolean {
  const { router } = app as unknown as { router: { stack: readonly RouterLayer[] } };
  return walkStack(router.stack, at, enter, visit) === 'stop';
}

function walkStack<S>(
  stack: readonly RouterLayer[],
  at: S,
  enter: (layer: RouterLayer, at: S) => readonly S[],
  visit: (route: LayerRoute, at: S) => WalkStep,
): 'stop' | undefined {
  for (const layer of stack) {
    const { route } = layer;
    const inner = layer.handle.stack;
    if (route === undefined && inner === undefined) continue;
    for (const state of enter(layer, at)) {
      const step = route !== undefined ? visit(route, state) : walkStack(inner ?? [], state, enter, visit);
      if (step === 'stop') return 'stop';
      if (step === 'leave router') return undefined;
    }
  }
  return undefined;
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
function methodsAt(app: Express): MethodsAt {
  return (path) => {
    const found = new Set<string>();
    // Stopped only by a route that takes every method.
    const takesAny = walkRoutes<Matched>(app, { path, params: {} }, enterMatching, (route, at) => {
      if (route.methods['_all'] === true) {
        const guard = guardOf(route.stack);
        if (guard === undefined) return 'stop';
        return guard(at.params) ? 'leave router' : 'next';
      }
      for (const [method, on] of Object.entries(route.methods)) if (on === true) found.add(method.toUpperCase());
      if (found.has('GET')) found.add('HEAD');
      return 'next';
    });
    return takesAny || found.size === 0 ? undefined : [...found].sort();
  };
}

/** The part of the path a layer sees, and the parameters its match gave. */
interface Matched {
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
}

function enterMatching(layer: RouterLayer, at: Matched): readonly Matched[] {
  const match = matchOf(layer, at.path);
  if (match === undefined) return [];
  if (layer.route !== undefined) return [{ path: at.path, params: match.params }];
  // A mounted router sees the rest of the path (router 2.x's trimPrefix).
  const next = at.path[match.path.length];
  if (next !== undefined && next !== '/') return [];
  return [{ path: at.path.slice(match.path.length) || '/', params: match.params }];
}

function matchOf(layer: RouterLayer, path: string): Matched | undefined {
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
