/**
 * Below a flow's form: its logged runs, newest first, each opening to the trigger's data and
 * every operation's options (its input, rendered), output or error, and time; then, for
 * administrators (the API's `GET /flows/runs` is theirs), the flow's dead letters (queued runs
 * whose retries ran out) with a Replay button each. A role that may not read the runs
 * (`mayReadRuns`) is told who may, instead of being shown the API's refusal.
 */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import {
  Accordion,
  AccordionDetails,
  AccordionSummary,
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  LinearProgress,
  List,
  ListItem,
  Typography,
} from '@mui/material';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import RefreshIcon from '@mui/icons-material/Refresh';
import { useNotify, usePermissions, useTranslate } from 'react-admin';
import type { DeadLetter } from '../../../client/index.js';
import { errorText } from '../../dom.js';
import { client } from '../../session.js';
import type { Catalogue } from '../catalogue.js';
import { hasFailed, mayReadRuns, readRuns, type Run, type RunStep } from './runs.js';

function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <Box sx={{ mt: 1 }}>
      <Typography variant="caption" component="p">
        {label}
      </Typography>
      <Box
        component="pre"
        role="group"
        tabIndex={0}
        aria-label={label}
        sx={{ m: 0, p: 1, bgcolor: 'action.hover', overflowX: 'auto', fontSize: 12, maxHeight: 240 }}
      >
        {JSON.stringify(value ?? null, null, 2)}
      </Box>
    </Box>
  );
}

function Step({ step }: { step: RunStep }) {
  const translate = useTranslate();
  const failed = step.status === 'reject';
  return (
    <Box
      component="li"
      data-step={step.key}
      sx={{ mt: 1, borderLeft: 3, borderColor: failed ? 'error.main' : 'success.main', pl: 1 }}
    >
      <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
        <Typography variant="subtitle2" component="h3">
          {step.key}
        </Typography>
        <Chip
          size="small"
          color={failed ? 'error' : 'success'}
          label={translate(failed ? 'svc.flows.on_failure' : 'svc.flows.on_success')}
        />
        {step.duration_ms !== undefined && (
          <Typography variant="caption">{translate('svc.flows.step_duration', { ms: step.duration_ms })}</Typography>
        )}
      </Box>
      <Json value={step.options} label={translate('svc.flows.step_input')} />
      <Json value={step.data} label={translate('svc.flows.step_output')} />
    </Box>
  );
}

function RunEntry({ run }: { run: Run }) {
  const translate = useTranslate();
  const failed = hasFailed(run);
  const when = new Date(run.timestamp).toLocaleString();
  return (
    <Accordion disableGutters data-run={run.id} slotProps={{ transition: { unmountOnExit: true } }}>
      <AccordionSummary expandIcon={<ExpandMoreIcon />}>
        <Typography sx={{ flexGrow: 1 }}>{translate('svc.flows.run_at', { when })}</Typography>
        {failed !== undefined && (
          <Chip
            size="small"
            color={failed ? 'error' : 'success'}
            label={translate(failed ? 'svc.flows.run_failed' : 'svc.flows.run_ok')}
          />
        )}
      </AccordionSummary>
      <AccordionDetails>
        <Json value={run.trigger} label={translate('svc.flows.run_trigger')} />
        <Box component="ol" sx={{ listStyle: 'none', p: 0, m: 0 }}>
          {(run.steps ?? []).map((step, i) => (
            <Step key={`${step.key}-${i}`} step={step} />
          ))}
        </Box>
      </AccordionDetails>
    </Accordion>
  );
}

function RunLogCard({ children, action }: { children: ReactNode; action?: ReactNode }) {
  const translate = useTranslate();
  return (
    <Card component="section" aria-labelledby="flow-runs" sx={{ mt: 2 }}>
      <CardContent>
        <Box sx={{ display: 'flex', alignItems: 'center' }}>
          <Typography id="flow-runs" variant="h6" component="h2" sx={{ flexGrow: 1 }}>
            {translate('svc.flows.runs')}
          </Typography>
          {action}
        </Box>
        {children}
      </CardContent>
    </Card>
  );
}

export function RunLog({ flow }: { flow: string }) {
  const translate = useTranslate();
  const { permissions } = usePermissions<Catalogue | null>();
  if (!mayReadRuns(permissions))
    return (
      <RunLogCard>
        <Typography color="text.secondary">{translate('svc.flows.runs_not_allowed')}</Typography>
      </RunLogCard>
    );
  return <Runs flow={flow} isAdmin={permissions?.me?.adminAccess === true} />;
}

function Runs({ flow, isAdmin }: { flow: string; isAdmin: boolean }) {
  const translate = useTranslate();
  const notify = useNotify();
  const [runs, setRuns] = useState<Run[] | undefined>(undefined);
  const [dead, setDead] = useState<DeadLetter[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);

  const load = useCallback(async () => {
    setError(undefined);
    try {
      const [read, letters] = await Promise.all([
        readRuns(flow),
        isAdmin ? client.flows.deadLetters() : ([] as DeadLetter[]),
      ]);
      setRuns(read);
      setDead(letters.filter((d) => d.flow === flow));
    } catch (e) {
      setError(errorText(e));
    }
  }, [flow, isAdmin]);
  useEffect(() => void load(), [load]);

  const replay = async (key: string) => {
    try {
      const queued = await client.flows.replay(key);
      notify('svc.flows.replayed', { type: 'success', messageArgs: { key: queued } });
      await load();
    } catch (e) {
      notify(errorText(e), { type: 'error' });
    }
  };

  return (
    <RunLogCard
      action={
        <Button startIcon={<RefreshIcon />} onClick={() => void load()}>
          {translate('svc.flows.refresh')}
        </Button>
      }
    >
      {error !== undefined && <Alert severity="error">{error}</Alert>}
      {runs === undefined && error === undefined && <LinearProgress />}
      {runs?.length === 0 && <Typography>{translate('svc.flows.runs_none')}</Typography>}
      {runs?.map((run) => (
        <RunEntry key={run.id} run={run} />
      ))}
      {isAdmin && (
        <>
          <Typography variant="subtitle1" component="h3" sx={{ mt: 2 }}>
            {translate('svc.flows.dead_letters')}
          </Typography>
          {dead.length === 0 ? (
            <Typography variant="body2">{translate('svc.flows.dead_none')}</Typography>
          ) : (
            <List dense>
              {dead.map((letter) => (
                <ListItem
                  key={letter.key}
                  data-dead-letter={letter.key}
                  secondaryAction={
                    <Button onClick={() => void replay(letter.key)}>{translate('svc.flows.replay')}</Button>
                  }
                >
                  <Typography variant="body2" sx={{ pr: 10 }}>
                    {`${new Date(letter.created).toLocaleString()} · ${letter.error ?? ''}`}
                  </Typography>
                </ListItem>
              ))}
            </List>
          )}
        </>
      )}
    </RunLogCard>
  );
}
