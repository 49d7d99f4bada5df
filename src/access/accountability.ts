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

/** A request without a token: the public role (reference/auth.md). */
export function publicAccountability(
  request: Pick<Accountability, 'ip' | 'userAgent' | 'origin'>,
): Accountability {
  return Object.freeze({ user: null, role: null, admin: false, app: false, ...request });
}
