// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'release/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'test/fixtures/vault-v1/**', 'node_modules/.cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // core runs in plain Node (CLI, tests, Electron main): it must never reach for Electron.
    files: ['electron/core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'core must run in plain Node' }], patterns: ['**/main/**', '**/preload/**', '**/renderer/**'] }],
    },
  },
  {
    files: ['electron/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'shared is imported everywhere' }], patterns: ['**/core/**', '**/main/**', '**/preload/**'] }],
    },
  },
  {
    // The renderer is untrusted: it may only borrow types from electron/shared.
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'the renderer is sandboxed' }],
          patterns: [
            { group: ['**/electron/core/**', '**/electron/main/**', '**/electron/preload/**', 'libsodium*', '@anthropic-ai/*', 'node:*'], message: 'the renderer may not import main-process code' },
            // merge3 is one exception: a pure function over strings (node-diff3, no I/O, no secrets) that core's sync
            // view and the editor must run identically, so both import the one copy rather than two that could drift.
            // language-match is another (which shipped language a list of tags asks for: strings in, a code out).
            // The message catalogs are the last: they are data, not code, and the window loads them (renderer/lib/i18n/catalogs/).
            { group: ['**/electron/shared/**', '!**/electron/shared/merge3', '!**/electron/shared/language-match', '!**/electron/shared/locales/**/*.json'], allowTypeImports: true, message: 'the renderer may only `import type` from electron/shared' },
          ],
        },
      ],
    },
  },
);
