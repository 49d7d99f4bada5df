/**
 * One-to-many, many-to-many, many-to-any and files fields inside the item form (as Directus's
 * list interfaces): the related items by their display template (files by thumbnail), add
 * existing (a picker with search), create new and edit (a dialog with the related form), remove,
 * and reorder (drag, or the move buttons by keyboard) when the relation has a sort field.
 * Nothing is written until the item is saved: the field's form value becomes the nested payload
 * (entries.ts), so the item and its relations go in one request.
 */
import { useEffect, useRef, useState, type DragEvent } from 'react';
import {
  Box,
  FormHelperText,
  FormLabel,
  IconButton,
  List,
  ListItem,
  ListItemText,
  Menu,
  MenuItem,
  Stack,
  Tooltip,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ArrowDownwardIcon from '@mui/icons-material/ArrowDownward';
import ArrowUpwardIcon from '@mui/icons-material/ArrowUpward';
import DeleteIcon from '@mui/icons-material/Close';
import DragIndicatorIcon from '@mui/icons-material/DragIndicator';
import EditIcon from '@mui/icons-material/Edit';
import LinkIcon from '@mui/icons-material/Link';
import {
  LinearProgress,
  useInput,
  useNotify,
  usePermissions,
  useRecordContext,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import { client } from '../../session.js';
import { collectionOf, displayOf, type Catalogue, type FieldInfo, type RelationInfo } from '../catalogue.js';
import {
  collectionOfEntry,
  isObject,
  moved,
  newUid,
  payloadOf,
  relatedOf,
  type EntriesState,
  type Entry,
  type Item,
  type Key,
} from './entries.js';
import { FileDialog } from './file-dialog.js';
import { FileLinks, FileThumbnail } from './file-input.js';
import { ItemDialog } from './item-dialog.js';
import { PickerDialog } from './picker-dialog.js';
import { fileName, type InputOf } from './shared.js';
import { TextButton } from './text-button.js';

type ListRelation = Exclude<RelationInfo, { kind: 'm2o' | 'file' }>;

/** What a dialog is open for. */
type Open =
  | { readonly kind: 'pick'; readonly collection: string }
  | { readonly kind: 'create'; readonly collection: string }
  | { readonly kind: 'edit'; readonly uid: string }
  | { readonly kind: 'files' };

/** The collection whose rows the field lists: the related one (o2m) or the junction. */
const listedCollection = (relation: ListRelation): string =>
  relation.kind === 'o2m' ? relation.collection : relation.junction;

/** Reads the rows of `relation` for the item `parent`, in their sort order. */
async function readRows(relation: ListRelation, parent: Key, pk: string): Promise<Item[]> {
  const fields =
    relation.kind === 'o2m'
      ? ['*']
      : relation.kind === 'm2a'
        ? ['*', ...relation.allowedCollections.map((c) => `${relation.junctionField}:${c}.*`)]
        : ['*', `${relation.junctionField}.*`];
  const answer = await client.items(listedCollection(relation)).readByQuery({
    filter: { [relation.field]: { _eq: parent } } as never,
    sort: [relation.sortField ?? pk],
    limit: -1,
    fields,
  });
  return (answer.data ?? []) as Item[];
}

export interface RelatedListProps {
  readonly field: FieldInfo;
  readonly relation: ListRelation;
  readonly disabled: boolean;
  readonly inputOf: InputOf;
}

export function RelatedList({ field, relation, disabled, inputOf }: RelatedListProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const record = useRecordContext();
  const { permissions } = usePermissions<Catalogue | null>();
  const catalogue = permissions ?? undefined;
  const { field: input, id } = useInput({ source: field.name });
  const listed = collectionOf(catalogue, listedCollection(relation));
  const pk = listed?.primaryKey ?? 'id';
  const [state, setState] = useState<EntriesState>({ entries: [], removed: [] });
  const [isLoading, setLoading] = useState(false);
  const [open, setOpen] = useState<Open>();
  const [menu, setMenu] = useState<HTMLElement | null>(null);
  /** The payload this input last set, as JSON (the form may hold a copy of it). */
  const sent = useRef<string | undefined>(undefined);
  const dragged = useRef<number | undefined>(undefined);
  const parent = record?.id as Key | undefined;

  // Loaded when the form shows the record's value (first render, and after a save resets it);
  // not when the value is the payload this input just set.
  const value = JSON.stringify(input.value ?? null);
  useEffect(() => {
    if (value === sent.current) return;
    sent.current = undefined;
    if (parent === undefined) {
      setState({ entries: [], removed: [] });
      return;
    }
    let isCurrent = true;
    setLoading(true);
    readRows(relation, parent, pk)
      .then((rows) => {
        if (!isCurrent) return;
        const entries = rows.map((row): Entry => ({ uid: newUid(), key: row[pk] as Key, row, changes: {} }));
        setState({ entries, removed: [] });
      })
      .catch((error: unknown) => {
        if (isCurrent) notify(error instanceof Error ? error.message : String(error), { type: 'error' });
      })
      .finally(() => {
        if (isCurrent) setLoading(false);
      });
    return () => {
      isCurrent = false;
    };
  }, [value, parent, relation, pk, notify]);

  const change = (next: EntriesState) => {
    setState(next);
    const payload = payloadOf(relation, next, pk);
    sent.current = JSON.stringify(payload);
    input.onChange(payload);
  };
  const add = (entries: Entry[]) => change({ ...state, entries: [...state.entries, ...entries] });
  const remove = (entry: Entry) =>
    change({
      entries: state.entries.filter((e) => e.uid !== entry.uid),
      removed: relation.kind === 'o2m' || entry.key === undefined ? state.removed : [...state.removed, entry.key],
    });
  const move = (from: number, to: number) => change({ ...state, entries: moved(state.entries, from, to) });

  /** A new row for `item` of `collection`: picked (it has a key) or to be created (`isNew`). */
  const entryFor = (collection: string, item: Item, isNew: boolean): Entry => {
    const related = collectionOf(catalogue, collection);
    const key = isNew ? undefined : ((item as RaRecord).id as Key);
    const { id: _id, ...values } = item;
    const own = related?.primaryKey === 'id' || related === undefined ? item : values;
    if (relation.kind === 'o2m')
      return isNew
        ? { uid: newUid(), key: undefined, row: own, changes: own }
        : { uid: newUid(), key, row: own, changes: {} };
    const kind = relation.kind === 'm2a' ? { [relation.collectionField]: collection } : {};
    return {
      uid: newUid(),
      key: undefined,
      row: { ...kind, [relation.junctionField]: own },
      changes: { ...kind, [relation.junctionField]: isNew ? own : key },
    };
  };

  const labelOf = (entry: Entry): string => {
    const collection = collectionOfEntry(relation, entry);
    const related = relatedOf(relation, entry);
    if (relation.kind === 'files') return fileName(related);
    const text = displayOf(collectionOf(catalogue, collection), related);
    return relation.kind === 'm2a' ? `${collection}: ${text}` : text;
  };

  const canSort = relation.sortField !== undefined && !disabled;
  const targets =
    relation.kind === 'm2a' ? relation.allowedCollections : relation.kind === 'files' ? [] : [relation.collection];
  const editing = open?.kind === 'edit' ? state.entries.find((e) => e.uid === open.uid) : undefined;
  const labelId = `${id}-label`;
  const fieldLabel = field.name;

  const saveEdit = (entry: Entry, edits: Item) => {
    const entries = state.entries.map((e): Entry => {
      if (e.uid !== entry.uid) return e;
      if (relation.kind === 'o2m') return { ...e, changes: { ...e.changes, ...edits } };
      const collection = collectionOfEntry(relation, e);
      const related = relatedOf(relation, e);
      const relatedPk = collectionOf(catalogue, collection)?.primaryKey ?? 'id';
      const current = e.changes[relation.junctionField];
      const next = isObject(current) ? { ...current, ...edits } : { [relatedPk]: related[relatedPk], ...edits };
      // Many-to-any: the item's collection goes with it (the API writes the item there).
      const kind = relation.kind === 'm2a' ? { [relation.collectionField]: collection } : {};
      return { ...e, changes: { ...e.changes, ...kind, [relation.junctionField]: next } };
    });
    setOpen(undefined);
    change({ ...state, entries });
  };

  return (
    <Box sx={{ my: 1, width: '100%' }} role="group" aria-labelledby={labelId}>
      <FormLabel id={labelId}>{fieldLabel}</FormLabel>
      {isLoading ? <LinearProgress /> : null}
      {!isLoading && state.entries.length === 0 ? (
        <Typography color="text.secondary" sx={{ py: 1 }}>
          {translate('svc.relations.empty')}
        </Typography>
      ) : null}
      <List aria-label={fieldLabel} dense>
        {state.entries.map((entry, index) => {
          const item = labelOf(entry);
          const related = relatedOf(relation, entry);
          return (
            <ListItem
              key={entry.uid}
              divider
              draggable={canSort}
              onDragStart={() => {
                dragged.current = index;
              }}
              onDragOver={(event: DragEvent) => {
                if (canSort) event.preventDefault();
              }}
              onDrop={(event: DragEvent) => {
                event.preventDefault();
                if (dragged.current !== undefined) move(dragged.current, index);
                dragged.current = undefined;
              }}
              sx={{ flexWrap: 'wrap', gap: 1, px: 0 }}
            >
              {canSort ? <DragIndicatorIcon color="action" aria-hidden sx={{ cursor: 'grab' }} /> : null}
              {relation.kind === 'files' ? <FileThumbnail file={related} size={48} /> : null}
              <ListItemText primary={item} sx={{ overflowWrap: 'anywhere', minWidth: 120 }} />
              <Stack direction="row" sx={{ flexWrap: 'wrap' }}>
                {relation.kind === 'files' && related['id'] !== undefined ? <FileLinks file={related} /> : null}
                {canSort ? (
                  <>
                    <Tooltip title={translate('svc.relations.move_up', { item })}>
                      <span>
                        <IconButton
                          aria-label={translate('svc.relations.move_up', { item })}
                          disabled={index === 0}
                          onClick={() => move(index, index - 1)}
                        >
                          <ArrowUpwardIcon />
                        </IconButton>
                      </span>
                    </Tooltip>
                    <Tooltip title={translate('svc.relations.move_down', { item })}>
                      <span>
                        <IconButton
                          aria-label={translate('svc.relations.move_down', { item })}
                          disabled={index === state.entries.length - 1}
                          onClick={() => move(index, index + 1)}
                        >
                          <ArrowDownwardIcon />
                        </IconButton>
                      </span>
                    </Tooltip>
                  </>
                ) : null}
                {relation.kind !== 'files' &&
                !disabled &&
                collectionOf(catalogue, collectionOfEntry(relation, entry)) !== undefined ? (
                  <IconButton
                    aria-label={translate('svc.relations.edit_item', { item })}
                    onClick={() => setOpen({ kind: 'edit', uid: entry.uid })}
                  >
                    <EditIcon />
                  </IconButton>
                ) : null}
                {disabled ? null : (
                  <IconButton
                    aria-label={translate('svc.relations.remove_item', { item })}
                    onClick={() => remove(entry)}
                  >
                    <DeleteIcon />
                  </IconButton>
                )}
              </Stack>
            </ListItem>
          );
        })}
      </List>
      {disabled ? null : (
        <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap' }} useFlexGap>
          {relation.kind === 'files' ? (
            <TextButton
              label={translate('svc.relations.add_files', { field: fieldLabel })}
              onClick={() => setOpen({ kind: 'files' })}
              variant="outlined"

              icon={<AddIcon />}
            />
          ) : relation.kind === 'm2a' ? (
            <>
              <TextButton
                label={translate('svc.relations.add_to', { field: fieldLabel })}
                onClick={(event) => setMenu(event.currentTarget)}
                variant="outlined"
                aria-haspopup="menu"

                icon={<AddIcon />}
              />
              <Menu anchorEl={menu} open={menu !== null} onClose={() => setMenu(null)}>
                {targets.flatMap((collection) => [
                  <MenuItem
                    key={`create-${collection}`}
                    onClick={() => {
                      setMenu(null);
                      setOpen({ kind: 'create', collection });
                    }}
                  >
                    {translate('svc.relations.create_in', { collection })}
                  </MenuItem>,
                  <MenuItem
                    key={`pick-${collection}`}
                    onClick={() => {
                      setMenu(null);
                      setOpen({ kind: 'pick', collection });
                    }}
                  >
                    {translate('svc.relations.pick_in', { collection })}
                  </MenuItem>,
                ])}
              </Menu>
            </>
          ) : (
            <>
              <TextButton
                label={translate('svc.relations.add_existing', { field: fieldLabel })}
                onClick={() => setOpen({ kind: 'pick', collection: relation.collection })}
                variant="outlined"

                icon={<LinkIcon />}
              />
              {collectionOf(catalogue, relation.collection)?.can.create === true ? (
                <TextButton
                  label={translate('svc.relations.create_new', { field: fieldLabel })}
                  onClick={() => setOpen({ kind: 'create', collection: relation.collection })}
                  variant="outlined"

                  icon={<AddIcon />}
                />
              ) : null}
            </>
          )}
        </Stack>
      )}
      {field.note === undefined ? null : <FormHelperText>{field.note}</FormHelperText>}
      {open?.kind === 'pick' ? (
        <PickerDialog
          collection={open.collection}
          info={collectionOf(catalogue, open.collection)}
          title={translate('svc.relations.pick_title', { collection: open.collection })}
          isMultiple
          exclude={state.entries.map(
            (e) => relatedOf(relation, e)[collectionOf(catalogue, open.collection)?.primaryKey ?? 'id'],
          )}
          onPick={(items) => {
            setOpen(undefined);
            add(items.map((item) => entryFor(open.collection, item, false)));
          }}
          onClose={() => setOpen(undefined)}
        />
      ) : null}
      {open?.kind === 'create' && collectionOf(catalogue, open.collection) !== undefined ? (
        <ItemDialog
          collection={collectionOf(catalogue, open.collection) as NonNullable<ReturnType<typeof collectionOf>>}
          record={{}}
          isCreate
          title={translate('svc.relations.create_title', { collection: open.collection })}
          inputOf={inputOf}
          {...(relation.kind === 'o2m' ? { without: relation.field } : {})}
          onSave={(values) => {
            setOpen(undefined);
            add([entryFor(open.collection, values, true)]);
          }}
          onClose={() => setOpen(undefined)}
        />
      ) : null}
      {editing !== undefined && collectionOf(catalogue, collectionOfEntry(relation, editing)) !== undefined ? (
        <ItemDialog
          collection={
            collectionOf(catalogue, collectionOfEntry(relation, editing)) as NonNullable<
              ReturnType<typeof collectionOf>
            >
          }
          record={relatedOf(relation, editing)}
          isCreate={false}
          title={translate('svc.relations.edit_item', { item: labelOf(editing) })}
          inputOf={inputOf}
          {...(relation.kind === 'o2m' ? { without: relation.field } : {})}
          onSave={(edits) => saveEdit(editing, edits)}
          onClose={() => setOpen(undefined)}
        />
      ) : null}
      {open?.kind === 'files' ? (
        <FileDialog
          isMultiple
          onPick={(files) => {
            setOpen(undefined);
            add(files.map((file) => entryFor('svc_files', file, false)));
          }}
          onClose={() => setOpen(undefined)}
        />
      ) : null}
    </Box>
  );
}
