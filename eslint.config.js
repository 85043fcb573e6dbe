// ESLint (flat config) with typescript-eslint's type-checked rules. Each file is checked against the tsconfig that
// includes it (projectService): the root one for the service, tests, client and benches, console/tsconfig.json for
// the console. Generated files and build output are not linted.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['node_modules/', 'console/dist/', 'client/src/schema.ts', 'docs/', 'coverage/', 'data/', '.tmp/', '.ci/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['eslint.config.js', 'console/vite.config.ts', 'src/search/document-worker.mjs'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_name` marks a binding kept on purpose (a rest sibling dropped from an object, a positional parameter).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // An `async` function without `await` is how a value satisfies a Promise-returning interface (fakes, Fastify's
      // async hooks and handlers); flagging it finds nothing wrong here.
      '@typescript-eslint/require-await': 'off',
      // Callbacks are typed with method shorthand in interfaces (`onSaved(): void`) and Kysely's expression builder is
      // meant to be destructured (`({ not, exists }) => …`): this rule only reports those, never a lost `this`.
      '@typescript-eslint/unbound-method': 'off',
      // Stripping control characters from names and text is deliberate wherever a regex names them.
      'no-control-regex': 'off',
    },
  },
  {
    // A migration is written against the schema as it was then, not the current `Database` type: Kysely's documented
    // signature for one is `up(db: Kysely<any>)`.
    files: ['src/store/migrations/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Tests and benches read the wire: JSON bodies are `any` by design there, and what they assert is the shape.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
);
