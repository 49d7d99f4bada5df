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
  filter: {
    edit_json: 'Edit as JSON',
    json: 'Filter (JSON)',
    json_invalid: 'Not applied, the JSON is invalid: %{error}',
    json_object: 'a filter is a JSON object',
    json_only: 'The rules cannot show this filter: edit it as JSON.',
    logic: 'Match',
    and: 'All (and)',
    or: 'Any (or)',
    group_and: 'All of these conditions',
    group_or: 'Any of these conditions',
    empty: 'No condition: every item.',
    add_rule: 'Condition',
    add_group: 'Group',
    remove_rule: 'Remove this condition',
    remove_group: 'Remove this group',
    rule: 'Condition',
    field: 'Field',
    operator: 'Operator',
    value: 'Value',
    low: 'From',
    high: 'To',
    list_hint: 'Separated by commas',
    variable: 'Variable',
    no_variable: 'None',
    true: 'true',
    false: 'false',
    op: {
      _eq: 'equals',
      _neq: "doesn't equal",
      _gt: 'greater than',
      _gte: 'greater than or equal',
      _lt: 'less than',
      _lte: 'less than or equal',
      _contains: 'contains',
      _icontains: 'contains (any case)',
      _ncontains: "doesn't contain",
      _starts_with: 'starts with',
      _nstarts_with: "doesn't start with",
      _istarts_with: 'starts with (any case)',
      _nistarts_with: "doesn't start with (any case)",
      _ends_with: 'ends with',
      _nends_with: "doesn't end with",
      _iends_with: 'ends with (any case)',
      _niends_with: "doesn't end with (any case)",
      _intersects: 'intersects (GeoJSON)',
      _nintersects: "doesn't intersect (GeoJSON)",
      _intersects_bbox: 'intersects the box of (GeoJSON)',
      _nintersects_bbox: "doesn't intersect the box of (GeoJSON)",
      _in: 'is one of',
      _nin: 'is none of',
      _between: 'is between',
      _nbetween: 'is not between',
      _null: 'is null',
      _nnull: 'is not null',
      _empty: 'is empty',
      _nempty: 'is not empty',
      _regex: 'matches the pattern',
      _submitted: 'is submitted',
    },
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
