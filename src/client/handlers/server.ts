import type { ITransport } from '../transport.js';
import type { ServerInfo } from '../types.js';

/** /server: ping, info, metrics and the OpenAPI document. */
export class ServerHandler {
  constructor(private readonly transport: ITransport) {}

  /** `'pong'`, as the server sent it. */
  async ping(): Promise<string> {
    return (await this.transport.get<never, string>('/server/ping')).raw;
  }

  /** What /server/info answers the session; `{ public: true }`: what it answers anyone (no token sent). */
  async info(options: { readonly public?: boolean } = {}): Promise<ServerInfo | undefined> {
    const headers = options.public === true ? { Authorization: null } : undefined;
    return (await this.transport.get<ServerInfo>('/server/info', headers === undefined ? {} : { headers })).data;
  }

  /** GET /server/metrics (METRICS_ENABLED; administrators): the Prometheus text exposition. */
  async metrics(): Promise<string> {
    return (await this.transport.get<never, string>('/server/metrics', { responseType: 'text' })).raw;
  }

  async oas(): Promise<Record<string, unknown>> {
    return (await this.transport.get<never, Record<string, unknown>>('/server/specs/oas')).raw;
  }
}
