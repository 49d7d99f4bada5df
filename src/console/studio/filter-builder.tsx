/**
 * A Directus-shape filter, edited as rules in `_and` / `_or` groups: a rule is a field (its own or,
 * through a many-to-one, one of the related collection's: `author.name`), an operator of the
 * field's type (the API's table, catalog/overview/filter-operators.ts, mirrored here: the Studio
 * imports only the client) and a value typed by the field. With `variables`, values may be the
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
import { collectionOf, type Catalogue, type CollectionInfo, type FieldInfo } from './catalogue.js';

type Shape = 'scalar' | 'list' | 'pair' | 'flag' | 'geometry' | 'pattern' | 'presence';
type Family = 'text' | 'uuid' | 'number' | 'temporal' | 'boolean' | 'json' | 'hash' | 'geometry' | 'untyped';

const ALL: readonly Family[] = ['text', 'uuid', 'number', 'temporal', 'boolean', 'json', 'hash', 'geometry', 'untyped'];
const EQUALITY: readonly Family[] = ['text', 'uuid', 'number', 'temporal', 'boolean', 'geometry', 'untyped'];
const ORDERED: readonly Family[] = ['number', 'temporal', 'untyped'];
const LISTED: readonly Family[] = ['text', 'uuid', 'number', 'temporal', 'untyped'];
const TEXT: readonly Family[] = ['text'];
const TEXTISH: readonly Family[] = ['text', 'untyped'];
const EMPTY: readonly Family[] = ['text', 'hash', 'untyped'];
const GEO: readonly Family[] = ['geometry'];

/** The API's filter operators (catalog/overview/filter-operators.ts), in its order. */
const OPERATORS: readonly { op: string; shape: Shape; families: readonly Family[] }[] = [
  { op: '_eq', shape: 'scalar', families: EQUALITY },
  { op: '_neq', shape: 'scalar', families: EQUALITY },
  { op: '_gt', shape: 'scalar', families: ORDERED },
  { op: '_gte', shape: 'scalar', families: ORDERED },
  { op: '_lt', shape: 'scalar', families: ORDERED },
  { op: '_lte', shape: 'scalar', families: ORDERED },
  { op: '_contains', shape: 'scalar', families: TEXTISH },
  { op: '_icontains', shape: 'scalar', families: TEXT },
  { op: '_ncontains', shape: 'scalar', families: TEXTISH },
  { op: '_starts_with', shape: 'scalar', families: TEXT },
  { op: '_nstarts_with', shape: 'scalar', families: TEXT },
  { op: '_istarts_with', shape: 'scalar', families: TEXT },
  { op: '_nistarts_with', shape: 'scalar', families: TEXT },
  { op: '_ends_with', shape: 'scalar', families: TEXT },
  { op: '_nends_with', shape: 'scalar', families: TEXT },
  { op: '_iends_with', shape: 'scalar', families: TEXT },
  { op: '_niends_with', shape: 'scalar', families: TEXT },
  { op: '_intersects', shape: 'geometry', families: GEO },
  { op: '_nintersects', shape: 'geometry', families: GEO },
  { op: '_intersects_bbox', shape: 'geometry', families: GEO },
  { op: '_nintersects_bbox', shape: 'geometry', families: GEO },
  { op: '_in', shape: 'list', families: LISTED },
  { op: '_nin', shape: 'list', families: LISTED },
  { op: '_between', shape: 'pair', families: ORDERED },
  { op: '_nbetween', shape: 'pair', families: ORDERED },
  { op: '_null', shape: 'flag', families: ALL },
  { op: '_nnull', shape: 'flag', families: ALL },
  { op: '_empty', shape: 'flag', families: EMPTY },
  { op: '_nempty', shape: 'flag', families: EMPTY },
  { op: '_regex', shape: 'pattern', families: [] },
  { op: '_submitted', shape: 'presence', families: [] },
];
const VALIDATION_ONLY = new Set(['_regex', '_submitted']);
const SHAPE = new Map(OPERATORS.map((o) => [o.op, o.shape]));

const FAMILY_OF_TYPE: Readonly<Record<string, Family>> = {
  string: 'text',
  text: 'text',
  csv: 'text',
  binary: 'text',
  uuid: 'uuid',
  integer: 'number',
  bigInteger: 'number',
  float: 'number',
  decimal: 'number',
  date: 'temporal',
  dateTime: 'temporal',
  timestamp: 'temporal',
  time: 'temporal',
  boolean: 'boolean',
  json: 'json',
  hash: 'hash',
  geometry: 'geometry',
};

/** The operators a field of `type` takes (with the validation-only ones when asked). */
function operatorsOf(type: string, validation = false): string[] {
  const family = FAMILY_OF_TYPE[type] ?? 'untyped';
  return OPERATORS.filter(
    (o) => o.families.includes(family) || (validation && VALIDATION_ONLY.has(o.op) && family !== 'geometry'),
  ).map((o) => o.op);
}

const VARIABLES = ['$CURRENT_USER', '$CURRENT_ROLE', '$NOW', '$NOW(-1 day)'];

interface Rule {
  readonly kind: 'rule';
  readonly key: number;
  readonly field: string;
  readonly op: string;
  /** What the inputs hold: text (list: comma separated; pair: two texts), or a flag. */
  readonly value: string;
  readonly high: string;
}
interface Group {
  readonly kind: 'group';
  readonly key: number;
  readonly logic: '_and' | '_or';
  readonly children: readonly Node[];
}
type Node = Rule | Group;

let nextKey = 1;
const newRule = (field = '', op = '_eq'): Rule => ({ kind: 'rule', key: nextKey++, field, op, value: '', high: '' });
const newGroup = (logic: '_and' | '_or' = '_and', children: readonly Node[] = []): Group => ({
  kind: 'group',
  key: nextKey++,
  logic,
  children,
});

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const asText = (v: unknown): string =>
  v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);

/** A filter as a tree of groups and rules; null when the rules cannot show it (JSON only). */
function parseFilter(filter: unknown): Group | null {
  if (filter === null || filter === undefined) return newGroup();
  const node = parseNode(filter);
  if (node === null) return null;
  return node.kind === 'group' ? node : newGroup('_and', [node]);
}

function parseNode(filter: unknown): Node | null {
  if (!isRecord(filter)) return null;
  const keys = Object.keys(filter);
  if (keys.length === 1 && (keys[0] === '_and' || keys[0] === '_or')) {
    const list = filter[keys[0]];
    if (!Array.isArray(list)) return null;
    const children = list.map(parseNode);
    if (children.some((c) => c === null)) return null;
    return newGroup(keys[0], children as Node[]);
  }
  // Several fields in one object are an implicit _and.
  const rules = keys.map((k) => parseRule(k, filter[k]));
  if (rules.some((r) => r === null)) return null;
  if (rules.length === 1) return rules[0] ?? null;
  return newGroup('_and', rules as Rule[]);
}

function parseRule(field: string, body: unknown): Rule | null {
  if (field.startsWith('_') || !isRecord(body)) return null;
  const keys = Object.keys(body);
  if (keys.length !== 1) return null;
  const [key] = keys as [string];
  if (!key.startsWith('_')) {
    // A related field: { author: { name: { _eq: … } } }.
    const inner = parseRule(key, body[key]);
    return inner === null || inner.field.includes('.') ? null : { ...inner, field: `${field}.${inner.field}` };
  }
  const shape = SHAPE.get(key);
  if (shape === undefined) return null;
  const value = body[key];
  const rule = newRule(field, key);
  switch (shape) {
    case 'list':
      return { ...rule, value: Array.isArray(value) ? value.map(asText).join(', ') : asText(value) };
    case 'pair':
      if (!Array.isArray(value) || value.length !== 2) return null;
      return { ...rule, value: asText(value[0]), high: asText(value[1]) };
    case 'flag':
    case 'presence':
      return { ...rule, value: value === false || value === 'false' ? 'false' : 'true' };
    default:
      return { ...rule, value: asText(value) };
  }
}

/** A text typed as the field's type: numbers and booleans as such, variables and the rest as text. */
export function typed(text: string, type: string | undefined): unknown {
  const family = FAMILY_OF_TYPE[type ?? ''] ?? 'untyped';
  if (text.startsWith('$')) return text;
  if (family === 'number' && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (family === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  if (family === 'json' || family === 'geometry') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** The filter of a tree; rules without a field or a value yet are left out (null: no filter). */
function serialize(node: Node, typeOf: (path: string) => string | undefined): Record<string, unknown> | null {
  if (node.kind === 'group') {
    const children = node.children
      .map((c) => serialize(c, typeOf))
      .filter((c): c is Record<string, unknown> => c !== null);
    return children.length === 0 ? null : { [node.logic]: children };
  }
  if (node.field === '') return null;
  const shape = SHAPE.get(node.op) ?? 'scalar';
  const type = typeOf(node.field);
  let value: unknown;
  switch (shape) {
    case 'flag':
    case 'presence':
      value = node.value !== 'false';
      break;
    case 'list': {
      const items = node.value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      if (items.length === 0) return null;
      value = items.map((s) => typed(s, type));
      break;
    }
    case 'pair':
      if (node.value === '' || node.high === '') return null;
      value = [typed(node.value, type), typed(node.high, type)];
      break;
    default:
      if (node.value === '') return null;
      value = shape === 'scalar' ? typed(node.value, type) : node.value;
  }
  return node.field
    .split('.')
    .reduceRight<Record<string, unknown>>((inner, part) => ({ [part]: inner }), { [node.op]: value });
}

/** The root group's filter: one condition alone, several under the group's logic. */
function toFilter(root: Group, typeOf: (path: string) => string | undefined): Filter | null {
  const out = serialize(root, typeOf);
  if (out === null) return null;
  const list = out[root.logic] as Record<string, unknown>[];
  return (list.length === 1 && root.logic === '_and' ? list[0] : out) as Filter;
}

interface FieldChoice {
  readonly path: string;
  readonly label: string;
  readonly field: FieldInfo;
}

/** The fields a rule may name: the collection's own, and those of its many-to-ones' collections. */
function fieldChoices(collection: CollectionInfo, catalogue: Catalogue): FieldChoice[] {
  const out: FieldChoice[] = [];
  for (const f of collection.fields) {
    if (f.type === 'alias') continue;
    out.push({ path: f.name, label: f.name, field: f });
    if (f.relation?.kind !== 'm2o') continue;
    const related = collectionOf(catalogue, f.relation.collection);
    for (const g of related?.fields ?? [])
      if (g.type !== 'alias') out.push({ path: `${f.name}.${g.name}`, label: `${f.name} → ${g.name}`, field: g });
  }
  return out;
}

function mapNode(node: Group, key: number, change: (n: Node) => Node | null): Group {
  const children: Node[] = [];
  for (const c of node.children) {
    const next = c.key === key ? change(c) : c.kind === 'group' ? mapNode(c, key, change) : c;
    if (next !== null) children.push(next);
  }
  return { ...node, children };
}

export interface FilterBuilderProps {
  readonly collection: CollectionInfo;
  readonly catalogue: Catalogue;
  readonly value: Filter | null;
  onChange(value: Filter | null): void;
  /** Offer the dynamic variables ($CURRENT_USER, $CURRENT_ROLE, $NOW) as values. */
  readonly variables?: boolean;
  /** Offer the validation-only operators (`_regex`, `_submitted`). */
  readonly validation?: boolean;
  /** What the builder is for (its region's accessible name). */
  readonly label: string;
}

export function FilterBuilder(props: FilterBuilderProps): ReactElement {
  const { collection, catalogue, value, onChange, label } = props;
  const translate = useTranslate();
  const choices = useMemo(() => fieldChoices(collection, catalogue), [collection, catalogue]);
  const typeOf = (path: string) => choices.find((c) => c.path === path)?.field.type;
  const emitted = useRef<string>(JSON.stringify(value ?? null));
  const [root, setRoot] = useState<Group | null>(() => parseFilter(value));
  const [json, setJson] = useState<string>(() => (value === null ? '' : JSON.stringify(value, null, 2)));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [isJson, setIsJson] = useState<boolean>(() => root === null);

  // A value from outside (a bookmark, the URL) replaces what is shown.
  useEffect(() => {
    const text = JSON.stringify(value ?? null);
    if (text === emitted.current) return;
    emitted.current = text;
    const parsed = parseFilter(value);
    setRoot(parsed);
    setJson(value === null ? '' : JSON.stringify(value, null, 2));
    setJsonError(null);
    if (parsed === null) setIsJson(true);
  }, [value]);

  const emit = (filter: Filter | null) => {
    const text = JSON.stringify(filter);
    if (text === emitted.current) return;
    emitted.current = text;
    onChange(filter);
  };

  const update = (next: Group) => {
    setRoot(next);
    const filter = toFilter(next, typeOf);
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
      setRoot(parseFilter(parsed));
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

function RuleEditor({ rule, ctx }: { rule: Rule; ctx: NodeContext }): ReactElement {
  const translate = useTranslate();
  const choice = ctx.choices.find((c) => c.path === rule.field);
  const type = choice?.field.type ?? 'unknown';
  const ops = operatorsOf(type, ctx.validation);
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
          const nextOps = operatorsOf(next?.field.type ?? 'unknown', ctx.validation);
          set({ field: e.target.value, op: nextOps.includes(rule.op) ? rule.op : (nextOps[0] ?? '_eq') });
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
      <ValueEditor rule={rule} shape={shape} field={choice?.field} ctx={ctx} set={set} />
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
