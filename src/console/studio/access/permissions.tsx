/**
 * A role's permissions: per collection, create / read / update / delete / share each All,
 * None or Custom (svc_permissions rows, Directus 10's shape); Custom opens the rule editor:
 * the fields, the item rule (`permissions`, with $CURRENT_USER, $CURRENT_ROLE, $NOW), the
 * `validation` and the `presets` (field = value rows, or JSON). System collections (svc_*) come under their own heading,
 * with the app access minimum in one click.
 */
import { useCallback, useEffect, useState } from 'react';
import {
  Accordion,
  AccordionDetails,
  AccordionSummary,
  Alert,
  Box,
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  FormGroup,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import { useNotify, usePermissions, useTranslate } from 'react-admin';
import type { Filter, PermissionType } from '../../../client/index.js';
import { client } from '../../session.js';
import { collectionOf, type Catalogue } from '../catalogue.js';
import { FilterBuilder } from '../filter-builder.js';
import { errorText } from './common.js';
import { PresetsEditor } from './presets-editor.js';

const ACTIONS = ['create', 'read', 'update', 'delete', 'share'] as const;
type Action = (typeof ACTIONS)[number];
type Level = 'all' | 'none' | 'custom';
type Row = Pick<PermissionType, 'collection' | 'action' | 'permissions' | 'validation' | 'presets' | 'fields'> & {
  id?: number;
};

/**
 * The reads a role needs to use the Studio (the API grants them to app-access roles on its
 * own, src/access/permission-rules.ts; written here they show and can be narrowed).
 */
const APP_MINIMUM: readonly Pick<Row, 'collection' | 'permissions'>[] = [
  { collection: 'svc_collections', permissions: {} },
  { collection: 'svc_fields', permissions: {} },
  { collection: 'svc_relations', permissions: {} },
  { collection: 'svc_settings', permissions: {} },
  { collection: 'svc_permissions', permissions: { role: { _eq: '$CURRENT_ROLE' } } },
  { collection: 'svc_roles', permissions: { id: { _eq: '$CURRENT_ROLE' } } },
  { collection: 'svc_users', permissions: { id: { _eq: '$CURRENT_USER' } } },
  { collection: 'svc_activity', permissions: { user: { _eq: '$CURRENT_USER' } } },
  {
    collection: 'svc_presets',
    permissions: {
      _or: [
        { user: { _eq: '$CURRENT_USER' } },
        { _and: [{ user: { _null: true } }, { role: { _eq: '$CURRENT_ROLE' } }] },
        { _and: [{ user: { _null: true } }, { role: { _null: true } }] },
      ],
    },
  },
];

const isEmpty = (value: unknown) =>
  value === null || value === undefined || (typeof value === 'object' && Object.keys(value).length === 0);

function levelOf(row: Row | undefined): Level {
  if (row === undefined) return 'none';
  const allFields = row.fields === null || row.fields.includes('*');
  return allFields && isEmpty(row.permissions) && isEmpty(row.validation) && isEmpty(row.presets) ? 'all' : 'custom';
}

export function PermissionsMatrix({ role }: { role: string }) {
  const translate = useTranslate();
  const notify = useNotify();
  const [rows, setRows] = useState<Row[]>([]);
  const [collections, setCollections] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<{ collection: string; action: Action } | null>(null);

  const load = useCallback(async () => {
    try {
      const [permissions, all] = await Promise.all([
        client.permissions.readByQuery({ filter: { role: { _eq: role } }, limit: -1 }),
        client.collections.readAll(),
      ]);
      setRows((permissions.data ?? []) as Row[]);
      setCollections(
        (all.data ?? [])
          .filter((c) => c.schema !== null)
          .map((c) => c.collection)
          .sort(),
      );
    } catch (e) {
      setError(errorText(e));
    }
  }, [role]);
  useEffect(() => void load(), [load]);

  const rowOf = (collection: string, action: Action) =>
    rows.find((r) => r.collection === collection && r.action === action);

  const change = async (collection: string, action: Action, level: Level) => {
    if (level === 'custom') {
      setEditing({ collection, action });
      return;
    }
    const row = rowOf(collection, action);
    try {
      if (level === 'none') {
        if (row?.id !== undefined) await client.permissions.deleteOne(row.id);
      } else {
        const all = { permissions: {}, validation: {}, presets: null, fields: ['*'] };
        if (row?.id !== undefined) await client.permissions.updateOne(row.id, all);
        else await client.permissions.createOne({ role, collection, action, ...all });
      }
      setError(null);
      await load();
    } catch (e) {
      setError(errorText(e));
    }
  };

  const addMinimum = async () => {
    try {
      const missing = APP_MINIMUM.filter((m) => rowOf(m.collection, 'read') === undefined);
      if (missing.length > 0)
        await client.permissions.createMany(
          missing.map((m) => ({
            role,
            collection: m.collection,
            action: 'read',
            permissions: m.permissions as Filter,
            fields: ['*'],
          })),
        );
      notify('svc.access.minimum_added', { type: 'success' });
      await load();
    } catch (e) {
      setError(errorText(e));
    }
  };

  const section = (names: string[]) =>
    names.map((collection) => (
      <Box
        key={collection}
        role="group"
        aria-label={collection}
        sx={{
          py: 1,
          borderBottom: 1,
          borderColor: 'divider',
          display: 'flex',
          flexWrap: 'wrap',
          gap: 1,
          alignItems: 'center',
        }}
      >
        <Typography sx={{ width: { xs: '100%', md: 180 }, fontWeight: 500, overflowWrap: 'anywhere' }}>
          {collection}
        </Typography>
        {ACTIONS.map((action) => (
          <TextField
            key={action}
            select
            size="small"
            label={translate(`svc.access.action_${action}`)}
            value={levelOf(rowOf(collection, action))}
            onChange={(e) => void change(collection, action, e.target.value as Level)}
            sx={{ width: 112 }}
            slotProps={{ htmlInput: { 'aria-label': `${collection} ${action}` } }}
          >
            <MenuItem value="all">{translate('svc.access.level_all')}</MenuItem>
            <MenuItem value="none">{translate('svc.access.level_none')}</MenuItem>
            <MenuItem value="custom">{translate('svc.access.level_custom')}</MenuItem>
          </TextField>
        ))}
        {ACTIONS.some((a) => levelOf(rowOf(collection, a)) === 'custom') && (
          <Box>
            {ACTIONS.filter((a) => levelOf(rowOf(collection, a)) === 'custom').map((a) => (
              <Button key={a} size="small" onClick={() => setEditing({ collection, action: a })}>
                {translate('svc.access.edit_rule', { action: translate(`svc.access.action_${a}`) })}
              </Button>
            ))}
          </Box>
        )}
      </Box>
    ));

  const own = collections.filter((c) => !c.startsWith('svc_'));
  const system = collections.filter((c) => c.startsWith('svc_'));
  return (
    <Box>
      {error !== null && (
        <Alert severity="error" sx={{ mb: 1 }}>
          {error}
        </Alert>
      )}
      {section(own)}
      <Stack direction="row" sx={{ mt: 2, alignItems: 'center', flexWrap: 'wrap', gap: 1 }}>
        <Typography component="h3" variant="subtitle1" sx={{ fontWeight: 600 }}>
          {translate('svc.access.system')}
        </Typography>
        <Button variant="outlined" size="small" onClick={() => void addMinimum()}>
          {translate('svc.access.app_minimum')}
        </Button>
      </Stack>
      <Accordion disableGutters slotProps={{ transition: { unmountOnExit: true } }} sx={{ mt: 1 }}>
        <AccordionSummary expandIcon={<ExpandMoreIcon />}>{translate('svc.access.system_show')}</AccordionSummary>
        <AccordionDetails>{section(system)}</AccordionDetails>
      </Accordion>
      {editing !== null && (
        <RuleDialog
          role={role}
          collection={editing.collection}
          action={editing.action}
          row={rowOf(editing.collection, editing.action)}
          onClose={(saved) => {
            setEditing(null);
            if (saved) void load();
          }}
        />
      )}
    </Box>
  );
}

/** A JSON object typed in a text field: null when empty, an error when it is no object. */
function parseObject(text: string): { value: Record<string, unknown> | null; error: string | null } {
  if (text.trim() === '') return { value: null, error: null };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { value: null, error: 'not an object' };
    return { value: value as Record<string, unknown>, error: null };
  } catch (e) {
    return { value: null, error: (e as Error).message };
  }
}

function RuleDialog(props: {
  role: string;
  collection: string;
  action: Action;
  row: Row | undefined;
  onClose(saved: boolean): void;
}) {
  const { role, collection, action, row, onClose } = props;
  const translate = useTranslate();
  const { permissions: catalogue } = usePermissions<Catalogue | null>();
  const info = catalogue === null || catalogue === undefined ? undefined : collectionOf(catalogue, collection);
  const [fieldNames, setFieldNames] = useState<string[]>([]);
  const [fields, setFields] = useState<string[]>(row?.fields ?? ['*']);
  const [rule, setRule] = useState<Filter | null>(isEmpty(row?.permissions) ? null : (row?.permissions ?? null));
  const [validation, setValidation] = useState<Filter | null>(
    isEmpty(row?.validation) ? null : (row?.validation ?? null),
  );
  const [ruleText, setRuleText] = useState(rule === null ? '' : JSON.stringify(rule, null, 2));
  const [validationText, setValidationText] = useState(validation === null ? '' : JSON.stringify(validation, null, 2));
  const [presets, setPresets] = useState<Record<string, unknown> | null>(
    isEmpty(row?.presets) ? null : ((row?.presets ?? null) as Record<string, unknown> | null),
  );
  const [arePresetsValid, setArePresetsValid] = useState(true);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    void client.fields
      .readMany(collection)
      .then((answer) => setFieldNames((answer.data ?? []).map((f) => f.field)))
      .catch((e: unknown) => setError(errorText(e)));
  }, [collection]);

  const hasRule = action !== 'create';
  const hasValidation = action === 'create' || action === 'update';
  const hasFields = action !== 'delete';
  const isAll = fields.includes('*');
  const toggle = (name: string, on: boolean) =>
    setFields((current) => {
      const list = current.includes('*') ? [...fieldNames] : current;
      return on ? [...new Set([...list, name])] : list.filter((f) => f !== name);
    });

  const save = async () => {
    const ruleJson = info === undefined ? parseObject(ruleText) : { value: rule, error: null };
    const validationJson = info === undefined ? parseObject(validationText) : { value: validation, error: null };
    const problem =
      ruleJson.error ?? validationJson.error ?? (arePresetsValid ? null : translate('svc.access.presets'));
    if (problem !== null) {
      setError(translate('svc.access.json_invalid', { error: problem }));
      return;
    }
    const data = {
      permissions: hasRule ? ((ruleJson.value ?? {}) as Filter) : {},
      validation: hasValidation ? ((validationJson.value ?? {}) as Filter) : {},
      presets: hasValidation ? presets : null,
      fields: hasFields ? fields : ['*'],
    };
    try {
      if (row?.id !== undefined) await client.permissions.updateOne(row.id, data);
      else await client.permissions.createOne({ role, collection, action, ...data });
      onClose(true);
    } catch (e) {
      setError(errorText(e));
    }
  };

  const filterInput = (
    label: string,
    value: Filter | null,
    set: (f: Filter | null) => void,
    text: string,
    setText: (t: string) => void,
    isValidation: boolean,
  ) =>
    info !== undefined && catalogue !== null && catalogue !== undefined ? (
      <FilterBuilder
        collection={info}
        catalogue={catalogue}
        value={value}
        onChange={set}
        variables
        validation={isValidation}
        quantifiers={!isValidation}
        label={label}
      />
    ) : (
      <TextField
        label={label}
        value={text}
        onChange={(e) => setText(e.target.value)}
        multiline
        minRows={3}
        fullWidth
        helperText={translate('svc.access.json_hint')}
      />
    );

  return (
    <Dialog open onClose={() => onClose(false)} aria-labelledby="rule-title" fullWidth maxWidth="md">
      <DialogTitle id="rule-title">
        {translate('svc.access.rule_title', { collection, action: translate(`svc.access.action_${action}`) })}
      </DialogTitle>
      <DialogContent>
        {error !== null && (
          <Alert severity="error" sx={{ mb: 1 }}>
            {error}
          </Alert>
        )}
        {hasRule && (
          <Box component="section" aria-labelledby="rule-items" sx={{ mb: 2 }}>
            <Typography id="rule-items" component="h3" variant="subtitle1">
              {translate('svc.access.item_rule')}
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
              {translate('svc.access.item_rule_hint')}
            </Typography>
            {filterInput(translate('svc.access.item_rule'), rule, setRule, ruleText, setRuleText, false)}
          </Box>
        )}
        {hasFields && (
          <Box component="fieldset" sx={{ border: 0, p: 0, m: 0, mb: 2 }}>
            <Typography component="legend" variant="subtitle1">
              {translate('svc.access.fields')}
            </Typography>
            <FormControlLabel
              control={<Checkbox checked={isAll} onChange={(e) => setFields(e.target.checked ? ['*'] : [])} />}
              label={translate('svc.access.all_fields')}
            />
            <FormGroup row>
              {fieldNames.map((name) => (
                <FormControlLabel
                  key={name}
                  control={
                    <Checkbox
                      checked={isAll || fields.includes(name)}
                      onChange={(e) => toggle(name, e.target.checked)}
                    />
                  }
                  label={name}
                />
              ))}
            </FormGroup>
          </Box>
        )}
        {hasValidation && (
          <Box component="section" aria-labelledby="rule-validation" sx={{ mb: 2 }}>
            <Typography id="rule-validation" component="h3" variant="subtitle1">
              {translate('svc.access.validation')}
            </Typography>
            {filterInput(
              translate('svc.access.validation'),
              validation,
              setValidation,
              validationText,
              setValidationText,
              true,
            )}
          </Box>
        )}
        {hasValidation && (
          <Box component="section" aria-labelledby="rule-presets">
            <Typography id="rule-presets" component="h3" variant="subtitle1">
              {translate('svc.access.presets')}
            </Typography>
            <PresetsEditor collection={info} value={presets} onChange={setPresets} onValidity={setArePresetsValid} />
          </Box>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={() => onClose(false)}>{translate('ra.action.cancel')}</Button>
        <Button variant="contained" onClick={() => void save()}>
          {translate('ra.action.save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
