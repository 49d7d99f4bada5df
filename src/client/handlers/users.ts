import { pathSegment } from '../errors.js';
import { ItemsHandler, requestWith } from '../items.js';
import type { ITransport } from '../transport.js';
import type { QueryOne, UserType } from '../types.js';

/** Invitations: send one, or accept one with the e-mailed token. */
export class InvitesHandler {
  constructor(private readonly transport: ITransport) {}

  async send(email: string | readonly string[], role: string, invite_url?: string): Promise<void> {
    await this.transport.post('/users/invite', { email, role, invite_url });
  }

  async accept(token: string, password: string): Promise<void> {
    await this.transport.post('/users/invite/accept', { token, password });
  }
}

/** The caller's two-factor authentication. */
export class TFAHandler {
  constructor(private readonly transport: ITransport) {}

  /** A new secret and its otpauth URL, confirmed with the caller's password. */
  async generate(password: string): Promise<{ secret: string; otpauth_url: string } | undefined> {
    return (await this.transport.post<{ secret: string; otpauth_url: string }>('/users/me/tfa/generate', { password }))
      .data;
  }

  async enable(secret: string, otp: string): Promise<void> {
    await this.transport.post('/users/me/tfa/enable', { secret, otp });
  }

  async disable(otp: string): Promise<void> {
    await this.transport.post('/users/me/tfa/disable', { otp });
  }
}

/** The caller's own user: read, update, and `tfa`. */
export class MeHandler<T = UserType> {
  readonly tfa: TFAHandler;

  constructor(private readonly transport: ITransport) {
    this.tfa = new TFAHandler(transport);
  }

  async read(query?: QueryOne): Promise<T | undefined> {
    return (await this.transport.get<T>('/users/me', requestWith(query))).data;
  }

  async update(data: Partial<T>, query?: QueryOne): Promise<T | undefined> {
    return (await this.transport.patch<T>('/users/me', data, requestWith(query))).data;
  }
}

/** svc_users items plus `invites`, `me` and `tfa` (the spec's alias of `me.tfa`). */
export class UsersHandler<T = UserType> extends ItemsHandler<T> {
  readonly invites: InvitesHandler;
  readonly me: MeHandler<T>;
  readonly tfa: TFAHandler;

  constructor(transport: ITransport) {
    super('svc_users', transport);
    this.invites = new InvitesHandler(transport);
    this.me = new MeHandler<T>(transport);
    this.tfa = this.me.tfa;
  }

  /** An administrator turns off another user's two-factor authentication. */
  async disableTfa(id: string): Promise<void> {
    await this.transport.post(`/users/${pathSegment('id', id)}/tfa/disable`);
  }
}
