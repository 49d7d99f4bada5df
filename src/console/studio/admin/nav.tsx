/**
 * The administration's entries in the navigation (files and flows for whoever may read svc_files,
 * svc_flows; the project settings, activity, operations and the data model for administrators)
 * and the project's name and colour in the app bar (svc_settings, re-read after the settings page
 * saves).
 */
import { useEffect, useSyncExternalStore, type ReactNode } from 'react';
import { Box, Typography } from '@mui/material';
import FolderIcon from '@mui/icons-material/PermMediaOutlined';
import TuneIcon from '@mui/icons-material/TuneOutlined';
import HistoryIcon from '@mui/icons-material/HistoryOutlined';
import MonitorIcon from '@mui/icons-material/MonitorHeartOutlined';
import SchemaIcon from '@mui/icons-material/SchemaOutlined';
import FlowIcon from '@mui/icons-material/BoltOutlined';
import { usePermissions, useTranslate } from 'react-admin';
import { mayReadSystem, type Catalogue } from '../catalogue.js';
import { client } from '../../session.js';

/** The navigation's administration entries (access/nav.tsx gives the access ones, in the same shape). */
export function useAdminEntries(): { to: string; text: string; icon: ReactNode }[] {
  const translate = useTranslate();
  const { permissions } = usePermissions<Catalogue | null>();
  const catalogue = permissions ?? null;
  const files = { to: '/files', text: translate('svc.files.nav'), icon: <FolderIcon /> };
  const flows = { to: '/settings/flows', text: translate('svc.flows.nav'), icon: <FlowIcon /> };
  const adminOnly =
    catalogue?.me?.adminAccess === true
      ? [
          { to: '/settings/project', text: translate('svc.admin.settings_nav'), icon: <TuneIcon /> },
          { to: '/activity', text: translate('svc.admin.activity_nav'), icon: <HistoryIcon /> },
          { to: '/operations', text: translate('svc.admin.operations_nav'), icon: <MonitorIcon /> },
          { to: '/settings/data-model', text: translate('svc.datamodel.nav'), icon: <SchemaIcon /> },
        ]
      : [];
  return [
    ...(mayReadSystem(catalogue, 'svc_files') ? [files] : []),
    ...adminOnly,
    ...(mayReadSystem(catalogue, 'svc_flows') ? [flows] : []),
  ];
}

interface Project {
  readonly name: string;
  readonly color: string | null;
}

let project: Project | null = null;
const listeners = new Set<() => void>();

/** Reads the project's name and colour again (after the settings change). */
export function reloadProject(): void {
  client.settings.read({ fields: ['project_name', 'project_color'] }).then(
    (s) => {
      project = {
        name: String(s?.project_name ?? ''),
        color: typeof s?.['project_color'] === 'string' ? s['project_color'] : null,
      };
      for (const listener of listeners) listener();
    },
    () => undefined,
  );
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** The project's name, after a swatch of its colour, at the start of the app bar. */
export function ProjectTitle() {
  const { permissions } = usePermissions<Catalogue | null>();
  const mayRead = mayReadSystem(permissions, 'svc_settings');
  useEffect(() => {
    if (mayRead) reloadProject();
  }, [mayRead]);
  const current = useSyncExternalStore(subscribe, () => project);
  if (!mayRead || current === null || current.name === '') return null;
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mr: 2, minWidth: 0 }} data-project>
      {current.color !== null && (
        <Box
          aria-hidden
          data-project-color={current.color}
          sx={{
            width: 16,
            height: 16,
            borderRadius: '4px',
            bgcolor: current.color,
            border: '2px solid #fff',
            flexShrink: 0,
          }}
        />
      )}
      <Typography component="span" variant="subtitle1" noWrap sx={{ display: { xs: 'none', sm: 'block' } }}>
        {current.name}
      </Typography>
    </Box>
  );
}
