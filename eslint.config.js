// Only the rules the compiler cannot enforce about promises: since the store is asynchronous (issue 18), a read or
// write not awaited is a bug that type-checks. Formatting and style are left to review.
import tseslint from 'typescript-eslint';

export default tseslint.config({
  files: ['lib/**/*.ts'],
  languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  plugins: { '@typescript-eslint': tseslint.plugin },
  linterOptions: { reportUnusedDisableDirectives: 'error' },
  rules: {
    '@typescript-eslint/no-floating-promises': 'error',
    '@typescript-eslint/no-misused-promises': 'error',
    '@typescript-eslint/await-thenable': 'error',
  },
});
