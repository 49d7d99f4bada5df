/**
 * A permission's `presets` (the values an item gets on create or update, field by field) as a
 * list of field = value rows: the field one of the collection's, the value typed by the field's
 * type (numbers and booleans as such) or one of the dynamic variables ($CURRENT_USER,
 * $CURRENT_ROLE, $NOW). A switch shows the object as JSON to edit directly (a value the rows
 * cannot show, an object or a list, is kept as it is); invalid JSON is shown and not applied.
 */
import { useState, type ReactElement } from 'react';
import {
  Autocomplete,
  Box,
  Button,
  FormControlLabel,
  IconButton,
  MenuItem,
  Stack,
  Switch,
  TextField,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutline';
import { useTranslate } from 'react-admin';
import type { CollectionInfo } from '../catalogue.js';
import { typed } from '../filter-builder.js';

type Presets = Record<string, unknown>;

interface Row {
  readonly key: number;
  readonly field: string;
  readonly text: string;
}

const VARIABLES = ['$CURRENT_USER', '$CURRENT_ROLE', '$NOW'];
let nextKey = 1;

const textOf = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
const rowsOf = (presets: Presets | null): Row[] =>
  Object.entries(presets ?? {}).map(([field, value]) => ({ key: nextKey++, field, text: textOf(value) }));

export function PresetsEditor(props: {
  /** The collection's fields (their names and types); without it the presets are JSON only. */
  readonly collection: CollectionInfo | undefined;
  readonly value: Presets | null;
  onChange(value: Presets | null): void;
  /** The JSON is invalid (not applied): the dialog does not save. */
  onValidity(isValid: boolean): void;
}): ReactElement {
  const { collection, onChange } = props;
  const translate = useTranslate();
  const [rows, setRows] = useState<Row[]>(() => rowsOf(props.value));
  const [json, setJson] = useState(() => (props.value === null ? '' : JSON.stringify(props.value, null, 2)));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [isJson, setIsJson] = useState(collection === undefined);
  const typeOf = (field: string) => collection?.fields.find((f) => f.name === field)?.type;

  const emit = (next: Row[]) => {
    setRows(next);
    const entries = next.filter((r) => r.field !== '').map((r) => [r.field, typed(r.text, typeOf(r.field))] as const);
    const presets = entries.length === 0 ? null : Object.fromEntries(entries);
    setJson(presets === null ? '' : JSON.stringify(presets, null, 2));
    onChange(presets);
  };
  const change = (key: number, patch: Partial<Row>) => emit(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const editJson = (text: string) => {
    setJson(text);
    try {
      const parsed: unknown = text.trim() === '' ? null : JSON.parse(text);
      if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed)))
        throw new Error(translate('svc.access.presets_object'));
      setJsonError(null);
      props.onValidity(true);
      setRows(rowsOf(parsed as Presets | null));
      onChange(parsed as Presets | null);
    } catch (e) {
      setJsonError(translate('svc.access.json_invalid', { error: (e as Error).message }));
      props.onValidity(false);
    }
  };

  const used = new Set(rows.map((r) => r.field));
  const label = translate('svc.access.presets');
  return (
    <Box role="group" aria-label={label} sx={{ display: 'flex', flexDirection: 'column', gap: 1, minWidth: 0 }}>
      <FormControlLabel
        control={
          <Switch
            checked={isJson}
            disabled={collection === undefined || jsonError !== null}
            onChange={(e) => setIsJson(e.target.checked)}
            inputProps={{ 'aria-label': translate('svc.access.presets_json') }}
          />
        }
        label={translate('svc.access.presets_json')}
      />
      {isJson || collection === undefined ? (
        <TextField
          label={translate('svc.access.presets_json_label')}
          value={json}
          onChange={(e) => editJson(e.target.value)}
          multiline
          minRows={2}
          fullWidth
          error={jsonError !== null}
          helperText={jsonError ?? translate('svc.access.presets_hint')}
          slotProps={{ htmlInput: { spellCheck: false } }}
        />
      ) : (
        <>
          {rows.map((row, i) => (
            <Stack key={row.key} direction="row" sx={{ gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
              <TextField
                select
                label={translate('svc.access.preset_field', { n: i + 1 })}
                value={row.field}
                onChange={(e) => change(row.key, { field: e.target.value })}
                sx={{ minWidth: 180 }}
              >
                {collection.fields
                  .filter((f) => f.name === row.field || !used.has(f.name))
                  .map((f) => (
                    <MenuItem key={f.name} value={f.name}>
                      {f.name}
                    </MenuItem>
                  ))}
              </TextField>
              <Autocomplete
                freeSolo
                options={VARIABLES}
                inputValue={row.text}
                onInputChange={(_, text) => change(row.key, { text })}
                sx={{ minWidth: 200, flex: 1 }}
                renderInput={(params) => (
                  <TextField {...params} label={translate('svc.access.preset_value', { n: i + 1 })} />
                )}
              />
              <IconButton
                aria-label={translate('svc.access.preset_remove', { n: i + 1 })}
                onClick={() => emit(rows.filter((r) => r.key !== row.key))}
              >
                <DeleteIcon />
              </IconButton>
            </Stack>
          ))}
          <Box>
            <Button
              startIcon={<AddIcon />}
              onClick={() => setRows([...rows, { key: nextKey++, field: '', text: '' }])}
              disabled={used.size >= collection.fields.length}
            >
              {translate('svc.access.preset_add')}
            </Button>
          </Box>
        </>
      )}
    </Box>
  );
}
