/**
 * The flow's trigger and its options, by type, as Directus names them (`options.*`): an event
 * hook's type (action, or a blocking filter), scope, collections and a payload filter (the shared
 * FilterBuilder over the first collection, stored as `{payload: …}` since the service matches it
 * against `$trigger`); a schedule's cron; a webhook's method, `async` and `return`; a manual
 * flow's collections and confirmation. `retry` makes failed queued runs dead letters.
 */
import { Box, Card, CardContent, Typography } from '@mui/material';
import { BooleanInput, SelectArrayInput, SelectInput, TextInput, usePermissions, useTranslate } from 'react-admin';
import { useController, useWatch } from 'react-hook-form';
import type { Filter } from '../../../client/index.js';
import { collectionOf, type Catalogue } from '../catalogue.js';
import { FilterBuilder } from '../filter-builder.js';
import { LazyCodeInput } from '../inputs/lazy-editors.js';
import { TRIGGER_TYPES } from './flow-model.js';

const SCOPES = ['items.create', 'items.update', 'items.delete'].map((id) => ({ id, name: id }));
const METHODS = ['GET', 'POST'].map((id) => ({ id, name: id }));

function useCollectionChoices(): { choices: { id: string; name: string }[]; catalogue: Catalogue | null } {
  const { permissions } = usePermissions<Catalogue | null>();
  const catalogue = permissions ?? null;
  const choices = (catalogue?.collections ?? []).filter((c) => !c.isFolder).map((c) => ({ id: c.name, name: c.name }));
  return { choices, catalogue };
}

/** The payload filter: the builder when it is `{payload: filter}` over a known collection, else JSON. */
function PayloadFilter({ catalogue }: { catalogue: Catalogue | null }) {
  const translate = useTranslate();
  const collections = useWatch({ name: 'options.collections' }) as unknown;
  const first = Array.isArray(collections) ? String(collections[0] ?? '') : '';
  const collection = catalogue === null ? undefined : collectionOf(catalogue, first);
  const { field } = useController({ name: 'options.filter' });
  const value = field.value as Record<string, unknown> | null | undefined;
  const isPayloadOnly =
    value === null || value === undefined || (Object.keys(value).length === 1 && 'payload' in value);
  if (collection === undefined || catalogue === null || !isPayloadOnly) {
    return <LazyCodeInput source="options.filter" label="svc.flows.only_when" language="json" disabled={false} />;
  }
  return (
    <Box sx={{ mt: 1 }}>
      <Typography variant="subtitle2" component="h3">
        {translate('svc.flows.only_when')}
      </Typography>
      <FilterBuilder
        collection={collection}
        catalogue={catalogue}
        value={(value?.['payload'] as Filter | undefined) ?? null}
        onChange={(filter) => field.onChange(filter === null ? null : { payload: filter })}
        variables
        label={translate('svc.flows.only_when')}
      />
    </Box>
  );
}

export function TriggerFields({ id }: { id: string | undefined }) {
  const translate = useTranslate();
  const trigger = useWatch({ name: 'trigger' }) as string;
  const isAsync = useWatch({ name: 'options.async' }) === true;
  const { choices, catalogue } = useCollectionChoices();
  const url = id === undefined ? undefined : `${location.origin}/flows/trigger/${id}`;
  return (
    <Card component="section" aria-labelledby="flow-trigger">
      <CardContent>
        <Typography id="flow-trigger" variant="h6" component="h2">
          {translate('svc.flows.trigger_section')}
        </Typography>
        <SelectInput
          source="trigger"
          label="svc.flows.trigger"
          choices={TRIGGER_TYPES.map((t) => ({ id: t, name: `svc.flows.triggers.${t}` }))}
          validate={(v: unknown) => (v === null || v === undefined || v === '' ? 'ra.validation.required' : undefined)}
        />
        {trigger === 'event' && (
          <>
            <SelectInput
              source="options.type"
              label="svc.flows.event_type"
              choices={[
                { id: 'action', name: 'svc.flows.event_action' },
                { id: 'filter', name: 'svc.flows.event_filter' },
              ]}
              defaultValue="action"
            />
            <SelectArrayInput source="options.scope" label="svc.flows.scope" choices={SCOPES} fullWidth />
            <SelectArrayInput source="options.collections" label="svc.flows.collections" choices={choices} fullWidth />
            <PayloadFilter catalogue={catalogue} />
          </>
        )}
        {trigger === 'schedule' && (
          <TextInput source="options.cron" label="svc.flows.cron" helperText="svc.flows.cron_help" fullWidth />
        )}
        {trigger === 'webhook' && (
          <>
            <SelectInput source="options.method" label="svc.flows.method" choices={METHODS} defaultValue="GET" />
            <BooleanInput source="options.async" label="svc.flows.async" />
            {!isAsync && (
              <TextInput source="options.return" label="svc.flows.return" helperText="svc.flows.return_help" />
            )}
            {url !== undefined && (
              <Typography variant="body2">{translate('svc.flows.trigger_url', { url })}</Typography>
            )}
          </>
        )}
        {trigger === 'manual' && (
          <>
            <SelectArrayInput source="options.collections" label="svc.flows.collections" choices={choices} fullWidth />
            <BooleanInput source="options.requireSelection" label="svc.flows.require_selection" defaultValue />
            <BooleanInput source="options.requireConfirmation" label="svc.flows.require_confirmation" />
            <TextInput source="options.confirmationDescription" label="svc.flows.confirmation_description" fullWidth />
            <BooleanInput source="options.async" label="svc.flows.async" />
          </>
        )}
        {trigger === 'operation' && (
          <TextInput source="options.return" label="svc.flows.return" helperText="svc.flows.return_help" />
        )}
        {trigger !== 'manual' && trigger !== 'operation' && (
          <BooleanInput source="options.retry" label="svc.flows.retry" />
        )}
      </CardContent>
    </Card>
  );
}
