/**
 * The audit log (/admin/activity, administrators): svc_activity in react-admin's list, filtered
 * by user, action, collection and a time range; each row links to its item and, when the write
 * kept one, to the item's history where its revision is.
 */
import { useEffect, useState } from 'react';
import { LinearProgress, Link as MuiLink, useMediaQuery, type Theme } from '@mui/material';
import { Link } from 'react-router-dom';
import {
  Datagrid,
  DateField,
  DateTimeInput,
  FunctionField,
  List,
  SelectInput,
  SimpleList,
  TextField,
  TextInput,
  useAuthenticated,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import { client } from '../../session.js';

const ACTIONS = ['create', 'update', 'delete', 'revert', 'comment', 'login', 'export', 'run'].map((id) => ({
  id,
  name: id,
}));

function ItemLink({ record }: { record: RaRecord }) {
  const translate = useTranslate();
  const collection = String(record['collection'] ?? '');
  const item = String(record['item'] ?? '');
  if (collection === '' || item === '' || collection.startsWith('svc_') || record['action'] === 'delete')
    return <span>{item}</span>;
  const revisions = Array.isArray(record['revisions']) ? (record['revisions'] as unknown[]) : [];
  const base = `/content/${encodeURIComponent(collection)}/${encodeURIComponent(item)}`;
  return (
    <span>
      <MuiLink component={Link} to={base} onClick={(e) => e.stopPropagation()}>
        {translate('svc.admin.open_item', { collection, item })}
      </MuiLink>
      {revisions.length > 0 && (
        <>
          {' · '}
          <MuiLink component={Link} to={`${base}/history`} onClick={(e) => e.stopPropagation()}>
            {translate('svc.admin.open_revision', { id: String(revisions[0]) })}
          </MuiLink>
        </>
      )}
    </span>
  );
}

export default function ActivityPage() {
  const { isPending } = useAuthenticated();
  return isPending ? <LinearProgress /> : <ActivityList />;
}

function ActivityList() {
  const translate = useTranslate();
  const [users, setUsers] = useState<{ id: string; name: string }[]>([]);
  const [collections, setCollections] = useState<{ id: string; name: string }[]>([]);
  useEffect(() => {
    client.users.readByQuery({ fields: ['id', 'email', 'first_name', 'last_name'], limit: -1 }).then(
      (r) =>
        setUsers(
          (r.data ?? []).map((u) => ({
            id: String(u.id),
            name: [u.first_name, u.last_name].filter(Boolean).join(' ') || String(u.email ?? u.id),
          })),
        ),
      () => undefined,
    );
    client.collections.readAll().then(
      (r) => setCollections((r.data ?? []).map((c) => ({ id: c.collection, name: c.collection }))),
      () => undefined,
    );
  }, []);
  const isSmall = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'));
  const filters = [
    <SelectInput key="user" source="user" label="svc.admin.user" choices={users} alwaysOn />,
    <SelectInput key="action" source="action" label="svc.admin.action" choices={ACTIONS} alwaysOn />,
    <SelectInput key="collection" source="collection" label="svc.admin.collection" choices={collections} alwaysOn />,
    <DateTimeInput key="from" source="timestamp@_gte" label="svc.admin.from" />,
    <DateTimeInput key="to" source="timestamp@_lte" label="svc.admin.to" />,
    <TextInput key="item" source="item" label="svc.admin.item" />,
  ];
  return (
    <List
      resource="svc_activity"
      title={translate('svc.admin.activity_title')}
      filters={filters}
      sort={{ field: 'timestamp', order: 'DESC' }}
      queryOptions={{ meta: { fields: ['id', 'action', 'user', 'timestamp', 'collection', 'item', 'revisions'] } }}
      exporter={false}
      storeKey="svc.activity"
    >
      {isSmall ? (
        <SimpleList
          linkType={false}
          primaryText={(r: RaRecord) => `${String(r['action'])} · ${String(r['collection'])}`}
          secondaryText={(r: RaRecord) => <ItemLink record={r} />}
          tertiaryText={(r: RaRecord) => new Date(String(r['timestamp'])).toLocaleString()}
        />
      ) : (
        <Datagrid bulkActionButtons={false} rowClick={false}>
          <DateField source="timestamp" label="svc.admin.when" showTime />
          <TextField source="action" label="svc.admin.action" />
          <FunctionField
            label="svc.admin.user"
            render={(r: RaRecord) => users.find((u) => u.id === r['user'])?.name ?? String(r['user'] ?? '')}
          />
          <TextField source="collection" label="svc.admin.collection" />
          <FunctionField label="svc.admin.item" render={(r: RaRecord) => <ItemLink record={r} />} />
        </Datagrid>
      )}
    </List>
  );
}
