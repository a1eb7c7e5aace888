import js from '@eslint/js';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', '.cache/', 'coverage/', 'test-output/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      'no-empty': ['error', { allowEmptyCatch: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Mongoose types Date fields as NativeDate and schema definitions as plain objects; the rule
      // reports both as unsafe although they are the very same runtime values.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
    },
  },
  {
    // A regular expression that backtracks or moves super-linearly lets one request hold the event
    // loop for seconds (issue 30: the sign-up email pattern). The plugin's
    // recommended set would also restyle over a hundred harmless patterns; these two catch the harm.
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
  {
    // The product never runs test code: a simulator or test helper imported by a route would ship
    // with it and blur what the tests prove (issue 36). Tests, scripts and the tools under test/ may.
    files: ['api/**/*.ts', 'shared/**/*.ts', 'workers/**/*.ts', 'cli/**/*.ts', 'auth-server/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '(^|/)test/', message: 'production code must not import test code (test/)' }],
      }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // The dashboard's island scripts run in the browser (api/dashboard/assets.ts serves them).
    files: ['api/dashboard/static/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(['document', 'window', 'Element', 'HTMLInputElement', 'XMLHttpRequest', 'FormData',
        'DOMParser', 'Event', 'navigator'].map((name) => [name, 'readonly'])),
    },
  },
);
