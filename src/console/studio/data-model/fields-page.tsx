/**
 * /admin/settings/data-model/<collection>: the collection's fields in their order (meta.sort),
 * each with its type, interface and relation; add, edit, delete (confirming what is lost), and
 * reorder with the keyboard (move up / down buttons) or by dragging, saved as meta.sort. Deleting
 * the collection itself names its items. With `?first-run`, a banner leads on to its items.
 */
import { useCallback, useEffect, useState, type DragEvent, type ReactElement } from 'react';
import {
  Alert,
  Box,
  Button,
  IconButton,
  List,
  ListItem,
  ListItemText,
  Stack,
  Tooltip,
  Typography,
} from '@mui/material';
import ArrowUpIcon from '@mui/icons-material/ArrowUpward';
import ArrowDownIcon from '@mui/icons-material/ArrowDownward';
import DeleteIcon from '@mui/icons-material/DeleteOutline';
import EditIcon from '@mui/icons-material/EditOutlined';
import AddIcon from '@mui/icons-material/Add';
import SettingsIcon from '@mui/icons-material/SettingsOutlined';
import { Title, useTranslate } from 'react-admin';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import type { FieldType } from '../../../client/index.js';
import { errorText } from '../../dom.js';
import { client } from '../../session.js';
import { CollectionSettings } from './collection-settings.js';
import { FieldDialog } from './field-dialog.js';
import { PlanDialog } from './plan-dialog.js';
import {
  countValues,
  planCollectionDelete,
  planFieldDelete,
  planFieldOrder,
  type Plan,
  type SchemaView,
} from './plan.js';

/** The collection's fields, the key first, then by meta.sort (unsorted last, in the API's order). */
function ordered(fields: readonly FieldType[]): FieldType[] {
  const rank = (f: FieldType) =>
    f.schema?.is_primary_key === true ? -Infinity : typeof f.meta?.['sort'] === 'number' ? f.meta['sort'] : Infinity;
  return fields
    .map((f, i) => ({ f, i }))
    .sort((a, b) => (rank(a.f) === rank(b.f) ? a.i - b.i : rank(a.f) < rank(b.f) ? -1 : 1))
    .map(({ f }) => f);
}

export function FieldsPage(props: {
  readonly collection: string;
  readonly view: SchemaView;
  readonly folders: readonly string[];
}): ReactElement {
  const { collection, view } = props;
  // A folder has no table: nothing to add or order, only its settings and its deletion.
  const isFolder = props.folders.includes(collection);
  const translate = useTranslate();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const isFirstRun = search.has('first-run');
  const [fields, setFields] = useState<FieldType[] | null>(null);
  const [order, setOrder] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<{ field: FieldType | undefined } | null>(null);
  const [plan, setPlan] = useState<Plan | null>(null);
  const [afterPlan, setAfterPlan] = useState<'reload' | 'leave'>('reload');
  const [isSetting, setIsSetting] = useState(false);
  const [dragged, setDragged] = useState<string | null>(null);
  const [version, setVersion] = useState(0);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  useEffect(() => {
    let isCurrent = true;
    client.fields
      .readMany(collection)
      .then((answer) => {
        if (!isCurrent) return;
        const list = ordered(answer.data ?? []);
        setFields(list);
        setOrder(list.map((f) => f.field));
        setError(null);
      })
      .catch((e: unknown) => isCurrent && setError(errorText(e)));
    return () => {
      isCurrent = false;
    };
  }, [collection, version]);

  const byName = new Map((fields ?? []).map((f) => [f.field, f]));
  const isReordered = fields !== null && order.join('/') !== fields.map((f) => f.field).join('/');
  const [focused, setFocused] = useState<string | null>(null);
  // A moved row's button keeps the focus (the keyboard goes on moving it).
  useEffect(() => {
    if (focused === null) return;
    document.querySelector<HTMLButtonElement>(`[data-move="${focused}"]`)?.focus();
    setFocused(null);
  }, [focused]);
  const move = (field: string, by: number, button?: string) => {
    const from = order.indexOf(field);
    const to = from + by;
    if (from < 0 || to < 0 || to >= order.length) return;
    const next = [...order];
    next.splice(from, 1);
    next.splice(to, 0, field);
    setOrder(next);
    if (button !== undefined) setFocused(to === 0 || to === next.length - 1 ? null : button);
  };
  const onDrop = (event: DragEvent, target: string) => {
    event.preventDefault();
    if (dragged === null || dragged === target) return;
    move(dragged, order.indexOf(target) - order.indexOf(dragged));
    setDragged(null);
  };

  const askDelete = async (field: FieldType) => {
    const isAlias = field.type === 'alias';
    const count = isAlias ? 0 : await countValues(collection, field.field).catch(() => 0);
    const name = `${collection}.${field.field}`;
    setAfterPlan('reload');
    setPlan(
      planFieldDelete(collection, field.field, {
        message: isAlias ? 'svc.datamodel.loss_relation' : 'svc.datamodel.loss_field',
        params: { field: name, smart_count: count },
      }),
    );
  };
  const askDeleteCollection = async () => {
    const count = isFolder ? 0 : await countValues(collection, undefined).catch(() => 0);
    setAfterPlan('leave');
    setPlan(
      planCollectionDelete(collection, {
        message: 'svc.datamodel.loss_collection',
        params: { collection, smart_count: count },
      }),
    );
  };

  return (
    <Box sx={{ py: 2 }}>
      <Title title={translate('svc.datamodel.fields_title', { collection })} />
      <Typography variant="body2" sx={{ mb: 1 }}>
        <Link to="/settings/data-model">{translate('svc.datamodel.back')}</Link>
      </Typography>
      {isFirstRun && (
        <Alert
          severity="info"
          sx={{ mb: 2 }}
          action={
            <Button color="inherit" component={Link} to={`/content/${collection}`}>
              {translate('svc.datamodel.first_run_done', { collection })}
            </Button>
          }
        >
          {translate('svc.datamodel.first_run_fields', { collection })}
        </Alert>
      )}
      {error !== null && (
        <Alert severity="error" role="alert">
          {error}
        </Alert>
      )}
      {isFolder && (
        <Alert severity="info" sx={{ mb: 2 }}>
          {translate('svc.datamodel.folder_page', { collection })}
        </Alert>
      )}
      <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', mb: 1 }}>
        {!isFolder && (
          <>
            <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing({ field: undefined })}>
              {translate('svc.datamodel.add_field')}
            </Button>
            <Button
              variant="outlined"
              disabled={!isReordered}
              onClick={() => {
                setAfterPlan('reload');
                setPlan(planFieldOrder(collection, order));
              }}
            >
              {translate('svc.datamodel.save_order')}
            </Button>
          </>
        )}
        <Button variant="outlined" startIcon={<SettingsIcon />} onClick={() => setIsSetting(true)}>
          {translate('svc.datamodel.settings')}
        </Button>
        <Button color="error" startIcon={<DeleteIcon />} onClick={() => void askDeleteCollection()}>
          {translate('svc.datamodel.delete_collection')}
        </Button>
      </Stack>
      <List aria-label={translate('svc.datamodel.fields_of', { collection })} hidden={isFolder}>
        {order.map((name, i) => {
          const f = byName.get(name);
          if (f === undefined) return null;
          const special = Array.isArray(f.meta?.['special']) ? (f.meta['special'] as string[]).join(', ') : '';
          const detail = [
            f.type,
            f.meta?.['interface'],
            special,
            f.meta?.['required'] === true ? translate('svc.datamodel.required') : '',
          ]
            .filter((p) => typeof p === 'string' && p !== '')
            .join(' · ');
          return (
            <ListItem
              key={name}
              divider
              draggable
              onDragStart={() => setDragged(name)}
              onDragOver={(e) => e.preventDefault()}
              onDrop={(e) => onDrop(e, name)}
              data-field={name}
              secondaryAction={
                <Box sx={{ display: 'flex' }}>
                  <Tooltip title={translate('svc.datamodel.move_up', { field: name })}>
                    <span>
                      <IconButton
                        aria-label={translate('svc.datamodel.move_up', { field: name })}
                        disabled={i === 0}
                        data-move={`up-${name}`}
                        onClick={() => move(name, -1, `up-${name}`)}
                        size="small"
                      >
                        <ArrowUpIcon fontSize="small" />
                      </IconButton>
                    </span>
                  </Tooltip>
                  <Tooltip title={translate('svc.datamodel.move_down', { field: name })}>
                    <span>
                      <IconButton
                        aria-label={translate('svc.datamodel.move_down', { field: name })}
                        disabled={i === order.length - 1}
                        data-move={`down-${name}`}
                        onClick={() => move(name, 1, `down-${name}`)}
                        size="small"
                      >
                        <ArrowDownIcon fontSize="small" />
                      </IconButton>
                    </span>
                  </Tooltip>
                  <IconButton
                    aria-label={translate('svc.datamodel.edit', { field: name })}
                    onClick={() => setEditing({ field: f })}
                    size="small"
                  >
                    <EditIcon fontSize="small" />
                  </IconButton>
                  <IconButton
                    aria-label={translate('svc.datamodel.delete', { field: name })}
                    disabled={f.schema?.is_primary_key === true}
                    onClick={() => void askDelete(f)}
                    size="small"
                  >
                    <DeleteIcon fontSize="small" />
                  </IconButton>
                </Box>
              }
              sx={{ pr: 18 }}
            >
              <ListItemText primary={name} secondary={detail} slotProps={{ primary: { sx: { fontWeight: 500 } } }} />
            </ListItem>
          );
        })}
      </List>
      {editing !== null && (
        <FieldDialog
          key={editing.field?.field ?? '+'}
          collection={collection}
          field={editing.field}
          open
          view={view}
          nextSort={order.length + 1}
          onClose={() => setEditing(null)}
          onDone={() => {
            setEditing(null);
            reload();
          }}
        />
      )}
      {isSetting && (
        <CollectionSettings
          collection={collection}
          fields={order}
          folders={props.folders}
          onClose={() => setIsSetting(false)}
        />
      )}
      <PlanDialog
        plan={plan}
        onClose={() => setPlan(null)}
        onDone={() => {
          setPlan(null);
          if (afterPlan === 'leave') navigate('/settings/data-model');
          else reload();
        }}
      />
    </Box>
  );
}
