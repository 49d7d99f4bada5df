/**
 * A Directus-shape filter, edited as rules in `_and` / `_or` groups: a rule is a field (its own or,
 * through a many-to-one, one of the related collection's: `author.name`), an operator of the
 * field's type (the API's table, mirrored in filter-tree.ts, the builder's model without React)
 * and a value typed by the field. With `quantifiers`, a to-many field takes `_some` / `_none`
 * and, as its value, a group of conditions on the related rows' fields. With `variables`, values may be the
 * API's dynamic variables (`$CURRENT_USER`, `$CURRENT_ROLE`, `$NOW`, `$NOW(-1 day)`); with
 * `validation`, the validation-only operators (`_regex`, `_submitted`) are offered too. A switch
 * shows the filter as JSON to edit directly: invalid JSON is shown and not applied, and a filter
 * the rules cannot show stays in JSON.
 */
import { useEffect, useMemo, useRef, useState, type ReactElement } from 'react';
import {
  Box,
  Button,
  FormControlLabel,
  IconButton,
  MenuItem,
  Paper,
  Stack,
  Switch,
  TextField,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutline';
import { useTranslate } from 'react-admin';
import type { Filter } from '../../client/index.js';
import type { Catalogue, CollectionInfo, FieldInfo } from './catalogue.js';
import { operatorsOf, QUANTIFIERS, SHAPE, type Shape } from './filter-operators.js';
import {
  asText,
  fieldChoices,
  isRecord,
  mapNode,
  newGroup,
  newRule,
  parseFilter,
  toFilter,
  VARIABLES,
  type FieldChoice,
  type Group,
  type Node,
  type Rule,
} from './filter-tree.js';

/** A text typed as a field's type (the presets editor's values too). */
export { typed } from './filter-tree.js';

export interface FilterBuilderProps {
  readonly collection: CollectionInfo;
  readonly catalogue: Catalogue;
  readonly value: Filter | null;
  onChange(value: Filter | null): void;
  /** Offer the dynamic variables ($CURRENT_USER, $CURRENT_ROLE, $NOW) as values. */
  readonly variables?: boolean;
  /** Offer the validation-only operators (`_regex`, `_submitted`). */
  readonly validation?: boolean;
  /**
   * Offer the to-many fields with their quantifiers (`_some`, `_none`): for filters the API runs
   * as a query (the list, a role's item rule), not for a payload or a form's values.
   */
  readonly quantifiers?: boolean;
  /** What the builder is for (its region's accessible name). */
  readonly label: string;
}

export function FilterBuilder(props: FilterBuilderProps): ReactElement {
  const { collection, catalogue, value, onChange, label } = props;
  const quantifiers = props.quantifiers === true;
  const translate = useTranslate();
  const choices = useMemo(() => fieldChoices(collection, catalogue, quantifiers), [collection, catalogue, quantifiers]);
  const emitted = useRef<string>(JSON.stringify(value ?? null));
  const [root, setRoot] = useState<Group | null>(() => parseFilter(value, quantifiers));
  const [json, setJson] = useState<string>(() => (value === null ? '' : JSON.stringify(value, null, 2)));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [isJson, setIsJson] = useState<boolean>(() => root === null);

  // A value from outside (a bookmark, the URL) replaces what is shown.
  useEffect(() => {
    const text = JSON.stringify(value ?? null);
    if (text === emitted.current) return;
    emitted.current = text;
    const parsed = parseFilter(value, quantifiers);
    setRoot(parsed);
    setJson(value === null ? '' : JSON.stringify(value, null, 2));
    setJsonError(null);
    if (parsed === null) setIsJson(true);
  }, [value, quantifiers]);

  const emit = (filter: Filter | null) => {
    const text = JSON.stringify(filter);
    if (text === emitted.current) return;
    emitted.current = text;
    onChange(filter);
  };

  const update = (next: Group) => {
    setRoot(next);
    const filter = toFilter(next, choices);
    setJson(filter === null ? '' : JSON.stringify(filter, null, 2));
    emit(filter);
  };

  const editJson = (text: string) => {
    setJson(text);
    if (text.trim() === '') {
      setJsonError(null);
      setRoot(newGroup());
      emit(null);
      return;
    }
    try {
      const parsed = JSON.parse(text) as unknown;
      if (!isRecord(parsed)) throw new Error(translate('svc.filter.json_object'));
      setJsonError(null);
      setRoot(parseFilter(parsed, quantifiers));
      emit(parsed as Filter);
    } catch (error) {
      setJsonError(translate('svc.filter.json_invalid', { error: (error as Error).message }));
    }
  };

  const ctx: NodeContext = {
    choices,
    variables: props.variables === true,
    validation: props.validation === true,
    change: (key, change) => {
      if (root !== null) update(mapNode(root, key, change));
    },
  };

  return (
    <Box role="group" aria-label={label} sx={{ display: 'flex', flexDirection: 'column', gap: 1, minWidth: 0 }}>
      <FormControlLabel
        control={
          <Switch
            checked={isJson}
            onChange={(e) => setIsJson(e.target.checked)}
            disabled={root === null && isJson}
            inputProps={{ 'aria-label': translate('svc.filter.edit_json') }}
          />
        }
        label={translate('svc.filter.edit_json')}
      />
      {isJson || root === null ? (
        <TextField
          label={translate('svc.filter.json')}
          value={json}
          onChange={(e) => editJson(e.target.value)}
          error={jsonError !== null}
          helperText={jsonError ?? (root === null ? translate('svc.filter.json_only') : ' ')}
          multiline
          minRows={3}
          fullWidth
          slotProps={{ htmlInput: { spellCheck: false, 'data-testid': 'filter-json' } }}
        />
      ) : (
        <GroupEditor group={root} ctx={ctx} isRoot onRootChange={update} />
      )}
    </Box>
  );
}

interface NodeContext {
  readonly choices: readonly FieldChoice[];
  readonly variables: boolean;
  readonly validation: boolean;
  change(key: number, change: (n: Node) => Node | null): void;
}

function GroupEditor(props: {
  group: Group;
  ctx: NodeContext;
  isRoot?: boolean;
  onRootChange?: (g: Group) => void;
  depth?: number;
}): ReactElement {
  const { group, ctx, isRoot = false, depth = 0 } = props;
  const translate = useTranslate();
  const set = (change: (g: Group) => Group) => {
    if (isRoot) props.onRootChange?.(change(group));
    else ctx.change(group.key, (n) => change(n as Group));
  };
  const logicLabel = translate('svc.filter.logic');
  return (
    <Paper
      variant="outlined"
      sx={{ p: 1, display: 'flex', flexDirection: 'column', gap: 1, minWidth: 0 }}
      role="group"
      aria-label={translate(group.logic === '_and' ? 'svc.filter.group_and' : 'svc.filter.group_or')}
    >
      <Stack direction="row" sx={{ alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
        <ToggleButtonGroup
          size="small"
          exclusive
          value={group.logic}
          aria-label={logicLabel}
          onChange={(_e, logic: '_and' | '_or' | null) => {
            if (logic !== null) set((g) => ({ ...g, logic }));
          }}
        >
          <ToggleButton value="_and">{translate('svc.filter.and')}</ToggleButton>
          <ToggleButton value="_or">{translate('svc.filter.or')}</ToggleButton>
        </ToggleButtonGroup>
        {!isRoot && (
          <IconButton
            size="small"
            aria-label={translate('svc.filter.remove_group')}
            onClick={() => ctx.change(group.key, () => null)}
          >
            <DeleteIcon fontSize="small" />
          </IconButton>
        )}
      </Stack>
      {group.children.length === 0 && (
        <Typography variant="body2" color="text.secondary">
          {translate('svc.filter.empty')}
        </Typography>
      )}
      {group.children.map((child) =>
        child.kind === 'group' ? (
          <GroupEditor key={child.key} group={child} ctx={ctx} depth={depth + 1} />
        ) : (
          <RuleEditor key={child.key} rule={child} ctx={ctx} />
        ),
      )}
      <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
        <Button
          size="small"
          startIcon={<AddIcon />}
          onClick={() => set((g) => ({ ...g, children: [...g.children, newRule()] }))}
        >
          {translate('svc.filter.add_rule')}
        </Button>
        {depth < 3 && (
          <Button
            size="small"
            startIcon={<AddIcon />}
            onClick={() =>
              set((g) => ({
                ...g,
                children: [...g.children, newGroup(g.logic === '_and' ? '_or' : '_and', [newRule()])],
              }))
            }
          >
            {translate('svc.filter.add_group')}
          </Button>
        )}
      </Stack>
    </Paper>
  );
}

/** The operators a rule on `choice` offers: a to-many field's quantifiers, else its type's. */
const operatorsFor = (choice: FieldChoice | undefined, ctx: NodeContext): readonly string[] =>
  choice?.related !== undefined ? QUANTIFIERS : operatorsOf(choice?.field.type ?? 'unknown', ctx.validation);

function RuleEditor({ rule, ctx }: { rule: Rule; ctx: NodeContext }): ReactElement {
  const translate = useTranslate();
  const choice = ctx.choices.find((c) => c.path === rule.field);
  const ops = operatorsFor(choice, ctx);
  const shape = SHAPE.get(rule.op) ?? 'scalar';
  const set = (patch: Partial<Rule>) => ctx.change(rule.key, (n) => ({ ...(n as Rule), ...patch }));
  const opLabel = (op: string) => translate(`svc.filter.op.${op}`, { _: op });
  return (
    <Stack
      direction="row"
      sx={{ gap: 1, flexWrap: 'wrap', alignItems: 'flex-start', minWidth: 0 }}
      role="group"
      aria-label={translate('svc.filter.rule')}
      data-testid="filter-rule"
    >
      <TextField
        select
        size="small"
        label={translate('svc.filter.field')}
        value={rule.field}
        sx={{ minWidth: 140, flex: '1 1 140px' }}
        onChange={(e) => {
          const next = ctx.choices.find((c) => c.path === e.target.value);
          const nextOps = operatorsFor(next, ctx);
          set({
            field: e.target.value,
            op: nextOps.includes(rule.op) ? rule.op : (nextOps[0] ?? '_eq'),
            // Another to-many field's rows have other fields: their condition starts again.
            nested: next?.related === undefined ? null : newGroup('_and', [newRule()]),
          });
        }}
      >
        {ctx.choices.map((c) => (
          <MenuItem key={c.path} value={c.path}>
            {c.label}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        select
        size="small"
        label={translate('svc.filter.operator')}
        value={ops.includes(rule.op) ? rule.op : ''}
        sx={{ minWidth: 140, flex: '1 1 140px' }}
        onChange={(e) => set({ op: e.target.value })}
      >
        {ops.map((op) => (
          <MenuItem key={op} value={op}>
            {opLabel(op)}
          </MenuItem>
        ))}
      </TextField>
      {shape === 'quantifier' ? (
        <RelatedEditor rule={rule} related={choice?.related ?? []} ctx={ctx} set={set} />
      ) : (
        <ValueEditor rule={rule} shape={shape} field={choice?.field} ctx={ctx} set={set} />
      )}
      <IconButton
        size="small"
        aria-label={translate('svc.filter.remove_rule')}
        onClick={() => ctx.change(rule.key, () => null)}
      >
        <DeleteIcon fontSize="small" />
      </IconButton>
    </Stack>
  );
}

/**
 * A quantifier's value: its own group of conditions on the related rows' fields, on a line of its
 * own under the field and the operator.
 */
function RelatedEditor(props: {
  rule: Rule;
  related: readonly FieldChoice[];
  ctx: NodeContext;
  set(patch: Partial<Rule>): void;
}): ReactElement {
  const { rule, related, ctx, set } = props;
  const translate = useTranslate();
  return (
    <Box
      role="group"
      aria-label={translate('svc.filter.related', { field: rule.field })}
      sx={{ order: 1, flex: '1 0 100%', minWidth: 0 }}
    >
      <GroupEditor
        group={rule.nested ?? newGroup()}
        ctx={{ ...ctx, choices: related }}
        isRoot
        onRootChange={(nested) => set({ nested })}
        depth={1}
      />
    </Box>
  );
}

const INPUT_TYPE: Readonly<Record<string, string>> = {
  integer: 'number',
  bigInteger: 'number',
  float: 'number',
  decimal: 'number',
  date: 'date',
  dateTime: 'datetime-local',
  timestamp: 'datetime-local',
  time: 'time',
};

function ValueEditor(props: {
  rule: Rule;
  shape: Shape;
  field: FieldInfo | undefined;
  ctx: NodeContext;
  set(patch: Partial<Rule>): void;
}): ReactElement | null {
  const { rule, shape, field, ctx, set } = props;
  const translate = useTranslate();
  const sx = { minWidth: 140, flex: '2 1 160px' };
  if (shape === 'flag' || shape === 'presence')
    return (
      <TextField
        select
        size="small"
        label={translate('svc.filter.value')}
        value={rule.value === 'false' ? 'false' : 'true'}
        sx={sx}
        onChange={(e) => set({ value: e.target.value })}
      >
        <MenuItem value="true">{translate('svc.filter.true')}</MenuItem>
        <MenuItem value="false">{translate('svc.filter.false')}</MenuItem>
      </TextField>
    );
  const isVariable = rule.value.startsWith('$');
  const single = (key: 'value' | 'high', label: string): ReactElement => {
    const text = rule[key];
    if (shape === 'scalar' && field?.type === 'boolean' && !text.startsWith('$'))
      return (
        <TextField
          select
          size="small"
          label={label}
          value={text}
          sx={sx}
          onChange={(e) => set({ [key]: e.target.value })}
        >
          <MenuItem value="true">{translate('svc.filter.true')}</MenuItem>
          <MenuItem value="false">{translate('svc.filter.false')}</MenuItem>
        </TextField>
      );
    if (shape === 'scalar' && field !== undefined && field.choices.length > 0 && !text.startsWith('$'))
      return (
        <TextField
          select
          size="small"
          label={label}
          value={text}
          sx={sx}
          onChange={(e) => set({ [key]: e.target.value })}
        >
          {field.choices.map((c) => (
            <MenuItem key={String(c.value)} value={asText(c.value)}>
              {c.text}
            </MenuItem>
          ))}
        </TextField>
      );
    const inputType = shape === 'list' || text.startsWith('$') ? 'text' : (INPUT_TYPE[field?.type ?? ''] ?? 'text');
    return (
      <TextField
        size="small"
        label={label}
        value={text}
        type={inputType}
        sx={sx}
        multiline={shape === 'geometry'}
        helperText={shape === 'list' ? translate('svc.filter.list_hint') : undefined}
        onChange={(e) => set({ [key]: e.target.value })}
        slotProps={{ inputLabel: { shrink: true } }}
      />
    );
  };
  return (
    <>
      {single('value', translate(shape === 'pair' ? 'svc.filter.low' : 'svc.filter.value'))}
      {shape === 'pair' && single('high', translate('svc.filter.high'))}
      {ctx.variables && (shape === 'scalar' || shape === 'list') && (
        <TextField
          select
          size="small"
          label={translate('svc.filter.variable')}
          value={isVariable && VARIABLES.includes(rule.value) ? rule.value : ''}
          sx={{ minWidth: 120, flex: '1 1 120px' }}
          onChange={(e) => set({ value: e.target.value })}
        >
          <MenuItem value="">{translate('svc.filter.no_variable')}</MenuItem>
          {VARIABLES.map((v) => (
            <MenuItem key={v} value={v}>
              {v}
            </MenuItem>
          ))}
        </TextField>
      )}
    </>
  );
}
