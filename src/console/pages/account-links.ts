/**
 * The pages mailed links lead to: accept an invitation (/admin/accept-invite?token=), reset a
 * password (/admin/reset-password, with ?token= from the mail, without it to ask for the mail),
 * verify a registration (/admin/verify-email?token=).
 */
import { field, h, showErrors, statusLine } from '../dom.js';
import type { Page } from '../navigation.js';
import { client } from '../session.js';

export const acceptInvitePage: Page = (_params, query) => {
  const token = query.get('token');
  if (token === null) return Promise.resolve(missingToken('Accept invitation', 'invitation'));
  return Promise.resolve(
    newPasswordForm('Accept invitation', 'Choose a password for your new account.', 'Create account', (password) =>
      client.users.invites.accept(token, password),
    ),
  );
};

export const resetPasswordPage: Page = (_params, query) => {
  const token = query.get('token');
  if (token !== null) {
    return Promise.resolve(
      newPasswordForm('Reset password', 'Choose a new password.', 'Set password', (password) =>
        client.auth.password.reset(token, password),
      ),
    );
  }
  const email = field('E-mail', 'email', { type: 'email', autocomplete: 'username', required: true });
  const status = statusLine();
  const form = h('form', { class: 'card' }, email.row, h('button', { type: 'submit' }, 'Send reset link'), status);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    client.auth.password.request(email.input.value).then(
      () => (status.textContent = 'If the address has an account, a reset link is on its way.'),
      (error: unknown) => showErrors(form, status, error),
    );
  });
  return Promise.resolve(h('section', { class: 'narrow' }, h('h1', {}, 'Reset password'), form));
};

export const verifyEmailPage: Page = async (_params, query) => {
  const token = query.get('token');
  if (token === null) return missingToken('Verify e-mail', 'verification');
  const status = h('p', { class: 'status', role: 'status' });
  try {
    await client.transport.get('/users/register/verify-email', { params: { token }, headers: { Authorization: null } });
    status.append('Your e-mail address is verified. ', h('a', { href: '/admin/login' }, 'Sign in'), '.');
  } catch (error) {
    showErrors(status, status, error);
  }
  return h('section', { class: 'narrow' }, h('h1', {}, 'Verify e-mail'), status);
};

function missingToken(title: string, what: string): Node {
  return h(
    'section',
    { class: 'narrow' },
    h('h1', {}, title),
    h(
      'p',
      { class: 'status error', role: 'alert' },
      `This ${what} link has no token: open the link from the e-mail again.`,
    ),
  );
}

function newPasswordForm(
  title: string,
  intro: string,
  action: string,
  submit: (password: string) => Promise<void>,
): Node {
  const password = field('New password', 'password', {
    type: 'password',
    autocomplete: 'new-password',
    required: true,
  });
  const repeat = field('Repeat the password', 'repeat', {
    type: 'password',
    autocomplete: 'new-password',
    required: true,
  });
  const status = statusLine();
  const form = h(
    'form',
    { class: 'card' },
    h('p', {}, intro),
    password.row,
    repeat.row,
    h('button', { type: 'submit' }, action),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (password.input.value !== repeat.input.value) {
      showErrors(form, status, { errors: [{ message: 'The passwords differ.', extensions: { field: 'repeat' } }] });
      return;
    }
    submit(password.input.value).then(
      () => {
        form.replaceChildren(
          h(
            'p',
            { class: 'status', role: 'status' },
            'Done. ',
            h('a', { href: '/admin/login' }, 'Sign in'),
            ' with your new password.',
          ),
        );
      },
      (error: unknown) => showErrors(form, status, error),
    );
  });
  return h('section', { class: 'narrow' }, h('h1', {}, title), form);
}
