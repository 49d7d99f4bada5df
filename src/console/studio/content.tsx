/**
 * A collection's item forms: create and edit (with duplicate, delete and the item's history).
 * What the role may not do is not offered. The list is list/collection-list.tsx.
 */
import type { ReactElement } from 'react';
import { Button as MuiButton } from '@mui/material';
import HistoryIcon from '@mui/icons-material/History';
import {
  CloneButton,
  Create,
  DeleteButton,
  Edit,
  SaveButton,
  SimpleForm,
  Toolbar,
  TopToolbar,
  usePermissions,
  useRecordContext,
  useResourceContext,
  useTranslate,
} from 'react-admin';
import { Link } from 'react-router-dom';
import { collectionOf, mayWrite, type Catalogue, type CollectionInfo } from './catalogue.js';
import { inputOf, visibleFields } from './fields.js';
import { collectionName } from './providers.js';

function useCollection(): CollectionInfo | undefined {
  const resource = useResourceContext() ?? '';
  const { permissions } = usePermissions<Catalogue | null>();
  return collectionOf(permissions ?? undefined, collectionName(resource));
}

function HistoryLink({ collection }: { collection: CollectionInfo }) {
  const record = useRecordContext();
  const translate = useTranslate();
  if (record === undefined) return null;
  return (
    <MuiButton
      component={Link}
      to={`/content/${encodeURIComponent(collection.name)}/${encodeURIComponent(String(record.id))}/history`}
      startIcon={<HistoryIcon />}
      size="small"
    >
      {translate('svc.item.history')}
    </MuiButton>
  );
}

function EditActions({ collection }: { collection: CollectionInfo }) {
  const translate = useTranslate();
  return (
    <TopToolbar>
      <HistoryLink collection={collection} />
      {collection.can.create && <CloneButton label={translate('svc.item.duplicate')} />}
    </TopToolbar>
  );
}

function EditToolbar({ collection }: { collection: CollectionInfo }) {
  return (
    <Toolbar sx={{ display: 'flex', justifyContent: 'space-between' }}>
      <SaveButton alwaysEnable={false} />
      {collection.can.delete && <DeleteButton mutationMode="pessimistic" />}
    </Toolbar>
  );
}

function form(collection: CollectionInfo, isCreate: boolean): ReactElement[] {
  const action = isCreate ? 'create' : 'update';
  const writable = (field: string) => mayWrite(collection, action, field);
  return visibleFields(collection)
    .map((f) => inputOf(f, { isCreate, writable }))
    .filter((input): input is ReactElement => input !== null);
}

function ItemTitle({ collection }: { collection: CollectionInfo }) {
  const record = useRecordContext();
  return <span>{record === undefined ? collection.name : `${collection.name} ${String(record.id)}`}</span>;
}

export function ItemEdit() {
  const collection = useCollection();
  if (collection === undefined) return null;
  return (
    <Edit
      mutationMode="pessimistic"
      title={<ItemTitle collection={collection} />}
      actions={<EditActions collection={collection} />}
      redirect={false}
    >
      <SimpleForm toolbar={collection.can.update ? <EditToolbar collection={collection} /> : false}>
        {form(collection, false)}
      </SimpleForm>
    </Edit>
  );
}

export function ItemCreate() {
  const collection = useCollection();
  if (collection === undefined) return null;
  return (
    <Create title={collection.name} redirect="edit">
      <SimpleForm>{form(collection, true)}</SimpleForm>
    </Create>
  );
}
