/**
 * /admin/settings/roles: the roles (name, description, how many users, admin or app access),
 * a new one by name; /admin/settings/roles/:id: the role's settings (icon, description, IP
 * allow-list, TFA enforcement, app and admin access), its permissions (permissions.tsx), its
 * users, delete, and "View as this role" (preview.tsx). Administrators only.
 */
import { useCallback, useEffect, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  List,
  ListItem,
  ListItemButton,
  ListItemText,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import VisibilityIcon from '@mui/icons-material/VisibilityOutlined';
import { Confirm, useNotify, useTranslate } from 'react-admin';
import { Link, useNavigate, useParams } from 'react-router-dom';
import type { RoleType } from '../../../client/index.js';
import { client } from '../../session.js';
import { AccessPage, errorText, listOf } from './common.js';
import { PermissionsMatrix } from './permissions.js';

type Role = Pick<
  RoleType,
  'id' | 'name' | 'icon' | 'description' | 'ip_access' | 'enforce_tfa' | 'admin_access' | 'app_access'
>;
interface Member {
  readonly id: string;
  readonly email: string | null;
  readonly first_name: string | null;
  readonly last_name: string | null;
  readonly status: string;
}

const ROLE_FIELDS = ['id', 'name', 'icon', 'description', 'ip_access', 'enforce_tfa', 'admin_access', 'app_access'];

export function RolesPage() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const [roles, setRoles] = useState<(Role & { count: number })[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [isCreating, setIsCreating] = useState(false);
  const [name, setName] = useState('');

  useEffect(() => {
    void (async () => {
      try {
        const [list, users] = await Promise.all([
          client.roles.readByQuery({ fields: ROLE_FIELDS, sort: 'name', limit: -1 }),
          client.users.readByQuery({ aggregate: { count: '*' }, groupBy: ['role'] }),
        ]);
        const counts = new Map<string, number>();
        for (const row of (users.data ?? []) as { role?: unknown; count?: unknown }[])
          counts.set(String(row.role), Number(row.count));
        setRoles((list.data ?? []).map((r) => ({ ...(r as Role), count: counts.get(String(r.id)) ?? 0 })));
      } catch (e) {
        setError(errorText(e));
      }
    })();
  }, []);

  const create = async () => {
    try {
      const role = await client.roles.createOne({ name, app_access: true }, { fields: ['id'] });
      navigate(`/settings/roles/${String(role?.id)}`);
    } catch (e) {
      setError(errorText(e));
      setIsCreating(false);
    }
  };

  return (
    <AccessPage title={translate('svc.access.roles')}>
      <Stack direction="row" sx={{ mb: 1, flexWrap: 'wrap', gap: 1 }}>
        <Button variant="contained" startIcon={<AddIcon />} onClick={() => setIsCreating(true)}>
          {translate('svc.access.create_role')}
        </Button>
        <Button component={Link} to="/users">
          {translate('svc.access.users')}
        </Button>
      </Stack>
      {error !== null && <Alert severity="error">{error}</Alert>}
      <List aria-label={translate('svc.access.roles')}>
        {(roles ?? []).map((r) => (
          <ListItem key={r.id} disablePadding divider>
            <ListItemButton component={Link} to={`/settings/roles/${r.id}`}>
              <ListItemText
                primary={r.name}
                secondary={[
                  r.description,
                  translate('svc.access.user_count', { smart_count: r.count }),
                  r.admin_access ? translate('svc.access.admin_access') : null,
                  r.app_access ? translate('svc.access.app_access') : null,
                ]
                  .filter((s) => s !== null && s !== '')
                  .join(' · ')}
              />
            </ListItemButton>
          </ListItem>
        ))}
      </List>
      <Dialog open={isCreating} onClose={() => setIsCreating(false)} aria-labelledby="create-role-title">
        <DialogTitle id="create-role-title">{translate('svc.access.create_role')}</DialogTitle>
        <DialogContent>
          <TextField
            autoFocus
            margin="dense"
            label={translate('svc.access.name')}
            value={name}
            onChange={(e) => setName(e.target.value)}
            fullWidth
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setIsCreating(false)}>{translate('ra.action.cancel')}</Button>
          <Button variant="contained" disabled={name.trim() === ''} onClick={() => void create()}>
            {translate('ra.action.create')}
          </Button>
        </DialogActions>
      </Dialog>
    </AccessPage>
  );
}

export function RoleEditPage() {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const id = String(useParams()['id']);
  const [role, setRole] = useState<Role | null>(null);
  const [ipText, setIpText] = useState('');
  const [members, setMembers] = useState<Member[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [isDeleting, setIsDeleting] = useState(false);

  const load = useCallback(async () => {
    try {
      const [read, users] = await Promise.all([
        client.roles.readOne(id, { fields: ROLE_FIELDS }),
        client.users.readByQuery({
          fields: ['id', 'email', 'first_name', 'last_name', 'status'],
          filter: { role: { _eq: id } },
          sort: 'email',
          limit: -1,
        }),
      ]);
      const r = read as Role;
      setRole(r);
      setIpText((r.ip_access ?? []).join(', '));
      setMembers((users.data ?? []) as Member[]);
    } catch (e) {
      setError(errorText(e));
    }
  }, [id]);
  useEffect(() => void load(), [load]);

  const save = async () => {
    if (role === null) return;
    try {
      const { id: _key, ...changes } = role;
      await client.roles.updateOne(id, { ...changes, ip_access: listOf(ipText) });
      setError(null);
      notify('svc.item.saved', { type: 'success' });
    } catch (e) {
      setError(errorText(e));
    }
  };
  const remove = async () => {
    setIsDeleting(false);
    try {
      await client.roles.deleteOne(id);
      notify('svc.item.deleted', { type: 'success' });
      navigate('/settings/roles');
    } catch (e) {
      setError(errorText(e));
    }
  };

  const set = <K extends keyof Role>(key: K, value: Role[K]) =>
    setRole((r) => (r === null ? r : { ...r, [key]: value }));
  const flag = (key: 'app_access' | 'admin_access' | 'enforce_tfa', label: string) => (
    <FormControlLabel
      control={<Switch checked={role?.[key] === true} onChange={(e) => set(key, e.target.checked)} />}
      label={translate(label)}
    />
  );

  return (
    <AccessPage title={role === null ? translate('svc.access.roles') : role.name}>
      {error !== null && (
        <Alert severity="error" sx={{ mb: 1 }}>
          {error}
        </Alert>
      )}
      {role !== null && (
        <>
          <Box
            component="form"
            aria-label={translate('svc.access.settings')}
            onSubmit={(e) => {
              e.preventDefault();
              void save();
            }}
            sx={{ display: 'grid', gap: 1, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}
          >
            <TextField
              label={translate('svc.access.name')}
              value={role.name}
              onChange={(e) => set('name', e.target.value)}
              required
            />
            <TextField
              label={translate('svc.access.icon')}
              value={role.icon ?? ''}
              onChange={(e) => set('icon', e.target.value === '' ? null : e.target.value)}
              helperText={translate('svc.access.icon_hint')}
            />
            <TextField
              label={translate('svc.access.description')}
              value={role.description ?? ''}
              onChange={(e) => set('description', e.target.value === '' ? null : e.target.value)}
              multiline
            />
            <TextField
              label={translate('svc.access.ip_access')}
              value={ipText}
              onChange={(e) => setIpText(e.target.value)}
              helperText={translate('svc.access.ip_access_hint')}
            />
            <Stack sx={{ gridColumn: '1 / -1' }}>
              {flag('app_access', 'svc.access.app_access')}
              {flag('admin_access', 'svc.access.admin_access')}
              {flag('enforce_tfa', 'svc.access.enforce_tfa')}
            </Stack>
            <Stack direction="row" sx={{ gridColumn: '1 / -1', flexWrap: 'wrap', gap: 1 }}>
              <Button type="submit" variant="contained">
                {translate('ra.action.save')}
              </Button>
              <Button component={Link} to={`/settings/roles/${id}/preview`} startIcon={<VisibilityIcon />}>
                {translate('svc.access.view_as')}
              </Button>
              <Button color="error" onClick={() => setIsDeleting(true)}>
                {translate('ra.action.delete')}
              </Button>
            </Stack>
          </Box>
          <Confirm
            isOpen={isDeleting}
            title={translate('svc.access.delete_role', { name: role.name })}
            content={translate('svc.access.delete_role_hint')}
            onConfirm={() => void remove()}
            onClose={() => setIsDeleting(false)}
          />
          <Typography component="h2" variant="h6" sx={{ mt: 3 }}>
            {translate('svc.access.permissions')}
          </Typography>
          {role.admin_access ? (
            <Alert severity="info">{translate('svc.access.admin_all')}</Alert>
          ) : (
            <PermissionsMatrix role={id} />
          )}
          <Typography component="h2" variant="h6" sx={{ mt: 3 }}>
            {translate('svc.access.role_users')}
          </Typography>
          {members.length === 0 ? (
            <Typography color="text.secondary">{translate('svc.access.no_users')}</Typography>
          ) : (
            <List dense aria-label={translate('svc.access.role_users')}>
              {members.map((m) => (
                <ListItem key={m.id} disablePadding>
                  <ListItemButton component={Link} to={`/users?search=${encodeURIComponent(m.email ?? '')}`}>
                    <ListItemText
                      primary={[m.first_name, m.last_name].filter(Boolean).join(' ') || m.email}
                      secondary={m.email}
                    />
                    <Chip size="small" label={translate(`svc.access.status_${m.status}`, { _: m.status })} />
                  </ListItemButton>
                </ListItem>
              ))}
            </List>
          )}
        </>
      )}
    </AccessPage>
  );
}
