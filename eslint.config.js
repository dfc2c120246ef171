// ESLint (flat config): the service's TypeScript (src/) checked with type information, the build and test scripts
// (scripts/, bin/) as plain JavaScript. The direction of imports between layers is dependency-cruiser's
// (.dependency-cruiser.cjs); both run in `npm run lint`, before `npm test`.
// Tests (test/) and benchmarks (bench/) are not linted: they lean on node:test's promise-returning `test()` calls and
// on casts into the answers they read, which these rules are not written for.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig([
  globalIgnores(['dist/', 'node_modules/', 'test/', 'bench/', 'data/']),
  {
    name: 'service/typescript',
    files: ['src/**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits loses its rejection. Where fire-and-forget is meant, `void` it and say why.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Execution keeps a value that completed at once as it is and a promise beside it (as graphql-js does, to
      // spare a promise per field): Promise.all over such a mix is meant.
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      // A `let` read by a callback made before its one assignment (the CLI's progress reporter, made after the
      // client whose wait callback reports to it) cannot be a `const`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      'no-restricted-syntax': [
        'error',
        {
          // `x as never` fits anything anywhere: it switches the type checker off instead of saying what x is.
          // Resolver maps are typed (src/graphql/build-schema.ts: ResolverMap); type the value instead.
          selector: 'TSAsExpression > TSNeverKeyword',
          message: 'No `as never`: give the value (or the map it goes into) its real type.',
        },
      ],
    },
  },
  {
    // Size limits, so a module and a function stay readable at one sitting: 400 physical lines a file (as `wc -l`
    // counts them), 120 lines of code a function (blank lines and comments aside). The stylesheets in src/ are
    // held to the same 400 lines by scripts/check-sizes.mjs (run in `npm run lint` after this).
    name: 'service/size-limits',
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    name: 'service/sqlite-store',
    files: ['src/store/sqlite/**/*.ts'],
    rules: {
      // better-sqlite3 answers synchronously behind the Store's async interface. The methods stay `async` without
      // an `await`: so a failing statement rejects the promise (as on PostgreSQL) instead of throwing at the caller.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    name: 'service/browser',
    files: ['src/admin-ui/**/*.ts'],
    languageOptions: { globals: globals.browser },
  },
  {
    name: 'scripts/javascript',
    files: ['scripts/**/*.mjs', 'bin/**/*.js', 'eslint.config.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node, sourceType: 'module' },
  },
  {
    name: 'scripts/commonjs',
    files: ['**/*.cjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node, sourceType: 'commonjs' },
  },
]);
