/** Moving between console pages without a reload; main.ts supplies the renderer. */

/** A page: its path parameters and query string in, its content out. */
export type Page = (params: Readonly<Record<string, string>>, query: URLSearchParams) => Promise<Node>;

let renderer: () => Promise<void> = () => Promise.resolve();
let leaveCurrent: (() => void) | undefined;

export function setRenderer(render: () => Promise<void>): void {
  renderer = render;
}

/** Goes to `path` inside the console. */
export function navigate(path: string, replace = false): void {
  if (replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  void renderer();
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
