/**
 * The pages mailed links lead to: accept an invitation (/admin/accept-invite?token=), reset a
 * password (/admin/reset-password, with ?token= from the mail, without it to ask for the mail),
 * verify a registration (/admin/verify-email?token=). Their strings: `svc.links.*`.
 */
import { field, h, showErrors, statusLine, withLink } from '../dom.js';
import type { Page, Translate } from '../navigation.js';
import { client } from '../session.js';

export const acceptInvitePage: Page = (_params, query, t) => {
  const token = query.get('token');
  if (token === null) return Promise.resolve(missingToken(t('svc.links.accept'), t('svc.links.no_invite_token')));
  return Promise.resolve(
    newPasswordForm(
      t,
      { title: 'svc.links.accept', intro: 'svc.links.accept_intro', action: 'svc.links.accept_submit' },
      (password) => client.users.invites.accept(token, password),
    ),
  );
};

export const resetPasswordPage: Page = (_params, query, t) => {
  const token = query.get('token');
  if (token !== null) {
    return Promise.resolve(
      newPasswordForm(
        t,
        { title: 'svc.links.reset', intro: 'svc.links.reset_intro', action: 'svc.links.reset_submit' },
        (password) => client.auth.password.reset(token, password),
      ),
    );
  }
  const email = field(t('svc.links.email'), 'email', { type: 'email', autocomplete: 'username', required: true });
  const status = statusLine();
  const form = h(
    'form',
    { class: 'card' },
    email.row,
    h('button', { type: 'submit' }, t('svc.links.send_reset')),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    client.auth.password.request(email.input.value).then(
      () => (status.textContent = t('svc.links.reset_sent')),
      (error: unknown) => showErrors(form, status, error),
    );
  });
  return Promise.resolve(h('section', { class: 'narrow' }, h('h1', {}, t('svc.links.reset')), form));
};

export const verifyEmailPage: Page = async (_params, query, t) => {
  const token = query.get('token');
  if (token === null) return missingToken(t('svc.links.verify'), t('svc.links.no_verify_token'));
  const status = h('p', { class: 'status', role: 'status' });
  try {
    await client.transport.get('/users/register/verify-email', { params: { token }, headers: { Authorization: null } });
    status.append(...signInSentence(t, 'svc.links.verified'));
  } catch (error) {
    showErrors(status, status, error);
  }
  return h('section', { class: 'narrow' }, h('h1', {}, t('svc.links.verify')), status);
};

/** A sentence of `key` with its `%{link}` to the sign-in page. */
const signInSentence = (t: Translate, key: string) =>
  withLink((link) => t(key, { link }), h('a', { href: '/admin/login' }, t('svc.links.sign_in')));

function missingToken(title: string, message: string): Node {
  return h(
    'section',
    { class: 'narrow' },
    h('h1', {}, title),
    h('p', { class: 'status error', role: 'alert' }, message),
  );
}

/** The form choosing a password; `keys` name its title, its introduction and its button. */
function newPasswordForm(
  t: Translate,
  keys: { title: string; intro: string; action: string },
  submit: (password: string) => Promise<void>,
): Node {
  const password = field(t('svc.links.new_password'), 'password', {
    type: 'password',
    autocomplete: 'new-password',
    required: true,
  });
  const repeat = field(t('svc.links.repeat_password'), 'repeat', {
    type: 'password',
    autocomplete: 'new-password',
    required: true,
  });
  const status = statusLine();
  const form = h(
    'form',
    { class: 'card' },
    h('p', {}, t(keys.intro)),
    password.row,
    repeat.row,
    h('button', { type: 'submit' }, t(keys.action)),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (password.input.value !== repeat.input.value) {
      const message = t('svc.links.passwords_differ');
      showErrors(form, status, { errors: [{ message, extensions: { field: 'repeat' } }] });
      return;
    }
    submit(password.input.value).then(
      () => form.replaceChildren(h('p', { class: 'status', role: 'status' }, signInSentence(t, 'svc.links.done'))),
      (error: unknown) => showErrors(form, status, error),
    );
  });
  return h('section', { class: 'narrow' }, h('h1', {}, t(keys.title)), form);
}
