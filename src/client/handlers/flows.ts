import { pathSegment } from '../errors.js';
import { ItemsHandler } from '../items.js';
import type { ITransport } from '../transport.js';
import type { DeadLetter, FlowType, ID } from '../types.js';

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
