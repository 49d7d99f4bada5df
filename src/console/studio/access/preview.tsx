/**
 * /admin/settings/roles/:id/preview, "View as this role": what the role may do per collection
 * and, for one collection it may read, its items and fields as the role's rules filter them,
 * read-only (GET /permissions/preview, administrators only; each look is in svc_activity). A
 * user of the role may stand for `$CURRENT_USER`.
 */
import { useEffect, useState } from 'react';
import { Alert, Box, Chip, MenuItem, Stack, TextField, Typography, useMediaQuery, type Theme } from '@mui/material';
import {
  Datagrid,
  ListContextProvider,
  ResourceContextProvider,
  SimpleList,
  TextField as TextColumn,
  useList,
  usePermissions,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import { Link, useParams } from 'react-router-dom';
import type { CollectionAccess } from '../../../client/index.js';
import { client } from '../../session.js';
import { collectionOf, type Catalogue } from '../catalogue.js';
import { AccessPage, errorText } from './common.js';

const NO_USER = '-';

export function RolePreviewPage() {
  const translate = useTranslate();
  const role = String(useParams()['id']);
  const [name, setName] = useState('');
  const [users, setUsers] = useState<{ id: string; email: string }[]>([]);
  const [user, setUser] = useState(NO_USER);
  const [access, setAccess] = useState<CollectionAccess | null>(null);
  const [collection, setCollection] = useState('');
  const [items, setItems] = useState<RaRecord[]>([]);
  /** The fields the role reads (react-admin's `id` is added to rows without one). */
  const [keys, setKeys] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const asUser = user === NO_USER ? undefined : user;

  useEffect(() => {
    void (async () => {
      try {
        const [read, members] = await Promise.all([
          client.roles.readOne(role, { fields: ['name'] }),
          client.users.readByQuery({
            fields: ['id', 'email'],
            filter: { role: { _eq: role } },
            sort: 'email',
            limit: -1,
          }),
        ]);
        setName(String(read?.name ?? ''));
        setUsers((members.data ?? []).map((u) => ({ id: String(u.id), email: String(u.email) })));
      } catch (e) {
        setError(errorText(e));
      }
    })();
  }, [role]);

  useEffect(() => {
    client.permissions
      .readRolePermissions(role, asUser)
      .then((a) => setAccess(a ?? {}))
      .catch((e: unknown) => setError(errorText(e)));
  }, [role, asUser]);

  useEffect(() => {
    if (collection === '') return;
    client.permissions
      .readRoleItems(role, collection, { limit: 50 }, asUser)
      .then((answer) => {
        setError(null);
        setKeys([...new Set((answer.data ?? []).flatMap((item) => Object.keys(item)))]);
        setItems(
          (answer.data ?? []).map((item, i) => ({ ...item, id: (item['id'] as RaRecord['id'] | undefined) ?? i })),
        );
      })
      .catch((e: unknown) => {
        setItems([]);
        setError(errorText(e));
      });
  }, [role, collection, asUser]);

  const readable = Object.entries(access ?? {})
    .filter(([c, rights]) => !c.startsWith('svc_') && rights.read.access !== 'none')
    .map(([c]) => c)
    .sort();
  // The collection's own field order (the key first), as its list shows them.
  const { permissions: catalogue } = usePermissions<Catalogue | null>();
  const order = (collectionOf(catalogue ?? undefined, collection)?.fields ?? []).map((f) => f.name);
  const rank = (k: string) => (order.includes(k) ? order.indexOf(k) : order.length);
  const columns = [...keys].sort((a, b) => rank(a) - rank(b));
  const list = useList({ data: items, perPage: 50 });
  const isSmall = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'));

  return (
    <AccessPage title={translate('svc.access.preview_title', { name })}>
      <Alert severity="info" sx={{ mb: 2 }}>
        {translate('svc.access.preview_hint')}{' '}
        <Link to={`/settings/roles/${role}`}>{translate('svc.access.back_to_role')}</Link>
      </Alert>
      <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ gap: 2, mb: 2 }}>
        <TextField
          select
          label={translate('svc.access.preview_user')}
          value={user}
          onChange={(e) => setUser(e.target.value)}
          sx={{ minWidth: 220 }}
        >
          <MenuItem value={NO_USER}>{translate('svc.access.preview_no_user')}</MenuItem>
          {users.map((u) => (
            <MenuItem key={u.id} value={u.id}>
              {u.email}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          select
          label={translate('svc.access.preview_collection')}
          value={collection}
          onChange={(e) => setCollection(e.target.value)}
          sx={{ minWidth: 220 }}
        >
          {readable.map((c) => (
            <MenuItem key={c} value={c}>
              {c}
            </MenuItem>
          ))}
        </TextField>
      </Stack>
      <Typography component="h2" variant="h6">
        {translate('svc.access.preview_collections')}
      </Typography>
      <Box
        component="ul"
        aria-label={translate('svc.access.preview_collections')}
        sx={{ listStyle: 'none', p: 0, display: 'flex', flexWrap: 'wrap', gap: 1 }}
      >
        {readable.length === 0 && <li>{translate('svc.access.preview_none')}</li>}
        {readable.map((c) => {
          const rights = access?.[c];
          const may = (['create', 'update', 'delete'] as const).filter((a) => rights?.[a].access !== 'none');
          return (
            <li key={c}>
              <Chip
                label={`${c}: ${[translate('svc.access.action_read'), ...may.map((a) => translate(`svc.access.action_${a}`))].join(', ')}`}
              />
            </li>
          );
        })}
      </Box>
      {error !== null && <Alert severity="error">{error}</Alert>}
      {collection !== '' && error === null && (
        <Box
          component="section"
          aria-label={translate('svc.access.preview_items', { collection })}
          sx={{ mt: 2, overflowX: 'auto' }}
        >
          <Typography component="h2" variant="h6">
            {translate('svc.access.preview_items', { collection })}
          </Typography>
          <ResourceContextProvider value={collection}>
            <ListContextProvider value={list}>
              {isSmall ? (
                <SimpleList
                  primaryText={(r) => String(r[columns.find((c) => c !== 'id') ?? 'id'] ?? '')}
                  secondaryText={(r) => String(r.id)}
                  linkType={false}
                />
              ) : (
                <Datagrid
                  bulkActionButtons={false}
                  rowClick={false}
                  empty={<Typography>{translate('svc.access.no_results')}</Typography>}
                >
                  {columns.map((c) => (
                    <TextColumn key={c} source={c} sortable={false} />
                  ))}
                </Datagrid>
              )}
            </ListContextProvider>
          </ResourceContextProvider>
        </Box>
      )}
    </AccessPage>
  );
}
