/**
 * The Studio's entry: react-admin's <Admin> over the client library (providers.ts), the
 * collections as resources (`content/<collection>`, from the session's catalogue), and the
 * console's other pages as custom routes inside the layout; the mailed-link pages outside it.
 *
 * Styles: MUI's emotion injects <style> elements; they carry the nonce the server puts in
 * index.html's `csp-nonce` meta for each response (src/http/console.ts), so the CSP stays
 * without 'unsafe-inline'.
 */
import { createRoot } from 'react-dom/client';
import createCache from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { Admin, CustomRoutes, Resource, defaultTheme, type RaThemeOptions } from 'react-admin';
import { createBrowserRouter, Navigate, Route, RouterProvider, useParams } from 'react-router-dom';
import { acceptInvitePage, resetPasswordPage, verifyEmailPage } from './pages/account-links.js';
import { graphqlPage } from './pages/graphql.js';
import { transferPage } from './pages/transfer.js';
import type { Catalogue } from './studio/catalogue.js';
import { displayOf } from './studio/catalogue.js';
import { startA11yFixes } from './studio/a11y-fixes.js';
import { ProfileRoute, RolePreviewRoute, RoleRoute, RolesRoute, UsersRoute } from './studio/access/lazy-pages.js';
import { CollectionsPage } from './studio/collections-page.js';
import { FirstRunGate, LazyDataModelPage } from './studio/data-model/first-run-gate.js';
import { DomPage, PrivateDomPage } from './studio/dom-page.js';
import { StudioLayout } from './studio/layout.js';
import { AdminRoutes } from './studio/admin/routes.js';
import { LoginPage } from './studio/login.js';
import { onDemand } from './studio/on-demand.js';
import { pageNonce } from './studio/page-nonce.js';
import { i18nProvider } from './studio/messages.js';
import { authProvider, CONTENT, dataProvider } from './studio/providers.js';

const nonce = pageNonce();
const cache = createCache({ key: 'svc', ...(nonce === undefined ? {} : { nonce }), prepend: true });

/**
 * A reader whose system asks for less motion (prefers-reduced-motion) gets none: menus, dialogs
 * and drawers appear and go at once, and buttons show no ripple.
 */
const isMotionReduced = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
const still: Pick<RaThemeOptions, 'transitions'> = {
  transitions: {
    create: () => 'none',
    getAutoHeightDuration: () => 0,
    duration: { shortest: 0, shorter: 0, short: 0, standard: 0, complex: 0, enteringScreen: 0, leavingScreen: 0 },
  },
};

/** react-admin's theme with a darker blue: white text on it passes WCAG AA contrast. */
const theme: RaThemeOptions = {
  ...defaultTheme,
  ...(isMotionReduced ? still : {}),
  components: {
    ...defaultTheme.components,
    ...(isMotionReduced ? { MuiButtonBase: { defaultProps: { disableRipple: true } } } : {}),
  },
  palette: { primary: { main: '#1565c0' }, secondary: { main: '#0d47a1' }, error: { main: '#b71c1c' } },
  typography: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' },
};

// A collection's list and its item forms are chunks of their own: the first paint needs neither.
const CollectionList = onDemand(async () => (await import('./studio/list/collection-list.js')).CollectionList);
const ItemEdit = onDemand(async () => (await import('./studio/content.js')).ItemEdit);
const ItemCreate = onDemand(async () => (await import('./studio/content.js')).ItemCreate);
const SingletonEdit = onDemand(async () => (await import('./studio/content.js')).SingletonEdit);
const NoCollectionAccess = onDemand(async () => (await import('./studio/list/no-access.js')).NoCollectionAccess);

/** The history's old address opens the item with its history panel. */
function HistoryRedirect() {
  const { collection = '', id = '' } = useParams<{ collection: string; id: string }>();
  return <Navigate replace to={`/content/${encodeURIComponent(collection)}/${encodeURIComponent(id)}?panel=history`} />;
}

const publicRoutes = (
  <CustomRoutes noLayout>
    <Route path="/accept-invite" element={<DomPage page={acceptInvitePage} title="svc.links.accept" />} />
    <Route path="/reset-password" element={<DomPage page={resetPasswordPage} title="svc.links.reset" />} />
    <Route path="/verify-email" element={<DomPage page={verifyEmailPage} title="svc.links.verify" />} />
  </CustomRoutes>
);

const pages = (
  <CustomRoutes>
    <Route
      path="/content"
      element={
        <FirstRunGate>
          <CollectionsPage />
        </FirstRunGate>
      }
    />
    <Route path="/content/:collection/:id/history" element={<HistoryRedirect />} />
    {/* A readable collection's own routes (its resource) are more specific than this one. */}
    <Route path="/content/:collection/*" element={<NoCollectionAccess />} />
    <Route path="/transfer" element={<PrivateDomPage page={transferPage} title="svc.nav.transfer" />} />
    <Route path="/settings/data-model/*" element={<LazyDataModelPage />} />
    <Route path="/graphql" element={<PrivateDomPage page={graphqlPage} title="svc.nav.graphql" wide />} />
    {AdminRoutes}
    <Route path="/settings/roles" element={<RolesRoute />} />
    <Route path="/settings/roles/:id" element={<RoleRoute />} />
    <Route path="/settings/roles/:id/preview" element={<RolePreviewRoute />} />
    <Route path="/users" element={<UsersRoute />} />
    <Route path="/profile" element={<ProfileRoute />} />
  </CustomRoutes>
);

function resources(catalogue: Catalogue | null) {
  const collections = (catalogue?.collections ?? []).filter((c) => !c.isFolder && c.can.read);
  return [
    publicRoutes,
    pages,
    ...collections.map((c) => (
      <Resource
        key={c.name}
        name={`${CONTENT}${c.name}`}
        options={{ label: c.name }}
        recordRepresentation={(record) => displayOf(c, record)}
        {...(c.singleton
          ? { list: SingletonEdit }
          : { list: CollectionList, edit: ItemEdit, ...(c.can.create ? { create: ItemCreate } : {}) })}
      />
    )),
  ];
}

function StudioAdmin() {
  return (
    <Admin
      title="Studio"
      dataProvider={dataProvider}
      authProvider={authProvider}
      i18nProvider={i18nProvider}
      loginPage={LoginPage}
      layout={StudioLayout}
      dashboard={CollectionsPage}
      theme={theme}
      disableTelemetry
      requireAuth={false}
    >
      {resources}
    </Admin>
  );
}

// History API URLs under /admin (react-admin's own router would use the hash). A data router:
// react-admin's unsaved-changes guard (warnWhenUnsavedChanges) blocks navigation through it.
const router = createBrowserRouter([{ path: '*', element: <StudioAdmin /> }], {
  basename: '/admin',
  future: { v7_relativeSplatPath: true },
});

function Studio() {
  return (
    <CacheProvider value={cache}>
      {/* Router state updates outside React transitions: the unsaved-changes guard's blocker state
          (reset after "stay") must be current when a save comes next. */}
      <RouterProvider router={router} future={{ v7_startTransition: false }} />
    </CacheProvider>
  );
}

const root = document.getElementById('root');
startA11yFixes();
if (root !== null) createRoot(root).render(<Studio />);
