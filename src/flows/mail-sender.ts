import type { FlowDeps } from './types.js';

/** The `mail` operation's sender over the service's mailer (src/auth/mailer.ts): one mail per address. */
export function mailSender(mailer: {
  send(mail: { to: string; subject: string; text: string; html: string }): Promise<void>;
}): NonNullable<FlowDeps['sendMail']> {
  return async ({ to, subject, html, text }) => {
    for (const address of to) {
      await mailer.send({ to: address, subject, html: html ?? text ?? '', text: text ?? html ?? '' });
    }
  };
}
