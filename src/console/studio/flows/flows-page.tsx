/**
 * The flows (/admin/settings/flows, administrators), as Directus's Flows module lists them: each
 * flow's colour, name, trigger, an active switch (saved at once) and, for a role that may read
 * the runs (`mayReadRuns`), how its last logged run went; a flow opens its editor (flow-page.tsx).
 */
import { useCallback, useEffect, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  LinearProgress,
  Link as MuiLink,
  Switch,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import { Title, useNotify, usePermissions, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import type { FlowType } from '../../../client/index.js';
import { errorText } from '../../dom.js';
import { client } from '../../session.js';
import type { Catalogue } from '../catalogue.js';
import { FlowsGate } from './flows-gate.js';
import { lastRuns, mayReadRuns, type RunState } from './runs.js';

type Row = Pick<FlowType, 'id' | 'name' | 'color' | 'status' | 'trigger'>;

export default function FlowsPage() {
  return (
    <FlowsGate>
      <FlowList />
    </FlowsGate>
  );
}

function FlowList() {
  const translate = useTranslate();
  const notify = useNotify();
  const { permissions } = usePermissions<Catalogue | null>();
  // Without the runs, no "Last run" column: "Not run yet" would be a guess.
  const showsRuns = mayReadRuns(permissions);
  const [flows, setFlows] = useState<Row[] | undefined>(undefined);
  const [runs, setRuns] = useState<ReadonlyMap<string, RunState>>(new Map());
  const [error, setError] = useState<string | undefined>(undefined);

  const load = useCallback(async () => {
    try {
      const answer = await client.flows.readByQuery({
        fields: ['id', 'name', 'color', 'status', 'trigger'],
        sort: ['name'],
        limit: -1,
      });
      const rows = (answer.data ?? []) as Row[];
      setFlows(rows);
      if (showsRuns) setRuns(await lastRuns(rows.map((r) => r.id)));
    } catch (e) {
      setError(errorText(e));
    }
  }, [showsRuns]);
  useEffect(() => void load(), [load]);

  const toggle = async (flow: Row) => {
    const status = flow.status === 'active' ? 'inactive' : 'active';
    try {
      await client.flows.updateOne(flow.id, { status });
      setFlows((list) => list?.map((f) => (f.id === flow.id ? { ...f, status } : f)));
    } catch (e) {
      notify(errorText(e), { type: 'error' });
    }
  };

  // A grid of one minmax(0, 1fr) column, as the operations page: the layout's flex row sizes
  // its content by the table's width otherwise, which on a phone (the last-run column) widened
  // the page instead of scrolling the table in its card.
  return (
    <Box sx={{ mt: 2, minWidth: 0, maxWidth: '100vw', display: 'grid', gridTemplateColumns: 'minmax(0, 1fr)' }}>
      <Title title={translate('svc.flows.title')} />
      <Box sx={{ display: 'flex', justifyContent: 'flex-end', mb: 1 }}>
        <Button component={Link} to="/settings/flows/+" variant="contained" startIcon={<AddIcon />}>
          {translate('svc.flows.new')}
        </Button>
      </Box>
      {error !== undefined && <Alert severity="error">{error}</Alert>}
      {flows === undefined && error === undefined && <LinearProgress />}
      {flows?.length === 0 && <Alert severity="info">{translate('svc.flows.none')}</Alert>}
      {flows !== undefined && flows.length > 0 && (
        <Card sx={{ overflowX: 'auto' }}>
          <Table size="small" aria-label={translate('svc.flows.title')}>
            <TableHead>
              <TableRow>
                <TableCell>{translate('svc.flows.name')}</TableCell>
                <TableCell>{translate('svc.flows.trigger')}</TableCell>
                <TableCell>{translate('svc.flows.active')}</TableCell>
                {showsRuns && <TableCell>{translate('svc.flows.last_run')}</TableCell>}
              </TableRow>
            </TableHead>
            <TableBody>
              {flows.map((flow) => (
                <TableRow key={flow.id} data-flow={flow.name}>
                  <TableCell>
                    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
                      <Box
                        aria-hidden
                        sx={{
                          width: 12,
                          height: 12,
                          borderRadius: '50%',
                          flexShrink: 0,
                          bgcolor: flow.color ?? 'action.disabled',
                        }}
                      />
                      <MuiLink component={Link} to={`/settings/flows/${encodeURIComponent(flow.id)}`}>
                        {flow.name}
                      </MuiLink>
                    </Box>
                  </TableCell>
                  <TableCell>{flow.trigger === null ? '–' : translate(`svc.flows.triggers.${flow.trigger}`)}</TableCell>
                  <TableCell>
                    <Switch
                      checked={flow.status === 'active'}
                      onChange={() => void toggle(flow)}
                      slotProps={{ input: { 'aria-label': translate('svc.flows.status_of', { name: flow.name }) } }}
                    />
                  </TableCell>
                  {showsRuns && (
                    <TableCell>
                      <RunStateText state={runs.get(flow.id)} />
                    </TableCell>
                  )}
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Card>
      )}
    </Box>
  );
}

function RunStateText({ state }: { state: RunState | undefined }) {
  const translate = useTranslate();
  if (state === undefined) return <span>{translate('svc.flows.never_run')}</span>;
  const when = new Date(state.timestamp).toLocaleString();
  const outcome =
    state.failed === undefined ? '' : ` · ${translate(state.failed ? 'svc.flows.run_failed' : 'svc.flows.run_ok')}`;
  return <span>{`${when}${outcome}`}</span>;
}
