/**
 * The item page's buttons for the active manual flows that list its collection (Directus puts them
 * in the item's sidebar): each runs its flow on this item (`POST /flows/trigger/:id` with
 * `{collection, keys}`), after a confirmation when the flow asks for one. A role that may not read
 * svc_flows sees none (Directus gives every app user read access to manual flows; this service's
 * app-access rows do not, yet).
 */
import { useEffect, useState } from 'react';
import { Button } from '@mui/material';
import PlayIcon from '@mui/icons-material/PlayArrowOutlined';
import { Confirm, useNotify, usePermissions, useRecordContext, useTranslate } from 'react-admin';
import { errorText } from '../../dom.js';
import { client } from '../../session.js';
import { mayReadSystem, type Catalogue } from '../catalogue.js';

interface ManualFlow {
  readonly id: string;
  readonly name: string;
  readonly options: Record<string, unknown>;
}

/** The flows to offer; asked only of a role that may read svc_flows (a refusal would be an error in the page). */
function useManualFlows(collection: string): ManualFlow[] {
  const { permissions } = usePermissions<Catalogue | null>();
  const mayRead = mayReadSystem(permissions, 'svc_flows');
  const [flows, setFlows] = useState<ManualFlow[]>([]);
  useEffect(() => {
    if (!mayRead) return undefined;
    let isCurrent = true;
    client.flows
      .readByQuery({
        fields: ['id', 'name', 'options'],
        filter: { trigger: { _eq: 'manual' }, status: { _eq: 'active' } },
        sort: ['name'],
        limit: -1,
      })
      .then(
        (answer) => {
          if (!isCurrent) return;
          const all = (answer.data ?? []).map((f) => ({
            id: String(f.id),
            name: String(f.name),
            options: f.options ?? {},
          }));
          setFlows(
            all.filter((f) => Array.isArray(f.options['collections']) && f.options['collections'].includes(collection)),
          );
        },
        () => undefined,
      );
    return () => {
      isCurrent = false;
    };
  }, [collection, mayRead]);
  return flows;
}

function RunButton({ flow, collection, itemKey }: { flow: ManualFlow; collection: string; itemKey: unknown }) {
  const translate = useTranslate();
  const notify = useNotify();
  const [isAsking, setAsking] = useState(false);
  const [isRunning, setRunning] = useState(false);
  const run = async () => {
    setAsking(false);
    setRunning(true);
    try {
      await client.flows.trigger(flow.id, { collection, keys: [itemKey] });
      notify('svc.flows.run_done', { type: 'success', messageArgs: { name: flow.name } });
    } catch (e) {
      notify(errorText(e), { type: 'error' });
    } finally {
      setRunning(false);
    }
  };
  const description = flow.options['confirmationDescription'];
  return (
    <>
      <Button
        size="small"
        startIcon={<PlayIcon />}
        disabled={isRunning}
        onClick={() => (flow.options['requireConfirmation'] === true ? setAsking(true) : void run())}
      >
        {translate('svc.flows.run_manual', { name: flow.name })}
      </Button>
      <Confirm
        isOpen={isAsking}
        title="svc.flows.run_confirm_title"
        translateOptions={{ name: flow.name }}
        content={<span>{typeof description === 'string' ? description : ''}</span>}
        confirm="svc.flows.run_confirm"
        cancel="svc.flows.run_cancel"
        onConfirm={() => void run()}
        onClose={() => setAsking(false)}
      />
    </>
  );
}

/** The manual flows' buttons for the item in the record context. */
export function ManualFlowButtons({ collection }: { collection: string }) {
  const record = useRecordContext();
  const flows = useManualFlows(collection);
  if (record === undefined) return null;
  return (
    <>
      {flows.map((flow) => (
        <RunButton key={flow.id} flow={flow} collection={collection} itemKey={record.id} />
      ))}
    </>
  );
}
