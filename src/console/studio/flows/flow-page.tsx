/**
 * One flow (/admin/settings/flows/:id, `+` for a new one), as Directus's flow page has it: its
 * name, colour and status, the trigger and its options, the chain of operations, saved together
 * in one request (flow-model.ts); below, the run log and the dead letters. What the service
 * refuses is shown at the form, as it answered.
 */
import { useEffect, useState } from 'react';
import { Alert, Box, Button, Card, CardContent, LinearProgress, Stack, Typography } from '@mui/material';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import {
  Confirm,
  Form,
  SaveButton,
  SelectInput,
  TextInput,
  Title,
  required,
  useNotify,
  useTranslate,
} from 'react-admin';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { errorText } from '../../dom.js';
import { client } from '../../session.js';
import { ColorInput } from '../inputs/color-input.js';
import { FlowsGate } from './flows-gate.js';
import { draftProblems, emptyDraft, emptyIsNull, savePayload, toDraft, type FlowDraft } from './flow-model.js';
import { OperationChain } from './operation-chain.js';
import { RunLog } from './run-log.js';
import { TriggerFields } from './trigger-fields.js';

export default function FlowPage() {
  const { id = '+' } = useParams();
  return (
    <FlowsGate>
      <FlowLoader key={id} id={id === '+' ? undefined : id} />
    </FlowsGate>
  );
}

function FlowLoader({ id }: { id: string | undefined }) {
  const [loaded, setLoaded] = useState<{ draft: FlowDraft; stored: string[] } | undefined>(
    id === undefined ? { draft: emptyDraft(), stored: [] } : undefined,
  );
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (id === undefined) return;
    client.flows.readOne(id, { fields: ['*', 'operations.*'] }).then(
      (flow) => {
        const operations = (flow?.operations ?? []).filter((op) => typeof op === 'object');
        const draft = toDraft(flow ?? {}, operations);
        setLoaded({ draft, stored: draft.operations.map((op) => op.id) });
      },
      (e: unknown) => setError(errorText(e)),
    );
  }, [id]);
  if (error !== undefined) return <Alert severity="error">{error}</Alert>;
  if (loaded === undefined) return <LinearProgress />;
  return (
    <FlowEditor
      id={id}
      draft={loaded.draft}
      stored={loaded.stored}
      onSaved={(draft) => setLoaded({ draft, stored: draft.operations.map((op) => op.id) })}
    />
  );
}

interface EditorProps {
  readonly id: string | undefined;
  readonly draft: FlowDraft;
  readonly stored: readonly string[];
  readonly onSaved: (draft: FlowDraft) => void;
}

function FlowEditor({ id, draft, stored, onSaved }: EditorProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const [refusal, setRefusal] = useState<string | undefined>(undefined);
  const [isDeleting, setDeleting] = useState(false);
  const [runsVersion, setRunsVersion] = useState(0);

  const save = async (values: Record<string, unknown>) => {
    const next = values as unknown as FlowDraft;
    setRefusal(undefined);
    const { body, removed } = savePayload(next, stored, id);
    try {
      const saved =
        id === undefined
          ? await client.flows.createOne(body)
          : await client.flows.updateOne(id, body, { fields: ['id'] });
      if (removed.length > 0) await client.operations.deleteMany(removed);
      notify('svc.flows.saved', { type: 'success' });
      const savedDraft = { ...next, operations: next.operations.map((op) => ({ ...op, stored: true })) };
      if (id === undefined) navigate(`/settings/flows/${encodeURIComponent(String(saved?.id ?? body['id']))}`);
      else onSaved(savedDraft);
      setRunsVersion((v) => v + 1);
    } catch (e) {
      setRefusal(errorText(e));
    }
  };

  const validate = (values: Record<string, unknown>) => {
    const problems = draftProblems(values as unknown as FlowDraft);
    if (problems.length === 0) return {};
    const operations: Record<string, unknown>[] = [];
    for (const problem of problems)
      operations[problem.index] = { key: { message: problem.message, args: problem.args } };
    return { operations };
  };

  const remove = async () => {
    if (id === undefined) return;
    try {
      await client.flows.deleteOne(id);
      notify('svc.flows.deleted', { type: 'success' });
      navigate('/settings/flows');
    } catch (e) {
      setRefusal(errorText(e));
      setDeleting(false);
    }
  };

  const title =
    id === undefined ? translate('svc.flows.create_title') : translate('svc.flows.edit_title', { name: draft.name });
  return (
    <Box sx={{ mt: 2, maxWidth: 960 }}>
      <Title title={title} />
      <Button component={Link} to="/settings/flows" startIcon={<ArrowBackIcon />} sx={{ mb: 1 }}>
        {translate('svc.flows.back')}
      </Button>
      <Form
        key={runsVersion}
        record={draft as unknown as Record<string, unknown>}
        onSubmit={(v: Record<string, unknown>) => void save(v)}
        validate={validate}
        noValidate
      >
        <Stack spacing={2}>
          <Card component="section" aria-labelledby="flow-settings">
            <CardContent>
              <Typography id="flow-settings" variant="h6" component="h2">
                {translate('svc.flows.settings')}
              </Typography>
              <TextInput source="name" label="svc.flows.name" validate={required()} fullWidth />
              <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
                <SelectInput
                  source="status"
                  label="svc.flows.status"
                  choices={[
                    { id: 'active', name: 'svc.flows.active' },
                    { id: 'inactive', name: 'svc.flows.inactive' },
                  ]}
                  validate={required()}
                />
                <ColorInput source="color" label="svc.flows.color" disabled={false} />
                <SelectInput
                  source="accountability"
                  label="svc.flows.accountability"
                  emptyText="svc.flows.accountability_none"
                  parse={emptyIsNull}
                  choices={[
                    { id: 'all', name: 'svc.flows.accountability_all' },
                    { id: 'activity', name: 'svc.flows.accountability_activity' },
                  ]}
                />
              </Box>
              <TextInput source="description" label="svc.flows.description" fullWidth multiline />
            </CardContent>
          </Card>
          <TriggerFields id={id} />
          <OperationChain />
          {refusal !== undefined && (
            <Alert severity="error" role="alert" data-refusal>
              {refusal}
            </Alert>
          )}
          <Box sx={{ display: 'flex', justifyContent: 'space-between' }}>
            <SaveButton alwaysEnable />
            {id !== undefined && (
              <Button color="error" onClick={() => setDeleting(true)}>
                {translate('svc.flows.delete')}
              </Button>
            )}
          </Box>
        </Stack>
      </Form>
      {id !== undefined && <RunLog key={runsVersion} flow={id} />}
      <Confirm
        isOpen={isDeleting}
        title="svc.flows.delete"
        content="svc.flows.delete_confirm"
        translateOptions={{ name: draft.name }}
        onConfirm={() => void remove()}
        onClose={() => setDeleting(false)}
      />
    </Box>
  );
}
