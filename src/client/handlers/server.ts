import type { ITransport } from '../transport.js';
import type { ServerInfo } from '../types.js';

/** /server: ping, info, metrics and the OpenAPI document. */
export class ServerHandler {
  constructor(private readonly transport: ITransport) {}

  /** `'pong'`, as the server sent it. */
  async ping(): Promise<string> {
    return (await this.transport.get<never, string>('/server/ping')).raw;
  }

  async info(): Promise<ServerInfo | undefined> {
    return (await this.transport.get<ServerInfo>('/server/info')).data;
  }

  /** GET /server/metrics (METRICS_ENABLED; administrators): the Prometheus text exposition. */
  async metrics(): Promise<string> {
    return (await this.transport.get<never, string>('/server/metrics', { responseType: 'text' })).raw;
  }

  async oas(): Promise<Record<string, unknown>> {
    return (await this.transport.get<never, Record<string, unknown>>('/server/specs/oas')).raw;
  }
}
