/**
 * The Studio's frame: react-admin's Layout with a menu of the collections grouped by their
 * folders (svc_collections meta `group`, `icon`) with their item counts, then the tools (export/import, admin, GraphQL).
 */
import { Fragment, type ReactNode } from 'react';
import {
  Box,
  Button,
  List,
  ListItem,
  ListItemButton,
  ListItemIcon,
  ListItemText,
  ListSubheader,
  Typography,
} from '@mui/material';
import { NavLink, useLocation } from 'react-router-dom';
import FolderIcon from '@mui/icons-material/FolderOutlined';
import TableIcon from '@mui/icons-material/TableRowsOutlined';
import ArticleIcon from '@mui/icons-material/ArticleOutlined';
import PersonIcon from '@mui/icons-material/PersonOutline';
import ImageIcon from '@mui/icons-material/ImageOutlined';
import LabelIcon from '@mui/icons-material/LabelOutlined';
import SwapIcon from '@mui/icons-material/SwapVert';
import CodeIcon from '@mui/icons-material/Code';
import AppsIcon from '@mui/icons-material/AppsOutlined';
import {
  AppBar,
  Layout,
  TitlePortal,
  useLogout,
  usePermissions,
  useSidebarState,
  useTranslate,
  type LayoutProps,
} from 'react-admin';
import { mustSetUpTfa, type Catalogue, type CollectionInfo } from './catalogue.js';
import { ProjectTitle, useAdminEntries } from './admin/nav.js';
import { useAccessEntries } from './access/nav.js';
import { BookmarkLinks } from './list/bookmarks.js';
import { useItemCounts } from './item-counts.js';
import { onDemand } from './on-demand.js';

// Loaded only by whoever must set up TFA first.
const TfaRequiredPage = onDemand(async () => (await import('./access/tfa-required.js')).TfaRequiredPage);

/** Material icon names of svc_collections meta `icon` that the Studio bundles; others get a table. */
const ICONS: Readonly<Record<string, ReactNode>> = {
  article: <ArticleIcon />,
  person: <PersonIcon />,
  people: <PersonIcon />,
  image: <ImageIcon />,
  label: <LabelIcon />,
  folder: <FolderIcon />,
};

export const iconOf = (collection: CollectionInfo): ReactNode =>
  (collection.icon === undefined ? undefined : ICONS[collection.icon]) ?? <TableIcon />;

/** Collections under their folder: a folder is a collection without a table, or just a `group` name. */
function grouped(catalogue: Catalogue): [string | undefined, CollectionInfo[]][] {
  const groups = new Map<string | undefined, CollectionInfo[]>();
  for (const c of catalogue.collections) {
    if (c.isFolder || !c.can.read || c.hidden) continue;
    const list = groups.get(c.group) ?? [];
    list.push(c);
    groups.set(c.group, list);
  }
  return [...groups.entries()].sort(([a], [b]) => (a ?? '').localeCompare(b ?? ''));
}

interface NavItemProps {
  readonly to: string;
  readonly text: string;
  readonly icon: ReactNode;
  /** A full page load (GraphiQL). */
  readonly reload?: boolean;
  /** The collection's item count, beside the name and in the link's description. */
  readonly count?: number | undefined;
}

function NavItem({ to, text, icon, reload = false, count }: NavItemProps) {
  const translate = useTranslate();
  const location = useLocation();
  // The roles (/settings/roles) have their own entry.
  const isNested =
    location.pathname.startsWith(`${to}/`) && !(to === '/settings' && location.pathname.startsWith('/settings/roles'));
  const isCurrent = location.pathname === to || isNested;
  const [open] = useSidebarState();
  const countId = `nav-count-${to.replace(/\W+/g, '-')}`;
  const hasCount = open && count !== undefined;
  return (
    <ListItem disablePadding>
      <ListItemButton
        component={reload ? 'a' : NavLink}
        {...(reload ? { href: `/admin${to}` } : { to })}
        aria-current={isCurrent ? 'page' : undefined}
        aria-describedby={hasCount ? countId : undefined}
        selected={isCurrent}
        dense
      >
        <ListItemIcon sx={{ minWidth: 36 }}>{icon}</ListItemIcon>
        {open && <ListItemText primary={text} />}
        {hasCount && (
          <>
            {/* The name stays the collection's; the count is its description ("3 items"). */}
            <Typography component="span" variant="caption" color="text.secondary" aria-hidden sx={{ ml: 1 }}>
              {count.toLocaleString()}
            </Typography>
            <span id={countId} hidden>
              {translate('svc.collections.items', { smart_count: count })}
            </span>
          </>
        )}
      </ListItemButton>
    </ListItem>
  );
}

/** The navigation: collections by folder, then the tools. Plain links (not ARIA menu items). */
function StudioMenu() {
  const translate = useTranslate();
  const { permissions } = usePermissions<Catalogue | null>();
  const groups = permissions === null || permissions === undefined ? [] : grouped(permissions);
  const counts = useItemCounts(groups.flatMap(([, collections]) => collections));
  const tools = [...useAdminEntries(), ...useAccessEntries()];
  return (
    <Box component="nav" aria-label={translate('svc.nav.main')} sx={{ pt: 1 }}>
      <List dense disablePadding>
        <NavItem to="/content" text={translate('svc.nav.collections')} icon={<AppsIcon />} />
      </List>
      {groups.map(([group, collections]) => {
        const heading = group ?? translate('svc.nav.ungrouped');
        const id = `nav-group-${heading.replace(/\W+/g, '-')}`;
        return (
          <List
            key={heading}
            dense
            disablePadding
            aria-labelledby={id}
            subheader={
              <ListSubheader id={id} disableSticky sx={{ lineHeight: '32px' }}>
                {heading}
              </ListSubheader>
            }
          >
            {collections.map((c) => (
              <Fragment key={c.name}>
                <NavItem to={`/content/${c.name}`} text={c.name} icon={iconOf(c)} count={counts.get(c.name)} />
                <BookmarkLinks collection={c.name} />
              </Fragment>
            ))}
          </List>
        );
      })}
      <List dense disablePadding sx={{ mt: 1 }}>
        <NavItem to="/transfer" text={translate('svc.nav.transfer')} icon={<SwapIcon />} />
        {tools.map((entry) => (
          <NavItem key={entry.to} {...entry} />
        ))}
        {/* GraphiQL keeps its storage in module state: each visit loads a fresh document. */}
        <NavItem to="/graphql" text={translate('svc.nav.graphql')} icon={<CodeIcon />} reload />
      </List>
    </Box>
  );
}

function AppBarWith({ hasMenu }: { readonly hasMenu: boolean }) {
  const translate = useTranslate();
  const logout = useLogout();
  return (
    // Without a menu, no button to open one. Always on (react-admin's bar hides when the page
    // scrolls down and slides back over the page's top when it scrolls up): nothing moves under
    // a pointer that is about to click.
    <AppBar alwaysOn userMenu={false} sx={hasMenu ? {} : { '& .RaAppBar-menuButton': { display: 'none' } }}>
      {/* The page's title is its one h1 (react-admin's views put theirs here). */}
      <ProjectTitle />
      <TitlePortal component="h1" />
      <Button color="inherit" onClick={() => void logout()}>
        {translate('svc.nav.sign_out')}
      </Button>
    </AppBar>
  );
}

const NoSidebar = () => null;
const StudioAppBar = () => <AppBarWith hasMenu />;
const BareAppBar = () => <AppBarWith hasMenu={false} />;

/**
 * A role that requires TFA (svc_roles.enforce_tfa) of a user without it: every page is the TFA
 * setup, with no menu, until it is on (as in Directus's app; administrators too).
 */
export function StudioLayout({ children }: LayoutProps) {
  const { permissions } = usePermissions<Catalogue | null>();
  if (mustSetUpTfa(permissions))
    return (
      <Layout sidebar={NoSidebar} appBar={BareAppBar} appBarAlwaysOn>
        <TfaRequiredPage />
      </Layout>
    );
  return (
    <Layout menu={StudioMenu} appBar={StudioAppBar} appBarAlwaysOn>
      {children}
    </Layout>
  );
}
