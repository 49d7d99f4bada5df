/** The navigation's access entries: roles and users for administrators, the profile for everyone. */
import type { ReactNode } from 'react';
import BadgeIcon from '@mui/icons-material/BadgeOutlined';
import GroupIcon from '@mui/icons-material/GroupOutlined';
import AccountIcon from '@mui/icons-material/AccountCircleOutlined';
import { usePermissions, useTranslate } from 'react-admin';
import type { Catalogue } from '../catalogue.js';

export function useAccessEntries(): { to: string; text: string; icon: ReactNode }[] {
  const translate = useTranslate();
  const { permissions } = usePermissions<Catalogue | null>();
  const profile = { to: '/profile', text: translate('svc.access.profile'), icon: <AccountIcon /> };
  if (permissions?.me?.adminAccess !== true) return [profile];
  return [
    { to: '/settings/roles', text: translate('svc.access.roles'), icon: <BadgeIcon /> },
    { to: '/users', text: translate('svc.access.users'), icon: <GroupIcon /> },
    profile,
  ];
}
