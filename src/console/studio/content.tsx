/**
 * A collection's item forms: create and edit (with duplicate, delete, the item's history and its
 * manual flows' buttons), and a singleton's one form.
 * What the role may not do is not offered. The list is list/collection-list.tsx.
 */
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
import { useItemRights } from './access/item-rights.js';
import { collectionOf, displayOf, type Catalogue, type CollectionInfo } from './catalogue.js';
import { ManualFlowButtons } from './flows/manual-flows.js';
import { FormFields } from './inputs/form-fields.js';
import { KeyboardSave } from './inputs/keyboard-save.js';
import { useItemStudio } from './item/item-studio.js';
import { collectionName, SINGLETON_ID } from './providers.js';

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
      to={`/content/${encodeURIComponent(collection.name)}/${encodeURIComponent(String(record.id))}?panel=history`}
      startIcon={<HistoryIcon />}
      size="small"
    >
      {translate('svc.item.history')}
    </MuiButton>
  );
}

/** Fields the service fills on a create: a copy gets its own values, not the original's. */
const SERVER_FILLED = new Set(['user-created', 'date-created', 'user-updated', 'date-updated', 'uuid']);

/**
 * What a duplicate starts from: the item's own values and its many-to-ones, without its key,
 * what the service fills on a create, the fields the role may not create, and its lists of
 * related rows (one-to-many, many-to-many, many-to-any, files, translations): those rows are
 * the original's, and the copy's create would take them from it.
 */
function duplicateOf(collection: CollectionInfo, record: Record<string, unknown>): Record<string, unknown> {
  const creatable = collection.writable.create;
  const copy: Record<string, unknown> = {};
  for (const field of collection.fields) {
    const kind = field.relation?.kind;
    if (field.isPrimaryKey || field.special.some((s) => SERVER_FILLED.has(s))) continue;
    if (kind !== undefined && kind !== 'm2o' && kind !== 'file') continue;
    if (creatable !== null && !creatable.includes(field.name)) continue;
    if (field.name in record) copy[field.name] = record[field.name];
  }
  return copy;
}

function DuplicateButton({ collection }: { collection: CollectionInfo }) {
  const translate = useTranslate();
  const record = useRecordContext();
  if (record === undefined) return null;
  return <CloneButton label={translate('svc.item.duplicate')} record={duplicateOf(collection, record)} />;
}

function EditActions({ collection }: { collection: CollectionInfo }) {
  return (
    <TopToolbar>
      <HistoryLink collection={collection} />
      <ManualFlowButtons collection={collection.name} />
      {collection.can.create && <DuplicateButton collection={collection} />}
    </TopToolbar>
  );
}

function EditToolbar({ collection }: { collection: CollectionInfo }) {
  return (
    <Toolbar sx={{ display: 'flex', justifyContent: 'space-between' }}>
      <SaveButton alwaysEnable={false} />
      <KeyboardSave />
      {collection.can.delete && <DeleteButton mutationMode="pessimistic" />}
    </Toolbar>
  );
}

function SaveToolbar() {
  return (
    <Toolbar>
      <SaveButton />
      <KeyboardSave />
    </Toolbar>
  );
}

/** `articles: My title`: the item by its collection's display template (its key without one). */
function ItemTitle({ collection }: { collection: CollectionInfo }) {
  const record = useRecordContext();
  if (record === undefined) return <span>{collection.name}</span>;
  const shown = displayOf(collection, record).trim();
  return <span>{`${collection.name}: ${shown === '' ? String(record.id) : shown}`}</span>;
}

export function ItemEdit() {
  const collection = useItemRights(useCollection());
  const studio = useItemStudio(collection);
  if (collection === undefined) return null;
  return (
    <Edit
      mutationMode="pessimistic"
      title={<ItemTitle collection={collection} />}
      actions={<EditActions collection={collection} />}
      redirect={false}
      {...studio.editProps}
    >
      <SimpleForm
        key={studio.formKey}
        toolbar={collection.can.update ? <EditToolbar collection={collection} /> : false}
        warnWhenUnsavedChanges
        noValidate
      >
        <FormFields collection={collection} isCreate={false} />
        {studio.watcher}
      </SimpleForm>
    </Edit>
  );
}

export function ItemCreate() {
  const collection = useCollection();
  if (collection === undefined) return null;
  return (
    <Create title={collection.name} redirect="edit">
      <SimpleForm toolbar={<SaveToolbar />} warnWhenUnsavedChanges noValidate>
        <FormFields collection={collection} isCreate />
      </SimpleForm>
    </Create>
  );
}

/**
 * A singleton collection's page (Directus's settings-like collections): its one item's form,
 * read and saved without a key; the first save makes the row. Nothing to list, duplicate or
 * delete.
 */
export function SingletonEdit() {
  const collection = useCollection();
  if (collection === undefined) return null;
  const mayWrite = collection.can.update || collection.can.create;
  return (
    <Edit id={SINGLETON_ID} mutationMode="pessimistic" title={collection.name} redirect={false} actions={false}>
      <SimpleForm toolbar={mayWrite ? <SaveToolbar /> : false} warnWhenUnsavedChanges noValidate>
        <FormFields collection={collection} isCreate={false} />
      </SimpleForm>
    </Edit>
  );
}
