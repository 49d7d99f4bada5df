import { handleCreate } from '../../commands/create.js';
import { handleUpdate } from '../../commands/update.js';
import type { CommandContext } from '../../commands/types.js';
import { USERS_COLLECTION } from '../../commands/user-rules.js';
import type { AuthProviderConfig } from '../../config/index.js';
import { UserModel } from '../../db/models/system-models.js';
import { InvalidCredentialsError, RecordNotUniqueError } from '../../errors.js';
import type { Logger } from '../../logger/index.js';
import type { AuthContext } from '../auth-context.js';
import { findUserByEmail, findUserByExternalIdentifier, findUserById, type AuthUser } from '../auth-user.js';
import type { ProviderProfile } from './sso-driver.js';

/**
 * The user a provider's profile stands for (svc_users.provider + external_identifier, the
 * profile's IDENTIFIER_KEY; when that is the e-mail, only with `email_verified: true`). A stranger becomes a user when ALLOW_PUBLIC_REGISTRATION (the
 * mapped role, else DEFAULT_ROLE_ID), written by the service through the commands (audited).
 * An e-mail address of an existing user is never taken over, except under
 * LINK_VERIFIED_EMAIL with the provider saying `email_verified: true` for a password user
 * who has no provider yet. ROLE_MAPPING is applied at every login. A user who is not active
 * is refused. Every refusal is INVALID_CREDENTIALS, logged with its reason.
 */
export async function resolveSsoUser(
  ctx: Pick<AuthContext, 'db' | 'logger'>,
  system: CommandContext,
  provider: AuthProviderConfig,
  profile: ProviderProfile,
): Promise<AuthUser> {
  const refuse = refusal(ctx.logger, provider);
  const identifier = stringClaim(profile, provider.identifierKey);
  if (identifier === undefined) throw refuse(`the profile has no "${provider.identifierKey}"`);
  // An address anyone may claim at the provider is not an identity: with the e-mail as the
  // identifier, the provider must say it checked it, or an unverified claim of the victim's
  // address would sign in as the victim.
  if (identifiesByEmail(provider) && profile['email_verified'] !== true) {
    throw refuse(
      `the identifier "${provider.identifierKey}" is an e-mail address the provider does not say is verified`,
    );
  }
  const user =
    (await findUserByExternalIdentifier(ctx.db, provider.name, identifier)) ??
    (await linkOrCreate(ctx, system, provider, profile, identifier));
  if (user.status !== 'active') throw refuse(`the user is ${user.status}`);
  const mappedRole = mapRole(provider, profile);
  if (mappedRole === undefined || mappedRole === user.role) return user;
  await handleUpdate(
    { kind: 'update', collection: USERS_COLLECTION, keys: [user.id], data: { role: mappedRole } },
    system,
  );
  return requireUser(ctx, user.id, refuse);
}

async function linkOrCreate(
  ctx: Pick<AuthContext, 'db' | 'logger'>,
  system: CommandContext,
  provider: AuthProviderConfig,
  profile: ProviderProfile,
  identifier: string,
): Promise<AuthUser> {
  const refuse = refusal(ctx.logger, provider);
  const email = stringClaim(profile, provider.emailKey)?.toLowerCase();
  const holder = email === undefined ? undefined : await findUserByEmail(ctx.db, email);
  if (holder !== undefined) {
    const mayLink = provider.linkVerifiedEmail && profile['email_verified'] === true && holder.provider === 'default';
    if (!mayLink) throw refuse('the e-mail address belongs to another user');
    const linked = await UserModel.query(ctx.db)
      .findById(holder.id)
      .where('provider', 'default')
      .whereNull('external_identifier')
      .select('id');
    if (linked === undefined) throw refuse('the user of this e-mail address is already linked');
    await writeUser(refuse, () =>
      handleUpdate(
        {
          kind: 'update',
          collection: USERS_COLLECTION,
          keys: [holder.id],
          data: { provider: provider.name, external_identifier: identifier },
        },
        system,
      ),
    );
    return requireUser(ctx, holder.id, refuse);
  }
  if (!provider.allowPublicRegistration) throw refuse('unknown user, and public registration is off');
  const data = {
    provider: provider.name,
    external_identifier: identifier,
    email: email ?? null,
    first_name: provider.firstNameKey === undefined ? null : (stringClaim(profile, provider.firstNameKey) ?? null),
    last_name: provider.lastNameKey === undefined ? null : (stringClaim(profile, provider.lastNameKey) ?? null),
    role: mapRole(provider, profile) ?? provider.defaultRoleId ?? null,
    status: 'active',
  };
  const [id] = await writeUser(refuse, () =>
    handleCreate({ kind: 'create', collection: USERS_COLLECTION, data: [data] }, system),
  );
  return requireUser(ctx, String(id), refuse);
}

/** A write that a unique e-mail or external_identifier of another user (a race, another provider) refuses. */
async function writeUser<T>(refuse: (reason: string) => Error, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof RecordNotUniqueError) throw refuse(`another user has this ${error.extensions.field}`);
    throw error;
  }
}

async function requireUser(
  ctx: Pick<AuthContext, 'db'>,
  id: string,
  refuse: (reason: string) => Error,
): Promise<AuthUser> {
  const user = await findUserById(ctx.db, id);
  if (user === undefined) throw refuse('the user is gone');
  return user;
}

/** ROLE_MAPPING: the role of the first value of the GROUP_CLAIM_NAME claim that it maps. */
function mapRole(provider: AuthProviderConfig, profile: ProviderProfile): string | undefined {
  const claim = profile[provider.groupClaimName];
  const values = Array.isArray(claim) ? claim : [claim];
  for (const value of values) {
    if (typeof value === 'string' && Object.hasOwn(provider.roleMapping, value)) return provider.roleMapping[value];
  }
  return undefined;
}

/** IDENTIFIER_KEY names the e-mail: `email`, or the provider's EMAIL_KEY. */
function identifiesByEmail(provider: AuthProviderConfig): boolean {
  return provider.identifierKey === 'email' || provider.identifierKey === provider.emailKey;
}

function stringClaim(profile: ProviderProfile, key: string): string | undefined {
  const value = profile[key];
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function refusal(logger: Logger, provider: AuthProviderConfig): (reason: string) => Error {
  return (reason) => {
    logger.warn({ provider: provider.name, reason }, 'SSO login refused');
    return new InvalidCredentialsError();
  };
}
