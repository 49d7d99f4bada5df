/**
 * Operations (/admin/operations, administrators): the server's health (GET /server/health),
 * metrics at a glance from GET /server/metrics (requests, latency, queue depth, live
 * subscriptions; METRICS_ENABLED), the export jobs (their svc_activity rows: running and
 * failed, with the error; a failed one retried through POST /utils/export/jobs/:id/retry) and
 * clearing the caches.
 */
import { useCallback, useEffect, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Grid,
  LinearProgress,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { visuallyHidden } from '@mui/utils';
import { Title, useAuthenticated, useTranslate } from 'react-admin';
import { client } from '../../session.js';
import { errorText } from '../../dom.js';
import { parseMetrics, summarize, type MetricsSummary } from './metrics.js';

interface Health {
  readonly status: string;
  readonly checks?: Readonly<
    Record<string, readonly { status?: string; observedValue?: unknown; observedUnit?: string; output?: string }[]>
  >;
}

interface ExportRow {
  readonly id: string;
  readonly collection: string;
  readonly timestamp: string;
  readonly status: string;
  readonly attempt: number;
  readonly error: string | null;
}

function Section({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <Card component="section" aria-labelledby={id} sx={{ mb: 2, minWidth: 0, maxWidth: '100%' }}>
      <CardContent>
        <Typography id={id} variant="h6" component="h2" gutterBottom>
          {title}
        </Typography>
        {children}
      </CardContent>
    </Card>
  );
}

function HealthCard() {
  const translate = useTranslate();
  const [health, setHealth] = useState<Health | { error: string } | undefined>(undefined);
  const load = useCallback(() => {
    setHealth(undefined);
    client.transport.get<never, Health>('/server/health').then(
      (answer) => setHealth(answer.raw),
      (error: unknown) => {
        // 503 answers the same body with status "error".
        const raw = (error as { response?: { raw?: unknown } }).response?.raw;
        setHealth(typeof raw === 'object' && raw !== null ? (raw as Health) : { error: errorText(error) });
      },
    );
  }, []);
  useEffect(load, [load]);
  const rows =
    health === undefined || 'error' in health
      ? []
      : Object.entries(health.checks ?? {}).flatMap(([name, checks]) =>
          checks.map((c, i) => ({ key: `${name}-${i}`, name, ...c })),
        );
  return (
    <Section id="health-title" title={translate('svc.admin.health')}>
      {health === undefined && <LinearProgress aria-label={translate('svc.page.loading')} />}
      {health !== undefined && 'error' in health && <Alert severity="error">{health.error}</Alert>}
      {health !== undefined && !('error' in health) && (
        <>
          <Typography>
            {translate('svc.admin.status')}: <strong data-health={health.status}>{health.status}</strong>
          </Typography>
          {rows.length > 0 && (
            <TableContainer sx={{ my: 1 }} tabIndex={0} role="region" aria-labelledby="health-title">
              <Table size="small">
                <TableHead>
                  <TableRow>
                    <TableCell>{translate('svc.admin.check')}</TableCell>
                    <TableCell>{translate('svc.admin.status')}</TableCell>
                    <TableCell>{translate('svc.admin.value')}</TableCell>
                    <TableCell>{translate('svc.admin.output')}</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {rows.map((r) => (
                    <TableRow key={r.key}>
                      <TableCell component="th" scope="row" sx={{ overflowWrap: 'anywhere' }}>
                        {r.name}
                      </TableCell>
                      <TableCell>{r.status ?? ''}</TableCell>
                      <TableCell>
                        {r.observedValue === undefined ? '' : `${String(r.observedValue)} ${r.observedUnit ?? ''}`}
                      </TableCell>
                      <TableCell sx={{ overflowWrap: 'anywhere' }}>{r.output ?? ''}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
          )}
        </>
      )}
      <Button variant="outlined" onClick={load}>
        {translate('svc.admin.check_again')}
      </Button>
    </Section>
  );
}

function MetricsCard() {
  const translate = useTranslate();
  const [metrics, setMetrics] = useState<MetricsSummary | { error: string } | undefined>(undefined);
  useEffect(() => {
    client.server.metrics().then(
      (text) => setMetrics(summarize(parseMetrics(text))),
      (error: unknown) => setMetrics({ error: errorText(error) }),
    );
  }, []);
  const tile = (label: string, value: string, name: string) => (
    <Grid size={{ xs: 6, md: 3 }}>
      <Box sx={{ p: 1, border: 1, borderColor: 'divider', borderRadius: 1 }} data-metric={name}>
        <Typography variant="body2">{label}</Typography>
        <Typography variant="h5" component="p">
          {value}
        </Typography>
      </Box>
    </Grid>
  );
  const dash = (n: number | undefined, unit = '') => (n === undefined ? '—' : `${n}${unit}`);
  return (
    <Section id="metrics-title" title={translate('svc.admin.metrics')}>
      {metrics === undefined && <LinearProgress aria-label={translate('svc.page.loading')} />}
      {metrics !== undefined && 'error' in metrics && (
        <Alert severity="info">{translate('svc.admin.metrics_off', { error: metrics.error })}</Alert>
      )}
      {metrics !== undefined && !('error' in metrics) && (
        <Grid container spacing={1}>
          {tile(translate('svc.admin.requests'), dash(metrics.requests), 'requests')}
          {tile(translate('svc.admin.latency'), dash(metrics.meanLatencyMs, ' ms'), 'latency')}
          {tile(translate('svc.admin.queue'), dash(metrics.queueDepth), 'queue')}
          {tile(translate('svc.admin.subscriptions'), dash(metrics.liveSubscriptions), 'subscriptions')}
        </Grid>
      )}
    </Section>
  );
}

function ExportJobs() {
  const translate = useTranslate();
  const [rows, setRows] = useState<ExportRow[] | { error: string } | undefined>(undefined);
  const [retryStatus, setRetryStatus] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const load = useCallback(() => {
    client.activity
      .readByQuery({
        filter: { action: { _eq: 'export' } },
        fields: ['item', 'collection', 'timestamp', 'comment'],
        sort: ['-timestamp'],
        limit: 50,
      })
      .then(
        (answer) =>
          setRows(
            (answer.data ?? []).map((row) => {
              let status: { status?: string; attempt?: number; error?: string | null } = {};
              try {
                status = JSON.parse(String(row.comment)) as typeof status;
              } catch {
                // An unreadable status row shows as unknown.
              }
              return {
                id: String(row.item),
                collection: String(row.collection),
                timestamp: String(row.timestamp),
                status: status.status ?? 'unknown',
                attempt: status.attempt ?? 0,
                error: status.error ?? null,
              };
            }),
          ),
        (error: unknown) => setRows({ error: errorText(error) }),
      );
  }, []);
  useEffect(load, [load]);
  const retry = (row: ExportRow) => {
    setRetryStatus(undefined);
    client.transport.post(`/utils/export/jobs/${encodeURIComponent(row.id)}/retry`).then(
      () => {
        setRetryStatus({ ok: true, text: translate('svc.admin.retried', { collection: row.collection }) });
        load();
      },
      (error: unknown) => setRetryStatus({ ok: false, text: errorText(error) }),
    );
  };
  const visible = Array.isArray(rows) ? rows.filter((r) => r.status !== 'done') : [];
  return (
    <Section id="jobs-title" title={translate('svc.admin.jobs')}>
      <Typography variant="body2" sx={{ mb: 1 }}>
        {translate('svc.admin.jobs_note')}
      </Typography>
      {rows === undefined && <LinearProgress aria-label={translate('svc.page.loading')} />}
      {rows !== undefined && !Array.isArray(rows) && <Alert severity="error">{rows.error}</Alert>}
      {Array.isArray(rows) && visible.length === 0 && <Typography>{translate('svc.admin.no_jobs')}</Typography>}
      {visible.length > 0 && (
        // Positioned: the Retry column's visually hidden heading is placed within the scrolling
        // table, not beside it (it widened the page by the table's overflow at 390 px).
        <TableContainer tabIndex={0} role="region" aria-labelledby="jobs-title" sx={{ position: 'relative' }}>
          <Table size="small" aria-labelledby="jobs-title">
            <TableHead>
              <TableRow>
                <TableCell>{translate('svc.admin.collection')}</TableCell>
                <TableCell>{translate('svc.admin.status')}</TableCell>
                <TableCell>{translate('svc.admin.when')}</TableCell>
                <TableCell>{translate('svc.admin.error')}</TableCell>
                <TableCell>
                  <Box component="span" sx={visuallyHidden}>
                    {translate('svc.admin.retry')}
                  </Box>
                </TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {visible.map((r) => (
                <TableRow key={r.id} data-job={r.id} data-status={r.status}>
                  <TableCell>{r.collection}</TableCell>
                  <TableCell>
                    {r.status}
                    {r.attempt > 1 ? ` (${translate('svc.admin.attempt', { n: r.attempt })})` : ''}
                  </TableCell>
                  <TableCell>{new Date(r.timestamp).toLocaleString()}</TableCell>
                  <TableCell sx={{ overflowWrap: 'anywhere' }}>{r.error ?? ''}</TableCell>
                  <TableCell>
                    {r.status === 'failed' && (
                      <Button
                        size="small"
                        variant="outlined"
                        aria-label={translate('svc.admin.retry_job', { collection: r.collection })}
                        onClick={() => retry(r)}
                      >
                        {translate('svc.admin.retry')}
                      </Button>
                    )}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      {retryStatus !== undefined && (
        <Typography role="status" color={retryStatus.ok ? 'text.primary' : 'error'} sx={{ mt: 1 }}>
          {retryStatus.text}
        </Typography>
      )}
    </Section>
  );
}

function CachesCard() {
  const translate = useTranslate();
  const [status, setStatus] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const clear = () => {
    setStatus({ ok: true, text: translate('svc.admin.clearing') });
    client.utils.cache.clear().then(
      () => setStatus({ ok: true, text: translate('svc.admin.cleared', { time: new Date().toLocaleTimeString() }) }),
      (error: unknown) => setStatus({ ok: false, text: errorText(error) }),
    );
  };
  return (
    <Section id="caches-title" title={translate('svc.admin.caches')}>
      <Typography sx={{ mb: 1 }}>{translate('svc.admin.caches_note')}</Typography>
      <Button variant="contained" onClick={clear}>
        {translate('svc.admin.clear_caches')}
      </Button>
      {status !== undefined && (
        <Typography role="status" color={status.ok ? 'text.primary' : 'error'} sx={{ mt: 1 }}>
          {status.text}
        </Typography>
      )}
    </Section>
  );
}

export default function OperationsPage() {
  const { isPending } = useAuthenticated();
  const translate = useTranslate();
  if (isPending) return <LinearProgress />;
  return (
    <Box sx={{ py: 2, minWidth: 0, maxWidth: '100vw', display: 'grid', gridTemplateColumns: 'minmax(0, 1fr)' }}>
      <Title title={translate('svc.admin.operations_title')} />
      <HealthCard />
      <MetricsCard />
      <ExportJobs />
      <CachesCard />
    </Box>
  );
}
