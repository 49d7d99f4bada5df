import { Router } from 'express';
import { serviceAccountability, type Accountability } from '../../access/accountability.js';
import type { AuthContext } from '../../auth/auth-context.js';
import { acceptInvite, inviteUsers } from '../../auth/invites.js';
import { registerUser, verifyRegistration } from '../../auth/registration.js';
import { commandContext } from '../../commands/command-context.js';
import type { CommandContext } from '../../commands/types.js';
import { InvalidPayloadError } from '../../errors.js';
import { isUuid } from '../../query/validate/filter-values.js';
import { readBody, readEmail, readOptionalString, readRequiredString } from '../payload.js';
import type { ItemWriteDeps } from './item-writes.js';

export interface AccountRouteDeps extends ItemWriteDeps {
  readonly auth: AuthContext;
}

/**
 * Invites and public registration under /users. Inviting needs create permission on svc_users; accepting,
 * registering and verifying are public.
 */
export function usersAccountRoutes(deps: AccountRouteDeps): Router {
  const router = Router();

  router.post('/invite', async (req, res) => {
    await inviteFrom(deps, req.accountability, readBody(req));
    res.status(204).end();
  });

  router.post('/invite/accept', async (req, res) => {
    await acceptInviteFrom(deps, req.accountability, readBody(req));
    res.status(204).end();
  });

  router.post('/register', async (req, res) => {
    await registerFrom(deps, req.accountability, readBody(req));
    res.status(204).end();
  });

  router.get('/register/verify-email', async (req, res) => {
    const token = req.query['token'];
    // The mailed link opened in a browser: the console's page verifies it and says what happened.
    if (typeof token === 'string' && req.accepts(['json', 'html']) === 'html') {
      res.redirect(303, `../../admin/verify-email?token=${encodeURIComponent(token)}`);
      return;
    }
    const url = await verifyRegistrationFrom(deps, req.accountability, typeof token === 'string' ? { token } : {});
    if (url === undefined) res.status(204).end();
    else res.redirect(url);
  });

  return router;
}

/*
 * The operations on a request body, shared by the routes above and GraphQL's users_invite,
 * users_invite_accept, users_register and users_register_verify.
 */

export async function inviteFrom(
  deps: AccountRouteDeps,
  caller: Accountability,
  body: Record<string, unknown>,
): Promise<void> {
  const invitation = {
    emails: readEmails(body),
    role: readRole(body),
    inviteUrl: readOptionalString(body, 'invite_url'),
  };
  await inviteUsers(deps.auth, await writeContext(deps, caller), invitation);
}

export async function acceptInviteFrom(
  deps: AccountRouteDeps,
  caller: Accountability,
  body: Record<string, unknown>,
): Promise<void> {
  const token = readRequiredString(body, 'token');
  const password = readRequiredString(body, 'password');
  await acceptInvite(deps.auth, await writeContext(deps, serviceAccountability(caller)), token, password);
}

export async function registerFrom(
  deps: AccountRouteDeps,
  caller: Accountability,
  body: Record<string, unknown>,
): Promise<void> {
  const registration = {
    email: readEmail(body),
    password: readRequiredString(body, 'password'),
    verificationUrl: readOptionalString(body, 'verification_url'),
    firstName: readOptionalString(body, 'first_name'),
    lastName: readOptionalString(body, 'last_name'),
  };
  await registerUser(deps.auth, await writeContext(deps, serviceAccountability(caller)), registration);
}

/** The verification_url to redirect to, if the registration named one. */
export async function verifyRegistrationFrom(
  deps: AccountRouteDeps,
  caller: Accountability,
  body: Record<string, unknown>,
): Promise<string | undefined> {
  const token = readRequiredString(body, 'token');
  return verifyRegistration(deps.auth, await writeContext(deps, serviceAccountability(caller)), token);
}

async function writeContext(deps: AccountRouteDeps, accountability: Accountability): Promise<CommandContext> {
  return commandContext(deps, accountability, await deps.schema.getOverview());
}

/** `email`: one address or a non-empty list of them (Joi's wording). */
function readEmails(body: Record<string, unknown>): string[] {
  const value = body['email'];
  if (!Array.isArray(value)) return [readEmail(body)];
  if (value.length === 0) throw new InvalidPayloadError('"email" must contain at least 1 items');
  return value.map((email: unknown) => readEmail({ email }));
}

function readRole(body: Record<string, unknown>): string {
  const role = readRequiredString(body, 'role');
  if (!isUuid(role)) throw new InvalidPayloadError('"role" must be a valid GUID');
  return role;
}
