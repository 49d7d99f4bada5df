/**
 * Shows a plan before it runs: each request (in words, and as method, path and body), and for a
 * destructive one what it loses; then runs the requests in order, stops at the first refusal
 * (shown in the dialog), and re-reads the catalogue so the navigation follows the schema.
 */
import { useState, type ReactElement } from 'react';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  List,
  ListItem,
  ListItemText,
  Typography,
} from '@mui/material';
import { useNotify, useTranslate } from 'react-admin';
import { errorText } from '../../dom.js';
import { useCatalogueChanged } from '../providers.js';
import type { Plan } from './plan.js';

export function PlanDialog(props: {
  readonly plan: Plan | null;
  readonly onClose: () => void;
  readonly onDone: () => void;
}): ReactElement {
  const { plan, onClose, onDone } = props;
  const translate = useTranslate();
  const notify = useNotify();
  const changed = useCatalogueChanged();
  const [error, setError] = useState<string | null>(null);
  const [isRunning, setIsRunning] = useState(false);
  const close = () => {
    setError(null);
    onClose();
  };
  const apply = async () => {
    if (plan === null) return;
    setIsRunning(true);
    setError(null);
    let done = 0;
    try {
      for (const step of plan.steps) {
        await step.run();
        done += 1;
      }
      notify('svc.datamodel.applied', { type: 'success' });
      onDone();
    } catch (e) {
      setError(translate('svc.datamodel.failed', { done, total: plan.steps.length, error: errorText(e) }));
    } finally {
      setIsRunning(false);
      if (done > 0) changed();
    }
  };
  const isDestructive = plan?.loss !== undefined;
  return (
    <Dialog open={plan !== null} onClose={close} fullWidth maxWidth="md" aria-labelledby="plan-title">
      <DialogTitle id="plan-title">{translate('svc.datamodel.preview')}</DialogTitle>
      <DialogContent>
        {plan?.loss !== undefined && (
          <Alert severity="warning" sx={{ mb: 2 }}>
            {translate(plan.loss.message, plan.loss.params)}
          </Alert>
        )}
        <Typography variant="body2">
          {translate('svc.datamodel.requests', { smart_count: plan?.steps.length ?? 0 })}
        </Typography>
        <List dense aria-label={translate('svc.datamodel.preview')}>
          {plan?.steps.map((step, i) => (
            <ListItem key={i} disableGutters sx={{ display: 'block' }}>
              <ListItemText primary={translate(step.message, step.params)} secondary={`${step.method} ${step.path}`} />
              {step.body !== undefined && (
                <Box
                  component="pre"
                  sx={{ m: 0, p: 1, bgcolor: 'grey.100', fontSize: 12, overflowX: 'auto', maxHeight: 160 }}
                  tabIndex={0}
                  aria-label={`${step.method} ${step.path}`}
                >
                  {JSON.stringify(step.body, null, 2)}
                </Box>
              )}
            </ListItem>
          ))}
        </List>
        {error !== null && (
          <Alert severity="error" role="alert">
            {error}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={close}>{translate('ra.action.cancel')}</Button>
        <Button
          variant="contained"
          color={isDestructive ? 'error' : 'primary'}
          disabled={isRunning}
          onClick={() => void apply()}
        >
          {translate(isDestructive ? 'svc.datamodel.apply_destructive' : 'svc.datamodel.apply')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
