/**
 * Moving between console pages without a reload, for the pages written as plain DOM
 * (pages/*.ts): the Studio's router supplies the navigator (studio/dom-page.tsx).
 */

/** A page: its path parameters and query string in, its content out. */
export type Page = (params: Readonly<Record<string, string>>, query: URLSearchParams) => Promise<Node>;

let navigator: (path: string, replace: boolean) => void = (path, replace) => {
  if (replace) window.location.replace(path);
  else window.location.assign(path);
};
let leaveCurrent: (() => void) | undefined;

export function setNavigator(navigate: (path: string, replace: boolean) => void): void {
  navigator = navigate;
}

/** Goes to `path` (a full path under /admin) inside the console. */
export function navigate(path: string, replace = false): void {
  navigator(path, replace);
}

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
