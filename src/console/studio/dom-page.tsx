/**
 * The console's plain-DOM pages (export/import, GraphiQL, the mailed links)
 * inside the Studio: a React route that runs the page function and shows the node it returns.
 * Their links go through react-router; a 401 signs out. They get react-admin's translate: their
 * strings are the catalogue's (studio/page-messages.ts).
 */
import { useEffect, useRef, useState, type MouseEvent } from 'react';
import { Alert, Box, LinearProgress } from '@mui/material';
import { useAuthenticated, useLogout, useTranslate } from 'react-admin';
import { useLocation, useNavigate, useParams } from 'react-router-dom';
import { errorText } from '../dom.js';
import { leavePage, type Page } from '../navigation.js';
import { isSignedOut } from '../session.js';

/** react-router paths are under the /admin basename. */
const inApp = (path: string): string => path.replace(/^\/admin(?=\/|$|\?)/, '') || '/';

interface DomPageProps {
  readonly page: Page;
  readonly title: string;
  readonly wide?: boolean;
}

/** A page that needs a session: signs in first. */
export function PrivateDomPage(props: DomPageProps) {
  const { isPending } = useAuthenticated();
  return isPending ? <LinearProgress /> : <DomPage {...props} />;
}

export function DomPage({ page, title, wide = false }: DomPageProps) {
  const host = useRef<HTMLDivElement>(null);
  const params = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const logout = useLogout();
  const translate = useTranslate();
  const [state, setState] = useState<'loading' | 'ready' | { error: string }>('loading');

  useEffect(() => {
    let isCurrent = true;
    leavePage();
    setState('loading');
    document.title = `${translate(title)} · ${translate('svc.app.title')}`;
    const clean = Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
    page(clean, new URLSearchParams(location.search), translate).then(
      (node) => {
        if (!isCurrent) return;
        host.current?.replaceChildren(node);
        setState('ready');
      },
      (error: unknown) => {
        if (!isCurrent) return;
        if (isSignedOut(error)) void logout();
        else setState({ error: errorText(error) });
      },
    );
    return () => {
      isCurrent = false;
      leavePage();
    };
    // A new location (even the same path, navigated again) renders the page afresh.
  }, [location.key]);

  // Links inside the page change the route without a reload; others (downloads, SSO) go.
  const onClick = (event: MouseEvent) => {
    const anchor = (event.target as Element | null)?.closest('a');
    if (anchor === null || anchor === undefined || event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || anchor.hasAttribute('download')) return;
    if (anchor.hasAttribute('data-reload') || anchor.target !== '') return;
    const url = new URL(anchor.href, window.location.href);
    if (url.origin !== window.location.origin || !url.pathname.startsWith('/admin')) return;
    event.preventDefault();
    navigate(inApp(url.pathname + url.search));
  };

  return (
    <Box className={wide ? 'legacy wide' : 'legacy'} sx={{ py: 2 }}>
      {state === 'loading' && <LinearProgress aria-label={translate('svc.page.loading')} />}
      {typeof state === 'object' && (
        <Alert severity="error" role="alert">
          {state.error}
        </Alert>
      )}
      {/* The page's own markup; its clicks are routed above. */}
      <div ref={host} onClick={onClick} />
    </Box>
  );
}
