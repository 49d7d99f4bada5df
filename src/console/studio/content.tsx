/**
 * A collection's items: the list (react-admin's Datagrid with a column picker, sort, paging,
 * search and a raw JSON filter; simple cards on a phone), and the create / edit forms (with
 * duplicate, delete and the item's history). What the role may not do is not offered.
 */
import { Button as MuiButton, useMediaQuery, type Theme } from '@mui/material';
import HistoryIcon from '@mui/icons-material/History';
import {
  BulkDeleteButton,
  CloneButton,
  Create,
  CreateButton,
  DatagridConfigurable,
  DeleteButton,
  Edit,
  List,
  SaveButton,
  SearchInput,
  SelectColumnsButton,
  SimpleForm,
  SimpleList,
  TextInput,
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
import { columnOf, defaultColumns, visibleFields } from './fields.js';
import { FormFields } from './inputs/form-fields.js';
import { KeyboardSave } from './inputs/keyboard-save.js';
import { LiveRefresh, useItemStudio } from './item/item-studio.js';
import { collectionName } from './providers.js';

function useCollection(): CollectionInfo | undefined {
  const resource = useResourceContext() ?? '';
  const { permissions } = usePermissions<Catalogue | null>();
  return collectionOf(permissions ?? undefined, collectionName(resource));
}

function ListActions({ collection }: { collection: CollectionInfo }) {
  return (
    <TopToolbar>
      <LiveRefresh collection={collection} />
      <SelectColumnsButton preferenceKey={`studio.${collection.name}.columns`} />
      {collection.can.create && <CreateButton />}
    </TopToolbar>
  );
}

export function CollectionList() {
  const collection = useCollection();
  const translate = useTranslate();
  const isSmall = useMediaQuery<Theme>((theme) => theme.breakpoints.down('sm'));
  if (collection === undefined) return null;
  const filters = [
    <SearchInput
      key="q"
      source="q"
      alwaysOn
      placeholder={translate('svc.list.search')}
      inputProps={{ 'aria-label': translate('svc.list.search') }}
    />,
    <TextInput key="json" source="json" label={translate('svc.list.filter_json')} alwaysOn resettable />,
  ];
  const columns = defaultColumns(collection);
  const fields = visibleFields(collection);
  return (
    <List
      filters={filters}
      actions={<ListActions collection={collection} />}
      sort={{ field: collection.primaryKey, order: 'ASC' }}
      perPage={25}
      title={collection.name}
      storeKey={`studio.${collection.name}.list`}
      disableSyncWithLocation={false}
    >
      {isSmall ? (
        <SimpleList
          primaryText={(record) => displayOf(collection, record)}
          secondaryText={(record) => `${collection.primaryKey} ${String(record.id)}`}
          linkType="edit"
        />
      ) : (
        <DatagridConfigurable
          preferenceKey={`studio.${collection.name}.columns`}
          rowClick={collection.can.update || collection.can.read ? 'edit' : false}
          omit={fields.map((f) => f.name).filter((name) => !columns.includes(name))}
          bulkActionButtons={collection.can.delete ? <BulkDeleteButton mutationMode="pessimistic" /> : false}
        >
          {fields.map(columnOf)}
        </DatagridConfigurable>
      )}
    </List>
  );
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
      <KeyboardSave />
      {collection.can.delete && <DeleteButton mutationMode="pessimistic" />}
    </Toolbar>
  );
}

function CreateToolbar() {
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
      <SimpleForm toolbar={<CreateToolbar />} warnWhenUnsavedChanges noValidate>
        <FormFields collection={collection} isCreate />
      </SimpleForm>
    </Create>
  );
}
