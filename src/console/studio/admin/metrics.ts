/**
 * The Prometheus text exposition of GET /server/metrics, read into samples, and the few numbers
 * the operations page shows (src/http/metrics.ts names them).
 */

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** `name{a="b",c="d"} 1.5` lines; comments (# HELP, # TYPE) and blank lines skipped. */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1] ?? ''] = pair[2] ?? '';
    samples.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return samples;
}

export interface MetricsSummary {
  readonly requests: number;
  /** Mean time to answer, in milliseconds (undefined before any request). */
  readonly meanLatencyMs: number | undefined;
  /** Jobs waiting, active and delayed (undefined while the queue does not answer). */
  readonly queueDepth: number | undefined;
  readonly liveSubscriptions: number | undefined;
}

export function summarize(samples: readonly Sample[]): MetricsSummary {
  const sum = (name: string) => samples.filter((s) => s.name === name).reduce((total, s) => total + s.value, 0);
  const has = (name: string) => samples.some((s) => s.name === name);
  const count = sum('svc_http_request_duration_seconds_count');
  return {
    requests: sum('svc_http_requests_total'),
    meanLatencyMs:
      count === 0 ? undefined : Math.round((sum('svc_http_request_duration_seconds_sum') / count) * 1000 * 10) / 10,
    queueDepth: has('svc_jobs_queue_depth') ? sum('svc_jobs_queue_depth') : undefined,
    liveSubscriptions: has('svc_live_subscriptions') ? sum('svc_live_subscriptions') : undefined,
  };
}
