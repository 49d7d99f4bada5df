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
  relations: {
    empty: 'None yet.',
    count: '%{smart_count} item |||| %{smart_count} items',
    search: 'Search',
    nothing_found: 'Nothing found.',
    add: 'Add',
    add_picked: 'Add the one picked |||| Add the %{smart_count} picked',
    done: 'Done',
    add_existing: 'Add existing %{field}',
    create_new: 'Create new %{field}',
    add_files: 'Add files to %{field}',
    add_to: 'Add to %{field}',
    create_in: 'Create in %{collection}',
    pick_in: 'Add existing from %{collection}',
    pick_title: 'Add from %{collection}',
    create_title: 'New item in %{collection}',
    edit_item: 'Edit %{item}',
    remove_item: 'Remove %{item}',
    move_up: 'Move %{item} up',
    move_down: 'Move %{item} down',
    choose_file: 'Choose a file',
    choose_file_named: 'Choose %{name}',
    remove_file: 'Remove %{name}',
    no_file: 'No file.',
    upload: 'Upload',
    drop_here: 'Drop files here, or press to choose them.',
    upload_progress: 'Upload progress',
    upload_failed: 'The upload failed.',
    library: 'From the file library',
    open: 'Open',
    open_named: 'Open %{name}',
    download: 'Download',
    download_named: 'Download %{name}',
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
