/**
 * The pages written as plain DOM (pages/*.ts): their shape, and the cleanups they leave for when
 * the Studio's router moves on (studio/dom-page.tsx).
 */

/** The Studio's message catalogue (studio/messages.ts), as react-admin's translate reads it. */
export type Translate = (key: string, options?: Record<string, unknown>) => string;

/** A page: its path parameters, query string and the catalogue in, its content out. */
export type Page = (params: Readonly<Record<string, string>>, query: URLSearchParams, t: Translate) => Promise<Node>;

let leaveCurrent: (() => void) | undefined;

/** Runs `cleanup` when the current page is left (polls stop, GraphiQL unmounts). */
export function onLeave(cleanup: () => void): void {
  const previous = leaveCurrent;
  leaveCurrent = () => {
    previous?.();
    cleanup();
  };
}

/** Runs and forgets the current page's cleanups. */
export function leavePage(): void {
  const cleanup = leaveCurrent;
  leaveCurrent = undefined;
  cleanup?.();
}
