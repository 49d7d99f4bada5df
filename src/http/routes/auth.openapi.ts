import {
  anyone,
  AUTH_MODE,
  AUTH_PROVIDER,
  EMAIL,
  type FixedRoute,
  json,
  object,
  queryParameter,
  REFRESH_BODY,
  REQUIRED_TEXT,
  SSO_PROVIDER,
  TEXT,
  TOKEN_GRANT,
} from '../openapi-describe.js';

/** The OpenAPI descriptions of /auth (openapi.ts; test: every served route described, and only those). */
export const AUTH_OPENAPI: readonly FixedRoute[] = [
  {
    path: '/auth',
    method: 'get',
    tag: 'Authentication',
    summary: 'The login providers',
    caller: anyone,
    answer: {
      kind: 'raw',
      responses: {
        '200': {
          description: 'Successful request',
          content: json(object({ data: { type: 'array', items: AUTH_PROVIDER }, disableDefault: { type: 'boolean' } })),
        },
      },
    },
  },
  {
    path: '/auth/login',
    method: 'post',
    tag: 'Authentication',
    summary: 'Log in',
    caller: (input) => input.hasDefaultLogin,
    body: json(object({ email: EMAIL, password: REQUIRED_TEXT, otp: TEXT, mode: AUTH_MODE }, ['email', 'password'])),
    answer: { kind: 'data', schema: TOKEN_GRANT },
  },
  {
    path: '/auth/login/{provider}',
    method: 'get',
    tag: 'Authentication',
    summary: 'Log in with a single sign-on provider',
    caller: anyone,
    parameters: [
      SSO_PROVIDER,
      queryParameter('redirect', "Where to go after the login (on the provider's REDIRECT_ALLOW_LIST).", TEXT),
    ],
    answer: { kind: 'raw', responses: { '302': { description: "To the provider's login" } } },
  },
  {
    path: '/auth/login/{provider}/callback',
    method: 'get',
    tag: 'Authentication',
    summary: 'Where the single sign-on provider sends the browser back',
    caller: anyone,
    parameters: [
      SSO_PROVIDER,
      queryParameter('code', 'The authorization code.', TEXT),
      queryParameter('state', 'The state of the login.', TEXT),
    ],
    answer: {
      kind: 'raw',
      responses: {
        '200': { description: 'Logged in without redirect: the tokens', content: json(object({ data: TOKEN_GRANT })) },
        '302': {
          description:
            'To the redirect of the login, with the refresh (or session) cookie, or ?reason=<code> on failure',
        },
      },
    },
  },
  {
    path: '/auth/refresh',
    method: 'post',
    tag: 'Authentication',
    summary: 'Refresh the tokens',
    caller: anyone,
    body: REFRESH_BODY,
    isBodyOptional: true,
    answer: { kind: 'data', schema: TOKEN_GRANT },
  },
  {
    path: '/auth/logout',
    method: 'post',
    tag: 'Authentication',
    summary: 'Log out',
    caller: anyone,
    body: REFRESH_BODY,
    isBodyOptional: true,
    answer: { kind: 'none' },
  },
  {
    path: '/auth/password/request',
    method: 'post',
    tag: 'Authentication',
    summary: 'Request a password reset',
    caller: anyone,
    body: json(object({ email: EMAIL, reset_url: TEXT }, ['email'])),
    answer: { kind: 'none' },
  },
  {
    path: '/auth/password/reset',
    method: 'post',
    tag: 'Authentication',
    summary: 'Reset a password',
    caller: anyone,
    body: json(object({ token: REQUIRED_TEXT, password: REQUIRED_TEXT }, ['token', 'password'])),
    answer: { kind: 'none' },
  },
];
