/** Who is calling: resolved once per request from the token (or its absence). */
export interface Accountability {
  readonly user: string | null;
  readonly role: string | null;
  readonly admin: boolean;
  readonly app: boolean;
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly origin: string | null;
}

/** Where a request came from, before anyone is known to have sent it. */
export type RequestOrigin = Pick<Accountability, 'ip' | 'userAgent' | 'origin'>;

/** A request without a token: the public role. */
export function publicAccountability(request: RequestOrigin): Accountability {
  return Object.freeze({ user: null, role: null, admin: false, app: false, ...request });
}

/**
 * The service acting for an anonymous request on its own authority (accepting an invite,
 * registering, verifying an e-mail address): full access and no user, the request's IP,
 * user agent and origin kept so the journal still says where the write came from.
 */
export function serviceAccountability(request: Accountability): Accountability {
  const { ip, userAgent, origin } = request;
  return Object.freeze({ user: null, role: null, admin: true, app: false, ip, userAgent, origin });
}

/**
 * The service's own work, asked by no request (the items service without a caller, the
 * command line, the export cleanup): full access and no user; `agent` names the part that
 * acts, so the journal says who wrote (`cli`, `export cleanup`).
 */
export function ownAccountability(agent: string | null = null): Accountability {
  return Object.freeze({ user: null, role: null, admin: true, app: false, ip: null, userAgent: agent, origin: null });
}
