/**
 * A field's `meta.conditions` (Directus's shape, applied on the item form by
 * inputs/conditions.ts) as a list: each condition a name, its rule (the shared FilterBuilder over
 * the collection's fields, with the dynamic variables) and what it makes of the field while the
 * rule matches: hidden, read-only, required, each unchanged, yes or no. `options` and any other
 * key of a condition are kept as they are. A switch shows the whole list as JSON to edit
 * directly; invalid JSON is shown and not applied (the dialog does not submit it).
 */
import { useState, type ReactElement } from 'react';
import { Box, Button, FormControlLabel, IconButton, MenuItem, Paper, Stack, Switch, TextField } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutline';
import { useTranslate } from 'react-admin';
import type { Filter } from '../../../client/index.js';
import type { Catalogue, CollectionInfo } from '../catalogue.js';
import { FilterBuilder } from '../filter-builder.js';

type Condition = Readonly<Record<string, unknown>>;
type Flag = 'hidden' | 'readonly' | 'required';
const FLAGS: readonly Flag[] = ['hidden', 'readonly', 'required'];

interface Item {
  readonly key: number;
  readonly condition: Condition;
}

let nextKey = 1;
const itemsOf = (list: readonly Condition[] | null): Item[] =>
  (list ?? []).map((condition) => ({ key: nextKey++, condition }));
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function ConditionsEditor(props: {
  /** The collection's fields for the rules; without it (a collection not read yet) JSON only. */
  readonly collection: CollectionInfo | undefined;
  readonly catalogue: Catalogue | undefined;
  readonly value: readonly Condition[] | null;
  onChange(value: Condition[] | null): void;
  onValidity(isValid: boolean): void;
}): ReactElement {
  const { collection, catalogue, onChange } = props;
  const translate = useTranslate();
  const [items, setItems] = useState<Item[]>(() => itemsOf(props.value));
  const [json, setJson] = useState(() => (props.value === null ? '' : JSON.stringify(props.value, null, 2)));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const canBuild = collection !== undefined && catalogue !== undefined;
  const [isJson, setIsJson] = useState(!canBuild);

  const emit = (next: Item[]) => {
    setItems(next);
    const list = next.map((i) => i.condition);
    setJson(list.length === 0 ? '' : JSON.stringify(list, null, 2));
    onChange(list.length === 0 ? null : list);
  };
  const change = (key: number, patch: (c: Condition) => Condition) =>
    emit(items.map((i) => (i.key === key ? { key, condition: patch(i.condition) } : i)));
  const editJson = (text: string) => {
    setJson(text);
    try {
      const parsed: unknown = text.trim() === '' ? [] : JSON.parse(text);
      if (!Array.isArray(parsed) || !parsed.every(isRecord))
        throw new Error(translate('svc.datamodel.conditions_invalid'));
      setJsonError(null);
      props.onValidity(true);
      setItems(itemsOf(parsed));
      onChange(parsed.length === 0 ? null : parsed);
    } catch (e) {
      setJsonError(translate('svc.datamodel.conditions_not_json', { error: (e as Error).message }));
      props.onValidity(false);
    }
  };

  return (
    <Box
      role="group"
      aria-label={translate('svc.datamodel.conditions')}
      sx={{ display: 'flex', flexDirection: 'column', gap: 1, minWidth: 0 }}
    >
      <FormControlLabel
        control={
          <Switch
            checked={isJson}
            disabled={!canBuild || jsonError !== null}
            onChange={(e) => setIsJson(e.target.checked)}
            inputProps={{ 'aria-label': translate('svc.datamodel.conditions_json') }}
          />
        }
        label={translate('svc.datamodel.conditions_json')}
      />
      {isJson || !canBuild ? (
        <TextField
          label={translate('svc.datamodel.conditions_json_label')}
          value={json}
          onChange={(e) => editJson(e.target.value)}
          multiline
          minRows={3}
          fullWidth
          error={jsonError !== null}
          helperText={jsonError ?? translate('svc.datamodel.conditions_help')}
          slotProps={{ htmlInput: { spellCheck: false } }}
        />
      ) : (
        <>
          {items.map(({ key, condition }, i) => {
            const n = i + 1;
            return (
              <Paper
                key={key}
                variant="outlined"
                role="group"
                aria-label={translate('svc.datamodel.condition_n', { n })}
                sx={{ p: 1, display: 'flex', flexDirection: 'column', gap: 1 }}
              >
                <Stack direction="row" sx={{ gap: 1, alignItems: 'center' }}>
                  <TextField
                    size="small"
                    label={translate('svc.datamodel.condition_name')}
                    value={typeof condition['name'] === 'string' ? condition['name'] : ''}
                    onChange={(e) => change(key, (c) => ({ ...c, name: e.target.value }))}
                    sx={{ flex: 1 }}
                  />
                  <IconButton
                    aria-label={translate('svc.datamodel.condition_remove', { n })}
                    onClick={() => emit(items.filter((it) => it.key !== key))}
                  >
                    <DeleteIcon />
                  </IconButton>
                </Stack>
                <FilterBuilder
                  collection={collection}
                  catalogue={catalogue}
                  // No rule yet ({}) is no filter to the builder: what it emits (null) comes back as such.
                  value={
                    isRecord(condition['rule']) && Object.keys(condition['rule']).length > 0
                      ? (condition['rule'] as Filter)
                      : null
                  }
                  onChange={(rule) => change(key, (c) => ({ ...c, rule: rule ?? {} }))}
                  variables
                  label={translate('svc.datamodel.condition_rule', { n })}
                />
                <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
                  {FLAGS.map((flag) => (
                    <TextField
                      key={flag}
                      select
                      size="small"
                      sx={{ minWidth: 150 }}
                      label={translate(`svc.datamodel.condition_${flag}`)}
                      value={typeof condition[flag] === 'boolean' ? String(condition[flag]) : ''}
                      onChange={(e) =>
                        change(key, (c) => {
                          const { [flag]: _old, ...rest } = c;
                          return e.target.value === '' ? rest : { ...rest, [flag]: e.target.value === 'true' };
                        })
                      }
                    >
                      <MenuItem value="">{translate('svc.datamodel.condition_unchanged')}</MenuItem>
                      <MenuItem value="true">{translate('svc.datamodel.condition_yes')}</MenuItem>
                      <MenuItem value="false">{translate('svc.datamodel.condition_no')}</MenuItem>
                    </TextField>
                  ))}
                </Stack>
              </Paper>
            );
          })}
          <Box>
            <Button
              startIcon={<AddIcon />}
              onClick={() =>
                emit([
                  ...items,
                  {
                    key: nextKey++,
                    condition: { name: translate('svc.datamodel.condition_n', { n: items.length + 1 }), rule: {} },
                  },
                ])
              }
            >
              {translate('svc.datamodel.condition_add')}
            </Button>
          </Box>
        </>
      )}
    </Box>
  );
}
