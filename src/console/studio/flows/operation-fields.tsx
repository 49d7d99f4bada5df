/**
 * One operation's options by type, under the names the service reads (src/flows/operations.ts,
 * item-operations.ts, Directus's): plain inputs for the fixed ones, the CodeMirror JSON editor for
 * the free-form parts (a condition's filter, a payload, a query, headers). Every text may hold
 * `{{ $trigger.… }}`, `{{ $last }}` or an operation's key. A type this list does not know (an
 * extension's) is edited as its options' JSON.
 */
import { useEffect, useState } from 'react';
import { Box } from '@mui/material';
import { BooleanInput, NumberInput, SelectInput, TextInput, usePermissions } from 'react-admin';
import { client } from '../../session.js';
import type { Catalogue } from '../catalogue.js';
import { LazyCodeInput } from '../inputs/lazy-editors.js';

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].map((id) => ({ id, name: id }));
const PERMISSIONS = [
  { id: '$trigger', name: 'svc.flows.options.perm_trigger' },
  { id: '$public', name: 'svc.flows.options.perm_public' },
  { id: '$full', name: 'svc.flows.options.perm_full' },
];
const ITERATION = ['serial', 'batch', 'parallel'].map((id) => ({ id, name: `svc.flows.options.${id}` }));

function Json({ source, label }: { source: string; label: string }) {
  return <LazyCodeInput source={source} label={label} language="json" disabled={false} />;
}

function ItemFields({ prefix, type }: { prefix: string; type: string }) {
  const { permissions } = usePermissions<Catalogue | null>();
  const collections = (permissions?.collections ?? [])
    .filter((c) => !c.isFolder)
    .map((c) => ({ id: c.name, name: c.name }));
  return (
    <>
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
        <SelectInput source={`${prefix}.collection`} label="svc.flows.options.collection" choices={collections} />
        <SelectInput source={`${prefix}.permissions`} label="svc.flows.options.permissions" choices={PERMISSIONS} />
        <BooleanInput source={`${prefix}.emitEvents`} label="svc.flows.options.emit_events" />
      </Box>
      {type !== 'item-create' && <Json source={`${prefix}.key`} label="svc.flows.options.key" />}
      {(type === 'item-create' || type === 'item-update') && (
        <Json source={`${prefix}.payload`} label="svc.flows.options.payload" />
      )}
      {type !== 'item-create' && <Json source={`${prefix}.query`} label="svc.flows.options.query" />}
    </>
  );
}

function TriggerFlowFields({ prefix }: { prefix: string }) {
  const [flows, setFlows] = useState<{ id: string; name: string }[]>([]);
  useEffect(() => {
    client.flows.readByQuery({ fields: ['id', 'name'], filter: { trigger: { _eq: 'operation' } }, limit: -1 }).then(
      (r) => setFlows((r.data ?? []).map((f) => ({ id: String(f.id), name: String(f.name) }))),
      () => undefined,
    );
  }, []);
  return (
    <>
      <SelectInput source={`${prefix}.flow`} label="svc.flows.options.flow" choices={flows} />
      <Json source={`${prefix}.payload`} label="svc.flows.options.payload" />
      <SelectInput source={`${prefix}.iterationMode`} label="svc.flows.options.iteration_mode" choices={ITERATION} />
    </>
  );
}

export function OperationFields({ type, prefix }: { type: string; prefix: string }) {
  switch (type) {
    case 'log':
      return <TextInput source={`${prefix}.message`} label="svc.flows.options.message" fullWidth multiline />;
    case 'condition':
      return <Json source={`${prefix}.filter`} label="svc.flows.options.filter" />;
    case 'request':
      return (
        <>
          <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
            <SelectInput source={`${prefix}.method`} label="svc.flows.method" choices={METHODS} />
            <TextInput source={`${prefix}.url`} label="svc.flows.options.url" sx={{ flexGrow: 1 }} />
          </Box>
          <Json source={`${prefix}.headers`} label="svc.flows.options.headers" />
          <TextInput source={`${prefix}.body`} label="svc.flows.options.body" fullWidth multiline />
          <TextInput source={`${prefix}.secret`} label="svc.flows.options.secret" fullWidth />
        </>
      );
    case 'mail':
      return (
        <>
          <TextInput source={`${prefix}.to`} label="svc.flows.options.to" fullWidth />
          <TextInput source={`${prefix}.subject`} label="svc.flows.options.subject" fullWidth />
          <TextInput source={`${prefix}.body`} label="svc.flows.options.body" fullWidth multiline />
        </>
      );
    case 'item-create':
    case 'item-read':
    case 'item-update':
    case 'item-delete':
      return <ItemFields prefix={prefix} type={type} />;
    case 'transform':
      return <Json source={`${prefix}.json`} label="svc.flows.options.json" />;
    case 'sleep':
      return <NumberInput source={`${prefix}.milliseconds`} label="svc.flows.options.milliseconds" />;
    case 'trigger':
      return <TriggerFlowFields prefix={prefix} />;
    default:
      return <Json source={prefix} label="svc.flows.options.raw" />;
  }
}
