/**
 * The catalogue's strings of the plain-DOM pages (pages/*.ts: export and import, GraphiQL, the
 * mailed links), merged into `svc` by messages.ts: a part of the one catalogue, kept apart only
 * to keep that file within its size. The pages get react-admin's translate from dom-page.tsx.
 * `%{link}` marks where a sentence holds its link (dom.ts `withLink`).
 */
export const pageMessages = {
  links: {
    accept: 'Accept invitation',
    reset: 'Reset password',
    verify: 'Verify e-mail',
    accept_intro: 'Choose a password for your new account.',
    accept_submit: 'Create account',
    reset_intro: 'Choose a new password.',
    reset_submit: 'Set password',
    email: 'E-mail',
    send_reset: 'Send reset link',
    reset_sent: 'If the address has an account, a reset link is on its way.',
    new_password: 'New password',
    repeat_password: 'Repeat the password',
    passwords_differ: 'The passwords differ.',
    done: 'Done. %{link} with your new password.',
    verified: 'Your e-mail address is verified. %{link}.',
    sign_in: 'Sign in',
    no_invite_token: 'This invitation link has no token: open the link from the e-mail again.',
    no_verify_token: 'This verification link has no token: open the link from the e-mail again.',
  },
  transfer: {
    title: 'Export and import',
    export: 'Export',
    import: 'Import',
    collection: 'Collection',
    format: 'Format',
    fields: 'Fields (comma separated, empty for all)',
    filter: 'Filter (JSON)',
    filter_invalid: 'Not JSON, e.g. {"status":{"_eq":"published"}}',
    start: 'Start export',
    starting: 'Starting…',
    export_progress: 'Export progress',
    status: {
      queued: 'Export queued',
      running: 'Export running',
      retrying: 'Export retrying',
      done: 'Export done',
      failed: 'Export failed',
    },
    failed: 'Export failed: %{error}',
    no_reason: 'no reason given',
    download: 'Download %{name}',
    file: 'File (CSV or JSON)',
    upload_progress: 'Upload progress',
    uploading: 'Uploading…',
    imported: 'Imported %{file} into %{collection}.',
    import_failed: 'Import failed: %{error}',
    rows: '%{smart_count} row |||| %{smart_count} rows',
    percent: '%{percent} % (%{done} / %{total})',
  },
  graphql: { endpoint: 'Endpoint' },
};
