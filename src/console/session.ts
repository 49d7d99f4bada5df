/**
 * The console's one client: the companion library in cookie mode (the refresh token lives in
 * the service's httpOnly cookie, the short access token in localStorage), against this origin.
 */
import { ContentClient, TransportError } from '../client/index.js';

export const client = new ContentClient(window.location.origin, {
  auth: { mode: 'cookie', autoRefresh: true },
  storage: { mode: 'LocalStorage', prefix: 'svc_console_' },
});

/** Set while signed in: only then is a refresh through the cookie worth trying (no 401 noise). */
const SIGNED_IN_KEY = 'svc_console_signed_in';

export function rememberSignIn(isSignedIn: boolean): void {
  if (isSignedIn) window.localStorage.setItem(SIGNED_IN_KEY, '1');
  else window.localStorage.removeItem(SIGNED_IN_KEY);
}

/**
 * Whether there is a session: an access token, else one refresh through the cookie after a
 * reload or on the way back from a single sign-on provider (`?sso`).
 */
export async function hasSession(): Promise<boolean> {
  if ((await client.auth.token) !== null) return true;
  const isBackFromSso = new URLSearchParams(window.location.search).has('sso');
  if (window.localStorage.getItem(SIGNED_IN_KEY) === null && !isBackFromSso) return false;
  try {
    await client.auth.refresh();
    rememberSignIn(true);
    return true;
  } catch {
    rememberSignIn(false);
    return false;
  }
}

/** A 401 means the session ended (expired refresh token, signed out elsewhere). */
export function isSignedOut(error: unknown): boolean {
  return error instanceof TransportError && error.response?.status === 401;
}
