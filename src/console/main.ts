/**
 * The console's entry: a small router over the History API for the pages under /admin. Public
 * pages (sign in, mailed links) render without a session; the rest sign in first.
 */
import { errorText, h } from './dom.js';
import { leavePage, navigate, setRenderer, type Page } from './navigation.js';
import { client, hasSession, isSignedOut, rememberSignIn, signInPath } from './session.js';
import { signInPage } from './pages/sign-in.js';
import { acceptInvitePage, resetPasswordPage, verifyEmailPage } from './pages/account-links.js';
import { collectionsPage, itemsPage } from './pages/browse.js';
import { itemPage } from './pages/item.js';
import { historyPage } from './pages/history.js';
import { transferPage } from './pages/transfer.js';
import { adminPage } from './pages/admin.js';
import { graphqlPage } from './pages/graphql.js';

interface Route {
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly page: Page;
  readonly title: string;
  readonly isPublic: boolean;
}

const route = (path: string, title: string, page: Page, isPublic = false): Route => {
  const names: string[] = [];
  const source = path.replace(/:(\w+)/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { pattern: new RegExp(`^${source}/?$`), names, page, title, isPublic };
};

const ROUTES: readonly Route[] = [
  route('/admin/login', 'Sign in', signInPage, true),
  route('/admin/accept-invite', 'Accept invitation', acceptInvitePage, true),
  route('/admin/reset-password', 'Reset password', resetPasswordPage, true),
  route('/admin/verify-email', 'Verify e-mail', verifyEmailPage, true),
  route('/admin', 'Collections', collectionsPage),
  route('/admin/content', 'Collections', collectionsPage),
  route('/admin/content/:collection', 'Items', itemsPage),
  route('/admin/content/:collection/:id', 'Item', itemPage),
  route('/admin/content/:collection/:id/history', 'History', historyPage),
  route('/admin/transfer', 'Export and import', transferPage),
  route('/admin/settings', 'Administration', adminPage),
  route('/admin/graphql', 'GraphQL', graphqlPage),
];

const main = document.getElementById('main') as HTMLElement;
const nav = document.getElementById('nav') as HTMLElement;

async function render(): Promise<void> {
  leavePage();
  const url = new URL(window.location.href);
  const path = url.pathname.replace(/\/+$/, '') || '/admin';
  const match = ROUTES.map((r) => ({ r, m: r.pattern.exec(path) })).find((x) => x.m !== null);
  if (match === undefined || match.m === null) {
    show('Not found', h('section', {}, h('h1', {}, 'Not found'), h('p', {}, `Nothing at ${path}.`)), true);
    return;
  }
  const { r, m } = match;
  if (!r.isPublic && !(await hasSession())) {
    navigate(signInPath(), true);
    return;
  }
  const params: Record<string, string> = {};
  r.names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1] ?? '')));
  main.replaceChildren(h('p', { class: 'status', role: 'status' }, 'Loading…'));
  renderNav(r.isPublic);
  try {
    show(r.title, await r.page(params, url.searchParams), r.isPublic);
  } catch (error) {
    if (isSignedOut(error)) {
      client.storage.auth_token = null;
      rememberSignIn(false);
      navigate(signInPath(), true);
      return;
    }
    show(
      r.title,
      h('section', {}, h('h1', {}, r.title), h('p', { class: 'status error', role: 'alert' }, errorText(error))),
      r.isPublic,
    );
  }
}

function show(title: string, content: Node, isPublic: boolean): void {
  document.title = `${title} · Console`;
  renderNav(isPublic);
  main.replaceChildren(content);
  main.focus({ preventScroll: true });
}

function renderNav(isPublic: boolean): void {
  if (isPublic) {
    nav.replaceChildren();
    return;
  }
  // GraphiQL keeps its storage in module state: each endpoint gets a fresh document.
  const link = (href: string, text: string, reload = false) =>
    h(
      'a',
      { href, 'aria-current': window.location.pathname.startsWith(href) ? 'page' : undefined, 'data-reload': reload },
      text,
    );
  const signOut = h('button', { type: 'button', class: 'link', onclick: () => void signOutNow() }, 'Sign out');
  nav.replaceChildren(
    h(
      'ul',
      {},
      h('li', {}, link('/admin/content', 'Content')),
      h('li', {}, link('/admin/transfer', 'Export / import')),
      h('li', {}, link('/admin/settings', 'Admin')),
      h('li', {}, link('/admin/graphql', 'GraphQL', true)),
      h('li', {}, signOut),
    ),
  );
}

async function signOutNow(): Promise<void> {
  try {
    await client.auth.logout();
  } catch {
    // The session may be gone already; the console forgets it either way.
  }
  client.storage.auth_token = null;
  rememberSignIn(false);
  navigate('/admin/login');
}

// Links inside the console change the page without a reload; others (downloads, SSO) go.
document.addEventListener('click', (event) => {
  const anchor = (event.target as Element | null)?.closest('a');
  if (anchor === null || anchor === undefined || event.defaultPrevented || event.button !== 0) return;
  if (
    event.metaKey ||
    event.ctrlKey ||
    event.shiftKey ||
    anchor.hasAttribute('download') ||
    anchor.hasAttribute('data-reload') ||
    anchor.target !== ''
  )
    return;
  const url = new URL(anchor.href, window.location.href);
  if (url.origin !== window.location.origin || !url.pathname.startsWith('/admin')) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener('popstate', () => void render());
setRenderer(render);
void render();
