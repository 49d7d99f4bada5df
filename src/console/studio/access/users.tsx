/**
 * /admin/users: the users (search by the API's `search`), invite by e-mail (POST /users/invite,
 * the link lands on /admin/accept-invite), create with a password, and per user: change role,
 * set a new password, suspend / archive / reactivate (`status`), reset TFA (POST
 * /users/:id/tfa/disable), delete.
 * Administrators only.
 */
import { useCallback, useEffect, useState } from 'react';
import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  MenuItem,
  Stack,
  TextField,
  Typography,
  useMediaQuery,
  type Theme,
} from '@mui/material';
import AddIcon from '@mui/icons-material/PersonAddOutlined';
import MailIcon from '@mui/icons-material/MailOutline';
import {
  Confirm,
  Datagrid,
  FunctionField,
  ListContextProvider,
  ResourceContextProvider,
  SimpleList,
  TextField as TextColumn,
  useList,
  useNotify,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import { useSearchParams } from 'react-router-dom';
import { client } from '../../session.js';
import { AccessPage, errorText } from './common.js';
import { PasswordForm } from './password-form.js';

interface UserRow extends RaRecord {
  readonly id: string;
  readonly email: string | null;
  readonly first_name: string | null;
  readonly last_name: string | null;
  readonly status: string;
  readonly role: string | null;
  readonly tfa_secret: string | null;
}
type Dialogs = 'invite' | 'create' | null;

export function UsersPage() {
  const translate = useTranslate();
  const notify = useNotify();
  const [params] = useSearchParams();
  const [search, setSearch] = useState(params.get('search') ?? '');
  const [users, setUsers] = useState<UserRow[]>([]);
  const [roles, setRoles] = useState<{ id: string; name: string }[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [dialog, setDialog] = useState<Dialogs>(null);
  const [managed, setManaged] = useState<UserRow | null>(null);
  const isSmall = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'));

  const load = useCallback(async () => {
    try {
      const answer = await client.users.readByQuery({
        fields: ['id', 'email', 'first_name', 'last_name', 'status', 'role', 'tfa_secret'],
        sort: 'email',
        limit: 200,
        ...(search.trim() === '' ? {} : { search: search.trim() }),
      });
      setUsers((answer.data ?? []) as UserRow[]);
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  }, [search]);
  useEffect(() => void load(), [load]);
  useEffect(() => {
    client.roles
      .readByQuery({ fields: ['id', 'name'], sort: 'name', limit: -1 })
      .then((answer) => setRoles((answer.data ?? []).map((r) => ({ id: String(r.id), name: String(r.name) }))))
      .catch((e: unknown) => setError(errorText(e)));
  }, []);

  const roleName = (id: string | null) => roles.find((r) => r.id === id)?.name ?? '';
  const list = useList({ data: users, perPage: 200 });
  const done = (message: string) => {
    notify(message, { type: 'success' });
    setDialog(null);
    setManaged(null);
    void load();
  };

  return (
    <AccessPage title={translate('svc.access.users')}>
      <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ gap: 1, mb: 2, alignItems: { sm: 'center' } }}>
        <TextField
          type="search"
          size="small"
          label={translate('svc.list.search')}
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <Button variant="contained" startIcon={<MailIcon />} onClick={() => setDialog('invite')}>
          {translate('svc.access.invite')}
        </Button>
        <Button variant="outlined" startIcon={<AddIcon />} onClick={() => setDialog('create')}>
          {translate('svc.access.create_user')}
        </Button>
      </Stack>
      {error !== null && (
        <Alert severity="error" sx={{ mb: 1 }}>
          {error}
        </Alert>
      )}
      <ResourceContextProvider value="svc_users">
        <ListContextProvider value={list}>
          {isSmall ? (
            <SimpleList<UserRow>
              primaryText={(u) => u.email ?? u.id}
              secondaryText={(u) =>
                `${roleName(u.role)} · ${translate(`svc.access.status_${u.status}`, { _: u.status })}`
              }
              rowClick={(_id, _resource, record) => {
                setManaged(record as UserRow);
                return false;
              }}
            />
          ) : (
            <Datagrid
              bulkActionButtons={false}
              rowClick={false}
              empty={<Typography>{translate('svc.access.no_results')}</Typography>}
            >
              <TextColumn source="email" label={translate('svc.access.email')} sortable={false} />
              <FunctionField<UserRow>
                label={translate('svc.access.name')}
                render={(u) => [u.first_name, u.last_name].filter(Boolean).join(' ')}
              />
              <FunctionField<UserRow> label={translate('svc.access.role')} render={(u) => roleName(u.role)} />
              <FunctionField<UserRow>
                label={translate('svc.access.status')}
                render={(u) => translate(`svc.access.status_${u.status}`, { _: u.status })}
              />
              <FunctionField<UserRow>
                label={translate('svc.access.actions')}
                render={(u) => (
                  <Button
                    size="small"
                    onClick={() => setManaged(u)}
                    aria-label={translate('svc.access.manage_user', { email: u.email })}
                  >
                    {translate('svc.access.manage')}
                  </Button>
                )}
              />
            </Datagrid>
          )}
        </ListContextProvider>
      </ResourceContextProvider>
      {dialog !== null && <NewUserDialog kind={dialog} roles={roles} onClose={() => setDialog(null)} onDone={done} />}
      {managed !== null && <ManageDialog user={managed} roles={roles} onClose={() => setManaged(null)} onDone={done} />}
    </AccessPage>
  );
}

function RoleSelect(props: { roles: { id: string; name: string }[]; value: string; onChange(value: string): void }) {
  const translate = useTranslate();
  return (
    <TextField
      select
      margin="dense"
      fullWidth
      label={translate('svc.access.role')}
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
    >
      {props.roles.map((r) => (
        <MenuItem key={r.id} value={r.id}>
          {r.name}
        </MenuItem>
      ))}
    </TextField>
  );
}

function NewUserDialog(props: {
  kind: 'invite' | 'create';
  roles: { id: string; name: string }[];
  onClose(): void;
  onDone(message: string): void;
}) {
  const { kind, roles } = props;
  const translate = useTranslate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [firstName, setFirstName] = useState('');
  const [role, setRole] = useState(roles[0]?.id ?? '');
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    try {
      if (kind === 'invite') {
        await client.users.invites.send(email, role);
        props.onDone('svc.access.invited');
      } else {
        await client.users.createOne({
          email,
          password,
          first_name: firstName === '' ? null : firstName,
          role,
          status: 'active',
        });
        props.onDone('svc.item.created');
      }
    } catch (e) {
      setError(errorText(e));
    }
  };
  const title = translate(kind === 'invite' ? 'svc.access.invite' : 'svc.access.create_user');
  return (
    <Dialog open onClose={props.onClose} aria-labelledby="new-user-title" fullWidth maxWidth="sm">
      <DialogTitle id="new-user-title">{title}</DialogTitle>
      <DialogContent>
        {error !== null && <Alert severity="error">{error}</Alert>}
        <TextField
          autoFocus
          margin="dense"
          fullWidth
          type="email"
          label={translate('svc.access.email')}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          required
        />
        {kind === 'create' && (
          <>
            <TextField
              margin="dense"
              fullWidth
              label={translate('svc.access.first_name')}
              value={firstName}
              onChange={(e) => setFirstName(e.target.value)}
            />
            <TextField
              margin="dense"
              fullWidth
              type="password"
              autoComplete="new-password"
              label={translate('svc.access.password')}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </>
        )}
        <RoleSelect roles={roles} value={role} onChange={setRole} />
      </DialogContent>
      <DialogActions>
        <Button onClick={props.onClose}>{translate('ra.action.cancel')}</Button>
        <Button variant="contained" disabled={email === '' || role === ''} onClick={() => void submit()}>
          {title}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function ManageDialog(props: {
  user: UserRow;
  roles: { id: string; name: string }[];
  onClose(): void;
  onDone(message: string): void;
}) {
  const { user, roles } = props;
  const translate = useTranslate();
  const [role, setRole] = useState(user.role ?? '');
  const [error, setError] = useState<string | null>(null);
  const [isDeleting, setIsDeleting] = useState(false);
  const act = async (action: () => Promise<unknown>, message: string) => {
    try {
      await action();
      props.onDone(message);
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    }
  };
  const status = (value: string) => act(() => client.users.updateOne(user.id, { status: value }), 'svc.item.saved');
  return (
    <Dialog open onClose={props.onClose} aria-labelledby="manage-title" fullWidth maxWidth="sm">
      <DialogTitle id="manage-title">{user.email}</DialogTitle>
      <DialogContent>
        {error !== null && <Alert severity="error">{error}</Alert>}
        <RoleSelect roles={roles} value={role} onChange={setRole} />
        <Button
          disabled={role === (user.role ?? '')}
          onClick={() => void act(() => client.users.updateOne(user.id, { role }), 'svc.item.saved')}
        >
          {translate('svc.access.change_role')}
        </Button>
        <PasswordForm
          whose="user"
          save={(password) => act(() => client.users.updateOne(user.id, { password }), 'svc.access.password_saved')}
        />
        <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1, mt: 2 }}>
          {user.status !== 'suspended' && (
            <Button variant="outlined" onClick={() => void status('suspended')}>
              {translate('svc.access.suspend')}
            </Button>
          )}
          {user.status !== 'archived' && (
            <Button variant="outlined" onClick={() => void status('archived')}>
              {translate('svc.access.archive')}
            </Button>
          )}
          {user.status !== 'active' && (
            <Button variant="outlined" onClick={() => void status('active')}>
              {translate('svc.access.reactivate')}
            </Button>
          )}
          {user.tfa_secret !== null && (
            <Button
              variant="outlined"
              onClick={() => void act(() => client.users.disableTfa(user.id), 'svc.access.tfa_reset')}
            >
              {translate('svc.access.reset_tfa')}
            </Button>
          )}
          <Button color="error" variant="outlined" onClick={() => setIsDeleting(true)}>
            {translate('ra.action.delete')}
          </Button>
        </Stack>
        <Confirm
          isOpen={isDeleting}
          title={translate('svc.access.delete_user', { email: user.email })}
          content={translate('svc.access.delete_user_hint')}
          onConfirm={() => void act(() => client.users.deleteOne(user.id), 'svc.item.deleted')}
          onClose={() => setIsDeleting(false)}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={props.onClose}>{translate('ra.action.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}
