// Lint: typescript-eslint's recommended rules plus the dependency direction of STYLE.md §2.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const layer = (target, from, message) => ({ target, from, message });

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'uploads/**'] },
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-cycle': ['error', { maxDepth: 8 }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            // Nothing imports http, graphql, workers or the composition root.
            layer(['./src/!(http)/**', './catalog/**', './workers/**'], './src/http', 'nothing imports http'),
            layer(
              ['./src/!(graphql|http)/**', './catalog/**', './workers/**'],
              './src/graphql',
              'nothing imports graphql',
            ),
            layer(['./src/**', './catalog/**'], './workers', 'nothing imports workers'),
            layer(['./src/**', './catalog/**', './workers/**'], './src/server.ts', 'server.ts is the composition root'),
            // The read side never imports the write side.
            layer('./src/query', './src/commands', 'query never imports commands'),
            // The write side sits below auth (auth writes users through the commands).
            layer('./src/commands', './src/auth', 'commands never import auth (password helpers are in access/)'),
            // Lower layers do not reach up.
            layer(
              ['./src/access', './catalog', './src/cache', './src/db'],
              ['./src/query', './src/commands', './src/auth', './src/files', './src/jobs'],
              'access, catalog, cache and db sit below the read and write sides',
            ),
            layer(
              ['./src/errors.ts', './src/config'],
              ['./src/!(errors.ts|config)/**', './catalog/**'],
              'errors and config are leaves',
            ),
            // The client library imports nothing from the server.
            layer(
              './src/client',
              ['./src/!(client)/**', './src/*.ts', './catalog/**', './workers/**'],
              'client imports nothing from the server',
            ),
          ],
        },
      ],
    },
    settings: {
      // Without .ts here import-x treats our files as not modules and no-cycle finds nothing.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    // Tests read JSON bodies whose shape is what they assert.
    rules: { '@typescript-eslint/no-unused-expressions': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
