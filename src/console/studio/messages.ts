/**
 * Every string the Studio shows, in one catalogue (English): react-admin's own messages
 * (ra-language-english) with ours under `svc.*` and a few of theirs reworded. A translation is
 * one more file of this shape, handed to `i18nProvider` in main.tsx.
 */
import englishMessages from 'ra-language-english';
import polyglotI18nProvider from 'ra-i18n-polyglot';
import type { TranslationMessages } from 'react-admin';

const svc = {
  app: { title: 'Studio' },
  nav: {
    main: 'Main',
    content: 'Content',
    collections: 'Collections',
    transfer: 'Export / import',
    admin: 'Admin',
    graphql: 'GraphQL',
    sign_out: 'Sign out',
    ungrouped: 'Collections',
  },
  sign_in: {
    title: 'Sign in',
    email: 'E-mail',
    password: 'Password',
    otp: 'One-time code',
    submit: 'Sign in',
    signing_in: 'Signing in…',
    otp_needed: 'Enter the code from your authenticator app.',
    forgot: 'Forgot your password?',
    sso: 'Or sign in with',
    sso_label: 'Single sign-on',
  },
  collections: {
    title: 'Collections',
    none: 'No collection you may read.',
    items: '%{smart_count} item |||| %{smart_count} items',
  },
  list: {
    search: 'Search',
    filter_json: 'Filter (JSON)',
    filter_json_invalid: 'The filter is not JSON: %{error}',
    columns: 'Columns',
  },
  item: {
    history: 'History',
    duplicate: 'Duplicate',
    saved: 'Saved.',
    created: 'Created.',
    deleted: 'Deleted.',
  },
  links: { accept: 'Accept invitation', reset: 'Reset password', verify: 'Verify e-mail' },
  page: { loading: 'Loading…', not_found: 'Nothing at %{path}.' },
  inputs: {
    loading_editor: 'Loading the editor…',
    json_invalid: 'Not valid JSON: %{error}',
    color_invalid: 'A colour is # and six hexadecimal digits, like #1565c0.',
    pick_color: 'Pick the colour of %{field}',
  },
};

const messages: TranslationMessages = {
  ...englishMessages,
  ra: {
    ...englishMessages.ra,
    notification: {
      ...englishMessages.ra.notification,
      updated: 'Saved. |||| %{smart_count} items saved.',
      created: 'Created.',
      deleted: 'Deleted. |||| %{smart_count} items deleted.',
    },
  },
  svc,
};

export const i18nProvider = polyglotI18nProvider(() => messages, 'en', [{ locale: 'en', name: 'English' }], {
  allowMissing: false,
});
