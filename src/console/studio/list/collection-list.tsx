/**
 * A collection's items (`/admin/content/<collection>`): react-admin's List with search, the
 * filter builder (its JSON switch is the raw escape hatch), sort on any column, the column
 * picker, a table or cards layout, archived items hidden unless asked for, the list as it was
 * at a moment (read-only), bulk edit / delete with Undo and export. The view is kept per user
 * as their last view of the collection (svc_presets without a bookmark), and can be saved as a
 * bookmark for the user or their role; `?bookmark=<id>` opens one (bookmark-controls.tsx saves
 * into it).
 */
import { useEffect, useMemo, useRef, useState, type ReactElement } from 'react';
import {
  Alert,
  Box,
  Button as MuiButton,
  Collapse,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  Stack,
  Switch,
  TextField,
  ToggleButton,
  ToggleButtonGroup,
  useMediaQuery,
  type Theme,
} from '@mui/material';
import FilterIcon from '@mui/icons-material/FilterList';
import TableIcon from '@mui/icons-material/TableRowsOutlined';
import CardsIcon from '@mui/icons-material/GridViewOutlined';
import WidthIcon from '@mui/icons-material/WidthNormal';
import {
  BulkActionsToolbar,
  CreateButton,
  DatagridBody,
  DatagridConfigurable,
  List,
  ListContextProvider,
  Pagination,
  SearchInput,
  SelectColumnsButton,
  SimpleList,
  TopToolbar,
  useGetList,
  useListContext,
  useNotify,
  usePermissions,
  useResourceContext,
  useTranslate,
} from 'react-admin';
import { useSearchParams } from 'react-router-dom';
import { archiveFilter, collectionOf, displayOf, type Catalogue, type CollectionInfo } from '../catalogue.js';
import { columnOf, defaultColumns, visibleFields } from '../fields.js';
import { FilterBuilder } from '../filter-builder.js';
import { LiveRefresh } from '../item/item-studio.js';
import { collectionName } from '../providers.js';
import { AsOfSlider } from './as-of-slider.js';
import { BookmarkControls } from './bookmark-controls.js';
import { BulkDeleteWithUndo, BulkEditButton, BulkExportButton, ExportButton } from './bulk-actions.js';
import { CardsLayout, imageFieldOf } from './cards.js';
import { KeyboardRow } from './keyboard-row.js';
import type { ListMeta } from './list-read.js';
import { readBookmark, readLastView, viewOf, writeLastView } from './presets.js';
import { maySaveBookmark, type LayoutName, type View } from './view.js';
import { jsonFilter, useColumns, useCurrentView, type ViewProps, type ViewState } from './view-state.js';

/** How many conditions a filter holds (its operators outside `_and` / `_or`). */
function countConditions(filter: unknown): number {
  if (Array.isArray(filter)) return filter.reduce((n: number, f) => n + countConditions(f), 0);
  if (typeof filter !== 'object' || filter === null) return 0;
  let n = 0;
  for (const [key, value] of Object.entries(filter))
    n += key === '_and' || key === '_or' ? countConditions(value) : key.startsWith('_') ? 1 : countConditions(value);
  return n;
}

export function CollectionList(): ReactElement | null {
  const resource = useResourceContext() ?? '';
  const { permissions } = usePermissions<Catalogue | null>();
  const collection = collectionOf(permissions ?? undefined, collectionName(resource));
  const translate = useTranslate();
  const [state, setState] = useState<ViewState>({
    layout: 'tabular',
    showArchived: false,
    asOf: '',
    widths: {},
    bookmark: null,
  });
  const asOf = state.asOf === '' ? undefined : new Date(state.asOf);
  const meta = useMemo((): ListMeta => {
    const archived = collection === undefined || state.showArchived ? undefined : archiveFilter(collection);
    return {
      ...(archived === undefined ? {} : { filter: archived }),
      ...(asOf === undefined || Number.isNaN(asOf.getTime()) ? {} : { asOf: asOf.toISOString() }),
      count: 'apart',
    };
  }, [collection, state.showArchived, state.asOf]);
  if (collection === undefined || permissions === null || permissions === undefined) return null;
  const isReadOnly = meta.asOf !== undefined;
  const filters = [
    <SearchInput
      key="q"
      source="q"
      alwaysOn
      placeholder={translate('svc.list.search')}
      inputProps={{ 'aria-label': translate('svc.list.search') }}
    />,
  ];
  return (
    <List
      filters={filters}
      actions={<ListActions collection={collection} isReadOnly={isReadOnly} />}
      sort={{ field: collection.primaryKey, order: 'ASC' }}
      perPage={25}
      title={state.bookmark === null ? collection.name : `${collection.name} · ${state.bookmark.name}`}
      storeKey={`studio.${collection.name}.list`}
      disableSyncWithLocation={false}
      queryOptions={{ meta }}
      pagination={<CountedPagination meta={meta} />}
      // A moment before any item existed keeps the list's controls (the way back to now), not
      // react-admin's "no items yet" page.
      {...(isReadOnly ? { empty: false as const } : {})}
      // On a phone the create button floats over the bottom right corner (react-admin's: 56 px
      // high, 60 px up): room below the pager, so no control has to stay under it.
      sx={{ pb: { xs: 17, sm: 0 } }}
    >
      <ListBody collection={collection} catalogue={permissions} state={state} setState={setState} />
    </List>
  );
}

/**
 * The pager, with the count read in a request of its own: on a large table the count costs far
 * more than the page (docs/console.md), so the rows paint first and the total follows.
 */
function CountedPagination({ meta }: { meta: ListMeta }): ReactElement {
  const list = useListContext();
  const { total } = useGetList(list.resource, {
    pagination: { page: 1, perPage: 0 },
    filter: list.filterValues,
    meta: { ...(meta.filter === undefined ? {} : { filter: meta.filter }), count: 'only' },
  });
  return (
    <ListContextProvider value={{ ...list, total: total ?? list.total } as typeof list}>
      <Pagination />
    </ListContextProvider>
  );
}

function ListActions({ collection, isReadOnly }: { collection: CollectionInfo; isReadOnly: boolean }) {
  const { filterValues } = useListContext();
  const search = typeof filterValues['q'] === 'string' && filterValues['q'] !== '' ? filterValues['q'] : undefined;
  return (
    <TopToolbar sx={{ flexWrap: 'wrap' }}>
      <LiveRefresh collection={collection} />
      <SelectColumnsButton preferenceKey={`studio.${collection.name}.columns`} />
      <ExportButton collection={collection} filter={jsonFilter(filterValues['json']) ?? undefined} search={search} />
      {collection.can.create && !isReadOnly && <CreateButton />}
    </TopToolbar>
  );
}

function ListBody(props: ViewProps): ReactElement {
  const { collection, state } = props;
  const translate = useTranslate();
  const isSmall = useMediaQuery<Theme>((theme) => theme.breakpoints.down('sm'));
  const isReadOnly = state.asOf !== '';
  const bulk =
    isReadOnly || (!collection.can.update && !collection.can.delete) ? (
      false
    ) : (
      <>
        {collection.can.update && <BulkEditButton collection={collection} />}
        <BulkExportButton collection={collection} />
        {collection.can.delete && <BulkDeleteWithUndo collection={collection} />}
      </>
    );
  const columns = defaultColumns(collection);
  const fields = visibleFields(collection);
  const widths = Object.fromEntries(
    Object.entries(state.widths).map(([name, px]) => [`& .column-${name}`, { width: px, minWidth: px }]),
  );
  return (
    <>
      <PresetSync {...props} />
      <ViewBar {...props} />
      {isReadOnly && (
        <Alert severity="info" sx={{ mx: 2, mb: 1 }}>
          {translate('svc.list.as_of_note', { moment: new Date(state.asOf).toLocaleString() })}
        </Alert>
      )}
      {isSmall ? (
        <SimpleList
          primaryText={(record) => displayOf(collection, record)}
          secondaryText={(record) => `${collection.primaryKey} ${String(record.id)}`}
          linkType={isReadOnly ? false : 'edit'}
        />
      ) : state.layout === 'cards' ? (
        <>
          {bulk !== false && <BulkActionsToolbar>{bulk}</BulkActionsToolbar>}
          <CardsLayout collection={collection} selectable={bulk !== false} />
        </>
      ) : (
        <DatagridConfigurable
          preferenceKey={`studio.${collection.name}.columns`}
          rowClick={isReadOnly ? false : 'edit'}
          omit={fields.map((f) => f.name).filter((name) => !columns.includes(name))}
          bulkActionButtons={bulk}
          body={<DatagridBody row={<KeyboardRow />} />}
          sx={widths}
        >
          {fields.map(columnOf)}
        </DatagridConfigurable>
      )}
    </>
  );
}

/** The filter, layout, archive, moment and bookmark controls above the items. */
function ViewBar(props: ViewProps): ReactElement {
  const { collection, catalogue, state, setState } = props;
  const translate = useTranslate();
  const { filterValues, displayedFilters, setFilters } = useListContext();
  const filter = jsonFilter(filterValues['json']);
  const [isFilterOpen, setFilterOpen] = useState(false);
  const latest = useRef(filterValues);
  latest.current = filterValues;
  const pending = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(pending.current), []);
  const conditions = countConditions(filter);
  const canCards = imageFieldOf(collection) !== undefined || collection.displayTemplate !== undefined;
  return (
    <Box sx={{ px: 2, pb: 1, display: 'flex', flexDirection: 'column', gap: 1 }}>
      <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
        <MuiButton
          startIcon={<FilterIcon />}
          onClick={() => setFilterOpen(!isFilterOpen)}
          aria-expanded={isFilterOpen}
          aria-controls="list-filter"
          size="small"
        >
          {conditions === 0 ? translate('svc.list.filter') : translate('svc.list.filter_count', { count: conditions })}
        </MuiButton>
        <ToggleButtonGroup
          size="small"
          exclusive
          value={state.layout}
          aria-label={translate('svc.list.layout')}
          onChange={(_e, layout: LayoutName | null) => {
            if (layout !== null) setState((s) => ({ ...s, layout }));
          }}
        >
          <ToggleButton value="tabular" aria-label={translate('svc.list.table')}>
            <TableIcon fontSize="small" />
          </ToggleButton>
          <ToggleButton
            value="cards"
            aria-label={translate('svc.list.cards')}
            disabled={!canCards && state.layout !== 'cards'}
          >
            <CardsIcon fontSize="small" />
          </ToggleButton>
        </ToggleButtonGroup>
        {state.layout === 'tabular' && <WidthsButton {...props} />}
        {collection.archive !== undefined && (
          <FormControlLabel
            control={
              <Switch
                size="small"
                checked={state.showArchived}
                onChange={(e) => setState((s) => ({ ...s, showArchived: e.target.checked }))}
              />
            }
            label={translate('svc.list.show_archived')}
          />
        )}
        <TextField
          size="small"
          type="datetime-local"
          label={translate('svc.list.as_of')}
          value={state.asOf}
          onChange={(e) => setState((s) => ({ ...s, asOf: e.target.value }))}
          slotProps={{ inputLabel: { shrink: true }, htmlInput: { step: 1 } }}
          sx={{ width: 230, maxWidth: '100%' }}
        />
        <AsOfSlider {...props} />
        {state.asOf !== '' && (
          <MuiButton size="small" onClick={() => setState((s) => ({ ...s, asOf: '' }))}>
            {translate('svc.list.as_of_now')}
          </MuiButton>
        )}
        <BookmarkControls {...props} />
      </Stack>
      <Collapse in={isFilterOpen} id="list-filter" unmountOnExit>
        <FilterBuilder
          collection={collection}
          catalogue={catalogue}
          value={filter}
          quantifiers
          label={translate('svc.list.filter_label')}
          onChange={(next) => {
            // Debounced here, applied over the list's filter values of that moment (the search's
            // own debounced change may have landed in between).
            clearTimeout(pending.current);
            pending.current = setTimeout(() => {
              const json = next === null ? undefined : JSON.stringify(next);
              setFilters({ ...latest.current, json }, displayedFilters, false);
            }, 400);
          }}
        />
      </Collapse>
    </Box>
  );
}

/** Column widths (px) of the shown columns, kept in the view (`layout_options.tabular.widths`). */
function WidthsButton(props: ViewProps): ReactElement {
  const { collection, state, setState } = props;
  const translate = useTranslate();
  const [fields] = useColumns(collection);
  const [open, setOpen] = useState(false);
  const shown = fields ?? defaultColumns(collection);
  return (
    <>
      <MuiButton size="small" startIcon={<WidthIcon />} onClick={() => setOpen(true)}>
        {translate('svc.list.widths')}
      </MuiButton>
      <Dialog open={open} onClose={() => setOpen(false)} aria-labelledby="widths-title" fullWidth maxWidth="xs">
        <DialogTitle id="widths-title">{translate('svc.list.widths')}</DialogTitle>
        <DialogContent>
          {shown.map((name) => (
            <TextField
              key={name}
              type="number"
              fullWidth
              size="small"
              label={name}
              helperText={translate('svc.list.width_hint')}
              value={state.widths[name] ?? ''}
              slotProps={{ htmlInput: { min: 40, max: 1200, step: 10 } }}
              sx={{ mt: 1 }}
              onChange={(e) => {
                const px = Number(e.target.value);
                setState((s) => {
                  const widths = { ...s.widths };
                  if (e.target.value === '' || !Number.isFinite(px) || px <= 0) delete widths[name];
                  else widths[name] = px;
                  return { ...s, widths };
                });
              }}
            />
          ))}
        </DialogContent>
        <DialogActions>
          <MuiButton onClick={() => setOpen(false)}>{translate('ra.action.close')}</MuiButton>
        </DialogActions>
      </Dialog>
    </>
  );
}

/** Each collection's last-view write under way: a list opened meanwhile reads after it. */
const lastViewWrites = new Map<string, Promise<unknown>>();

/**
 * Opens the bookmark `?bookmark=` names, or else the user's last view of the collection, and
 * keeps the last view as the user changes it (not while a bookmark is open).
 */
function PresetSync(props: ViewProps): null {
  const { collection, catalogue, state, setState } = props;
  const me = catalogue.me;
  const notify = useNotify();
  const [params] = useSearchParams();
  const bookmarkParam = params.get('bookmark');
  const [view, apply] = useCurrentView(props);
  const lastId = useRef<number | undefined>(undefined);
  const [isLoaded, setLoaded] = useState(false);
  const applyRef = useRef(apply);
  applyRef.current = apply;

  useEffect(() => {
    if (me === null) return;
    let isCurrent = true;
    if (bookmarkParam !== null) {
      readBookmark(Number(bookmarkParam))
        .then((preset) => {
          if (!isCurrent || preset === undefined) return;
          const saved = viewOf(preset);
          applyRef.current(saved);
          const canSave = maySaveBookmark(preset, me);
          setState((s) => ({ ...s, bookmark: { id: preset.id, name: String(preset.bookmark), saved, canSave } }));
        })
        .catch((error: unknown) => notify((error as Error).message, { type: 'error' }))
        .finally(() => setLoaded(true));
    } else {
      Promise.resolve(lastViewWrites.get(collection.name))
        .then(() => readLastView(collection.name, me.id))
        .then((preset) => {
          if (!isCurrent || preset === undefined) return;
          lastId.current = preset.id;
          // A URL with its own list parameters (a shared link) wins over the last view.
          if (!window.location.search.includes('filter=') && !window.location.search.includes('sort='))
            applyRef.current(viewOf(preset));
        })
        .catch(() => undefined)
        .finally(() => setLoaded(true));
    }
    return () => {
      isCurrent = false;
    };
  }, [bookmarkParam, collection.name, me, notify, setState]);

  const text = JSON.stringify(view);
  const saved = useRef<string | null>(null);
  // The save a change waits to make (changes in quick succession make one).
  const pending = useRef<(() => void) | null>(null);
  useEffect(() => {
    pending.current = null;
    if (!isLoaded || me === null || state.bookmark !== null) return undefined;
    if (saved.current === null) {
      saved.current = text;
      return undefined;
    }
    if (saved.current === text) return undefined;
    const save = () => {
      pending.current = null;
      saved.current = text;
      const writing = writeLastView(collection.name, me.id, JSON.parse(text) as View, lastId.current)
        .then((id) => {
          lastId.current = id;
        })
        .catch(() => undefined);
      lastViewWrites.set(collection.name, writing);
    };
    pending.current = save;
    const timer = setTimeout(save, 800);
    return () => clearTimeout(timer);
  }, [text, isLoaded, me, state.bookmark, collection.name]);
  // Leaving the list before the wait is over still keeps the last change.
  useEffect(() => () => pending.current?.(), []);
  return null;
}
