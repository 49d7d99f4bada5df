/**
 * What the caller may do with the system collections the sidebar reads (svc_revisions,
 * svc_comments, svc_users, svc_versions), from GET /permissions/me, read once per session: a
 * panel the role may not use is not offered (its refusal would only be noise).
 */
import { useQuery } from '@tanstack/react-query';
import { usePermissions } from 'react-admin';
import type { CollectionAccess } from '../../../client/index.js';
import { client } from '../../session.js';
import type { Catalogue } from '../catalogue.js';

export type SystemAction = 'create' | 'read' | 'update' | 'delete';

export function useSystemAccess(): (collection: string, action: SystemAction) => boolean {
  const { permissions } = usePermissions<Catalogue | null>();
  const isAdmin = permissions?.me?.adminAccess === true;
  const { data } = useQuery({
    queryKey: ['studio.item.access', permissions?.me?.id ?? null],
    enabled: !isAdmin,
    staleTime: Infinity,
    queryFn: async () =>
      (await client.permissions.readUserPermissions().catch(() => undefined)) ?? ({} as CollectionAccess),
  });
  return (collection, action) => {
    if (isAdmin) return true;
    const access = data?.[collection]?.[action]?.access;
    return access !== undefined && access !== 'none';
  };
}
