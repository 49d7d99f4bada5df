/**
 * The flow's operations as a tree from the trigger (Directus draws a canvas; this is its outline):
 * the first operation, then each operation indented under the one whose success or failure leads
 * to it, with its key, type, options and its next step on success and on failure. An operation
 * may hang under one parent only, and never under one it leads to (flow-model.ts `nextChoices`),
 * so the chain cannot loop. Operations no path reaches are listed last, marked.
 */
import { useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  IconButton,
  MenuItem,
  TextField,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutline';
import { SelectInput, TextInput, useTranslate } from 'react-admin';
import { useFieldArray, useFormContext, useWatch } from 'react-hook-form';
import {
  chainOrder,
  emptyIsNull,
  newOperation,
  nextChoices,
  OPERATION_TYPES,
  type FlowDraft,
  type OperationDraft,
} from './flow-model.js';
import { OperationFields } from './operation-fields.js';

const typeName = (translate: (key: string, options?: object) => string, type: string) =>
  (OPERATION_TYPES as readonly string[]).includes(type) ? translate(`svc.flows.types.${type}`) : type;

export function OperationChain() {
  const translate = useTranslate();
  const { setValue, getValues } = useFormContext();
  const { append, remove } = useFieldArray({ name: 'operations', keyName: 'fieldKey' });
  const draft = useWatch() as FlowDraft;
  const operations = draft.operations ?? [];
  const [type, setType] = useState<string>('log');

  const add = () => {
    const op = newOperation(type, getValues('operations') as OperationDraft[]);
    append(op);
    if (getValues('operation') === null || getValues('operation') === undefined) setValue('operation', op.id);
  };

  /** Drops an operation and every link to it (the flow's first step, a parent's resolve or reject). */
  const drop = (id: string) => {
    const list = getValues('operations') as OperationDraft[];
    list.forEach((op, i) => {
      if (op.resolve === id) setValue(`operations.${i}.resolve`, null, { shouldDirty: true });
      if (op.reject === id) setValue(`operations.${i}.reject`, null, { shouldDirty: true });
    });
    if (getValues('operation') === id) setValue('operation', null, { shouldDirty: true });
    remove(list.findIndex((op) => op.id === id));
  };

  const firstChoices = operations.filter((op) => !operations.some((o) => o.resolve === op.id || o.reject === op.id));
  const ordered = chainOrder({ ...draft, operations });
  return (
    <Card component="section" aria-labelledby="flow-chain">
      <CardContent>
        <Typography id="flow-chain" variant="h6" component="h2">
          {translate('svc.flows.chain')}
        </Typography>
        {operations.length === 0 ? (
          <Alert severity="info">{translate('svc.flows.chain_empty')}</Alert>
        ) : (
          <SelectInput
            source="operation"
            label="svc.flows.first"
            choices={firstChoices.map((op) => ({ id: op.id, name: op.key }))}
            emptyText="svc.flows.none_next"
            parse={emptyIsNull}
          />
        )}
        <Box component="ol" sx={{ listStyle: 'none', p: 0, m: 0 }} aria-label={translate('svc.flows.chain')}>
          {ordered.map(({ op, depth, reached }) => (
            <OperationCard
              key={op.id}
              op={op}
              index={operations.findIndex((o) => o.id === op.id)}
              depth={depth}
              reached={reached}
              draft={{ ...draft, operations }}
              onRemove={() => drop(op.id)}
            />
          ))}
        </Box>
        <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', mt: 2, flexWrap: 'wrap' }}>
          <TextField
            select
            size="small"
            label={translate('svc.flows.add_type')}
            value={type}
            onChange={(e) => setType(e.target.value)}
            sx={{ minWidth: 220 }}
          >
            {OPERATION_TYPES.map((t) => (
              <MenuItem key={t} value={t}>
                {typeName(translate, t)}
              </MenuItem>
            ))}
          </TextField>
          <Button startIcon={<AddIcon />} onClick={add} variant="outlined">
            {translate('svc.flows.add')}
          </Button>
        </Box>
      </CardContent>
    </Card>
  );
}

interface CardProps {
  readonly op: OperationDraft;
  readonly index: number;
  readonly depth: number;
  readonly reached: boolean;
  readonly draft: FlowDraft;
  readonly onRemove: () => void;
}

function OperationCard({ op, index, depth, reached, draft, onRemove }: CardProps) {
  const translate = useTranslate();
  const next = (current: string | null) =>
    nextChoices(draft, op.id, current).map((o) => ({ id: o.id, name: o.key === '' ? o.id : o.key }));
  const heading = `op-${op.id}`;
  return (
    <Box
      component="li"
      aria-labelledby={heading}
      data-operation={op.key}
      sx={{ ml: { xs: Math.min(depth, 2) * 2, sm: Math.min(depth, 6) * 4 }, mt: 2 }}
    >
      <Card variant="outlined">
        <CardContent>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
            <Typography id={heading} variant="subtitle1" component="h3" sx={{ flexGrow: 1 }}>
              {translate('svc.flows.op_title', { key: op.key, type: typeName(translate, op.type) })}
            </Typography>
            {!reached && <Chip size="small" label={translate('svc.flows.unreached')} />}
            <IconButton aria-label={translate('svc.flows.op_remove', { key: op.key })} onClick={onRemove}>
              <DeleteIcon />
            </IconButton>
          </Box>
          <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
            <TextInput source={`operations.${index}.key`} label="svc.flows.op_key" />
            <TextInput source={`operations.${index}.name`} label="svc.flows.op_name" />
          </Box>
          <OperationFields type={op.type} prefix={`operations.${index}.options`} />
          <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
            <SelectInput
              source={`operations.${index}.resolve`}
              label="svc.flows.on_success"
              choices={next(op.resolve)}
              emptyText="svc.flows.none_next"
              parse={emptyIsNull}
            />
            <SelectInput
              source={`operations.${index}.reject`}
              label="svc.flows.on_failure"
              choices={next(op.reject)}
              emptyText="svc.flows.none_next"
              parse={emptyIsNull}
            />
          </Box>
        </CardContent>
      </Card>
    </Box>
  );
}
