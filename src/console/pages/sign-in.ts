/** Sign in: e-mail and password, the TFA code when the account asks for one, and the SSO providers of GET /auth. */
import { errorEntries, field, h, showErrors, statusLine } from '../dom.js';
import { navigate, type Page } from '../navigation.js';
import { client, rememberSignIn } from '../session.js';

/** Where a single sign-on provider sends the browser back (on its REDIRECT_ALLOW_LIST). */
const SSO_RETURN = '/admin/content?sso';

export const signInPage: Page = async (_params, query) => {
  const back = safeBack(query.get('redirect'));
  const providers = await client.auth.providers().catch(() => ({ data: [], disableDefault: false }));
  const email = field('E-mail', 'email', { type: 'email', autocomplete: 'username', required: true });
  const password = field('Password', 'password', {
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const otp = field('One-time code', 'otp', { inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]*' });
  otp.row.hidden = true;
  const status = statusLine();
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'sign-in-title' },
    email.row,
    password.row,
    otp.row,
    h('button', { type: 'submit' }, 'Sign in'),
    status,
    h('p', {}, h('a', { href: '/admin/reset-password' }, 'Forgot your password?')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    status.textContent = 'Signing in…';
    const credentials = {
      email: email.input.value,
      password: password.input.value,
      ...(otp.input.value === '' ? {} : { otp: otp.input.value }),
    };
    client.auth.login(credentials).then(
      () => {
        rememberSignIn(true);
        navigate(back);
      },
      (error: unknown) => {
        if (errorEntries(error).some((e) => e.code === 'INVALID_OTP') && otp.row.hidden) {
          otp.row.hidden = false;
          otp.input.required = true;
          otp.input.focus();
          status.textContent = 'Enter the code from your authenticator app.';
          return;
        }
        showErrors(form, status, error);
      },
    );
  });
  const sso =
    providers.data.length === 0
      ? null
      : h(
          'nav',
          { class: 'card', 'aria-label': 'Single sign-on' },
          h('h2', {}, 'Or sign in with'),
          h(
            'ul',
            { class: 'providers' },
            providers.data.map((p) =>
              h(
                'li',
                {},
                h(
                  'a',
                  {
                    class: 'button',
                    href: client.auth.loginUrl(p.name, `${window.location.origin}${SSO_RETURN}`),
                  },
                  p.label ?? p.name,
                ),
              ),
            ),
          ),
        );
  return h(
    'section',
    { class: 'narrow' },
    h('h1', { id: 'sign-in-title' }, 'Sign in'),
    providers.disableDefault ? null : form,
    sso,
  );
};

/** Only console paths: a redirect parameter never sends the browser elsewhere. */
function safeBack(redirect: string | null): string {
  return redirect !== null && /^\/admin(\/|$|\?)/.test(redirect) && !redirect.startsWith('/admin/login')
    ? redirect
    : '/admin/content';
}
