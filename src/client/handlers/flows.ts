import { pathSegment } from '../errors.js';
import { ItemsHandler } from '../items.js';
import type { ITransport } from '../transport.js';
import type { DeadLetter, FlowType, ID, WebhookOptions } from '../types.js';

/** svc_flows items plus the flows' own routes: a trigger, the dead letters and their replay. */
export class FlowsHandler<T = FlowType> extends ItemsHandler<T> {
  constructor(transport: ITransport) {
    super('svc_flows', transport);
  }

  /**
   * Runs a webhook or manual flow (`/flows/trigger/:id`; a manual flow takes `{collection,
   * keys}`): its `return` as the server answers it (not enveloped), undefined for 204.
   */
  async trigger(id: ID, body?: unknown, method: 'GET' | 'POST' = 'POST'): Promise<unknown> {
    const path = `/flows/trigger/${pathSegment('id', id)}`;
    const response = method === 'GET' ? await this.transport.get(path) : await this.transport.post(path, body ?? {});
    return response.status === 204 ? undefined : response.raw;
  }

  /**
   * A webhook as Directus users know one: a URL told of `events` on `collections`, signed with
   * `secret` (Standard Webhooks), optionally only when `filter` matches the event
   * (`{ payload: { status: { _eq: 'published' } } }`). Saved as an after-commit event flow with
   * one `request` operation whose body is the event (`$trigger`), in one request; a delivery
   * the receiver refuses is retried with the queue's backoff unless `retry` is false. Answers
   * the flow.
   */
  async webhook(options: WebhookOptions): Promise<T> {
    const operation = globalThis.crypto.randomUUID();
    const flow = {
      name: options.name ?? `Webhook to ${options.url}`,
      status: 'active',
      accountability: 'all',
      trigger: 'event',
      operation,
      options: {
        type: 'action',
        scope: options.events.map((event) => (event.includes('.') ? event : `items.${event}`)),
        collections: options.collections,
        ...(options.filter === undefined ? {} : { filter: options.filter }),
        retry: options.retry ?? true,
      },
      operations: [
        {
          id: operation,
          key: 'webhook',
          type: 'request',
          options: {
            method: options.method ?? 'POST',
            url: options.url,
            body: '{{ $trigger }}',
            ...(options.secret === undefined ? {} : { secret: options.secret }),
          },
        },
      ],
    };
    return (await this.transport.post<T>('/flows', flow)).data as T;
  }

  /** The dead letters: queued runs whose retries ran out, newest first (administrators). */
  async deadLetters(): Promise<DeadLetter[]> {
    return (await this.transport.get<DeadLetter[]>('/flows/runs')).data ?? [];
  }

  /** Queues a dead letter again; answers the new run's key. */
  async replay(key: string): Promise<string> {
    const answer = await this.transport.post<{ key: string }>(`/flows/runs/${pathSegment('key', key)}/replay`);
    return answer.data?.key ?? '';
  }
}
