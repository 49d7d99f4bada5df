/**
 * /admin/settings/data-model (administrators only; loaded on demand): the collections by folder,
 * a new collection, the schema snapshot; `first-run` (an install without collections: create the
 * first one, then its fields); `<collection>` its fields (fields-page.tsx).
 */
import { useEffect, useState, type ReactElement } from 'react';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogContent,
  DialogTitle,
  List,
  ListItem,
  ListItemButton,
  ListItemIcon,
  ListItemText,
  ListSubheader,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import FolderIcon from '@mui/icons-material/FolderOutlined';
import TableIcon from '@mui/icons-material/TableRowsOutlined';
import { Loading, Title, useAuthenticated, usePermissions, useTranslate } from 'react-admin';
import { Link, Route, Routes, useNavigate, useParams } from 'react-router-dom';
import { errorText } from '../../dom.js';
import { client } from '../../session.js';
import type { Catalogue } from '../catalogue.js';
import { CollectionForm } from './collection-form.js';
import { FieldsPage } from './fields-page.js';
import type { SchemaView } from './plan.js';
import { SnapshotPanel } from './snapshot-panel.js';

interface Entry {
  readonly collection: string;
  readonly group: string | undefined;
  readonly isFolder: boolean;
}

/** Every collection (the admin reads all), with each table's primary key: what relations need. */
function useSchema(version: unknown): { entries: Entry[]; view: SchemaView; error: string | null; isLoading: boolean } {
  const [state, setState] = useState<{ entries: Entry[]; view: SchemaView; error: string | null; isLoading: boolean }>({
    entries: [],
    view: { keys: new Map() },
    error: null,
    isLoading: true,
  });
  useEffect(() => {
    let isCurrent = true;
    Promise.all([client.collections.readAll(), client.fields.readAll()])
      .then(([collections, fields]) => {
        if (!isCurrent) return;
        const keys = new Map<string, { field: string; type: string }>();
        for (const f of fields ?? [])
          if (f.schema?.is_primary_key === true) keys.set(f.collection, { field: f.field, type: f.type });
        const entries = (collections.data ?? [])
          .filter((c) => !c.collection.startsWith('svc_'))
          .map((c) => ({
            collection: c.collection,
            group: typeof c.meta?.['group'] === 'string' ? c.meta['group'] : undefined,
            isFolder: c.schema === null,
          }));
        setState({ entries, view: { keys }, error: null, isLoading: false });
      })
      .catch((e: unknown) => isCurrent && setState((s) => ({ ...s, error: errorText(e), isLoading: false })));
    return () => {
      isCurrent = false;
    };
  }, [version]);
  return state;
}

function Overview(props: { readonly entries: readonly Entry[]; readonly folders: readonly string[] }): ReactElement {
  const translate = useTranslate();
  const navigate = useNavigate();
  const [isCreating, setIsCreating] = useState(false);
  const groups = [...new Set(props.entries.map((e) => e.group))].sort((a, b) => (a ?? '').localeCompare(b ?? ''));
  return (
    <>
      <Title title={translate('svc.datamodel.title')} />
      <Button variant="contained" startIcon={<AddIcon />} onClick={() => setIsCreating(true)}>
        {translate('svc.datamodel.create_collection')}
      </Button>
      {props.entries.length === 0 && <Typography sx={{ mt: 2 }}>{translate('svc.datamodel.empty')}</Typography>}
      {groups.map((group) => {
        const heading = group ?? translate('svc.datamodel.top_level');
        const id = `dm-group-${heading.replace(/\W+/g, '-')}`;
        return (
          <List
            key={heading}
            aria-labelledby={id}
            subheader={
              <ListSubheader id={id} disableSticky>
                {heading}
              </ListSubheader>
            }
          >
            {props.entries
              .filter((e) => e.group === group)
              .map((e) => (
                <ListItem key={e.collection} disablePadding>
                  {' '}
                  <ListItemButton component={Link} to={`/settings/data-model/${e.collection}`}>
                    <ListItemIcon sx={{ minWidth: 36 }}>{e.isFolder ? <FolderIcon /> : <TableIcon />}</ListItemIcon>
                    <ListItemText
                      primary={e.collection}
                      secondary={e.isFolder ? translate('svc.datamodel.folder') : undefined}
                    />
                  </ListItemButton>
                </ListItem>
              ))}
          </List>
        );
      })}
      <SnapshotPanel />
      <Dialog
        open={isCreating}
        onClose={() => setIsCreating(false)}
        fullWidth
        maxWidth="sm"
        aria-labelledby="new-title"
      >
        <DialogTitle id="new-title">{translate('svc.datamodel.create_collection')}</DialogTitle>
        <DialogContent>
          <CollectionForm
            folders={props.folders}
            onCreated={(name) => {
              setIsCreating(false);
              navigate(`/settings/data-model/${name}`);
            }}
          />
        </DialogContent>
      </Dialog>
    </>
  );
}

function FirstRun(props: { readonly folders: readonly string[] }): ReactElement {
  const translate = useTranslate();
  const navigate = useNavigate();
  return (
    <Box>
      <Title title={translate('svc.datamodel.title')} />
      <Typography variant="h5" component="h2" gutterBottom>
        {translate('svc.datamodel.first_run_title')}
      </Typography>
      <Typography sx={{ mb: 2 }}>{translate('svc.datamodel.first_run_help')}</Typography>
      <CollectionForm
        folders={props.folders}
        onCreated={(name) => navigate(`/settings/data-model/${name}?first-run`)}
      />
    </Box>
  );
}

function Collection(props: { readonly view: SchemaView; readonly folders: readonly string[] }): ReactElement {
  const { collection = '' } = useParams();
  return <FieldsPage key={collection} collection={collection} view={props.view} folders={props.folders} />;
}

export default function DataModelPage(): ReactElement {
  useAuthenticated();
  const translate = useTranslate();
  const { permissions, isPending } = usePermissions<Catalogue | null>();
  const schema = useSchema(permissions);
  useEffect(() => {
    document.title = `${translate('svc.datamodel.title')} · ${translate('svc.app.title')}`;
  }, [translate]);
  if (isPending) return <Loading />;
  if (permissions?.me?.adminAccess !== true)
    return (
      <Alert severity="error" role="alert" sx={{ mt: 2 }}>
        {translate('svc.datamodel.admins_only')}
      </Alert>
    );
  const folders = schema.entries.filter((e) => e.isFolder).map((e) => e.collection);
  return (
    <Box sx={{ py: 2 }}>
      {schema.error !== null && (
        <Alert severity="error" role="alert">
          {schema.error}
        </Alert>
      )}
      <Routes>
        <Route index element={<Overview entries={schema.entries} folders={folders} />} />
        <Route path="first-run" element={<FirstRun folders={folders} />} />
        <Route path=":collection" element={<Collection view={schema.view} folders={folders} />} />
      </Routes>
    </Box>
  );
}
