import { runWrite } from '../commands/run-write.js';
import type { CommandContext } from '../commands/types.js';
import { USERS_COLLECTION } from '../commands/user-rules.js';
import { UserModel } from '../db/models/system-models.js';
import { ForbiddenError, InvalidPayloadError } from '../errors.js';
import type { AuthContext } from './auth-context.js';
import { findUserByEmail } from './auth-user.js';
import { assertAllowedUrl, linkWithToken, sendLinkMail } from './mail-link.js';
import { signScopedToken, verifyScopedToken } from './scoped-token.js';

const SCOPE = 'invite';
const TOKEN_TTL = '7d';

export interface Invitation {
  readonly emails: readonly string[];
  readonly role: string;
  /** Where the mailed link leads instead of PUBLIC_URL/admin/accept-invite. */
  readonly inviteUrl: string | undefined;
}

/**
 * POST /users/invite, with the caller's write context: unknown
 * addresses become `invited` users of the role, invited ones get the role, both in one
 * audited write with the caller's permissions (create on svc_users needed up front); users
 * past the invitation are skipped silently. Each invited address is mailed a 7-day link.
 */
export async function inviteUsers(ctx: AuthContext, writer: CommandContext, invitation: Invitation): Promise<void> {
  const { role, inviteUrl } = invitation;
  assertAllowedUrl(inviteUrl, ctx.config.userInviteUrlAllowList, 'invite users');
  if (!writer.permissions.allows(USERS_COLLECTION, 'create')) throw new ForbiddenError();
  const emails = [...new Map(invitation.emails.map((e) => [e.toLowerCase(), e])).values()];
  const known = await Promise.all(emails.map(async (email) => ({ email, user: await findUserByEmail(ctx.db, email) })));
  const unknown = known.filter(({ user }) => user === undefined).map(({ email }) => email);
  const invited = known.flatMap(({ email, user }) => (user?.status === 'invited' ? [{ email, user }] : []));
  await runWrite(writer, async (items) => {
    if (unknown.length > 0)
      await items.createMany(
        USERS_COLLECTION,
        unknown.map((email) => ({ email, role, status: 'invited' })),
      );
    for (const { user } of invited) if (user.role !== role) await items.update(USERS_COLLECTION, user.id, { role });
  });
  for (const email of [...unknown, ...invited.map((i) => i.email)]) {
    const token = signScopedToken(ctx.config.secret, { email, scope: SCOPE }, TOKEN_TTL);
    sendLinkMail(ctx, {
      to: email,
      subject: "You've been invited",
      intro: 'You have been invited to the project. Open this link to choose your password and accept the invitation.',
      label: 'Accept the invitation',
      link: linkWithToken(ctx.config, inviteUrl, '/admin/accept-invite', token),
      outro: 'If you did not expect this invitation, ignore this e-mail.',
    });
  }
}

/**
 * POST /users/invite/accept: an invite token (scope `invite`, else FORBIDDEN) of a user still
 * `invited` sets their password (policy, argon2) and makes them active, once (concurrent
 * accepts included), written by the service in `system`'s context (audited, no caller user).
 */
export async function acceptInvite(
  ctx: AuthContext,
  system: CommandContext,
  token: string,
  password: string,
): Promise<void> {
  const { email } = verifyScopedToken(token, ctx.config.secret, SCOPE);
  const notInvited = () => new InvalidPayloadError(`Email address ${email} hasn't been invited`);
  const user = await findUserByEmail(ctx.db, email);
  if (user?.status !== 'invited') throw notInvited();
  await runWrite(system, async (items, trx) => {
    // Locks the row for this write (a no-op update): concurrent accepts of one invitation wait,
    // then find it no longer invited, so one of them sets the password.
    const isInvited = await UserModel.query(trx)
      .findById(user.id)
      .where('status', 'invited')
      .patch({ status: 'invited' });
    if (isInvited === 0) throw notInvited();
    await items.update(USERS_COLLECTION, user.id, { password, status: 'active' });
  });
}
