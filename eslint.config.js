// Only rules the compiler cannot enforce: about promises (since the store is asynchronous, issue 18, a read or write not
// awaited is a bug that type-checks), and no user-chosen string as a key of a plain object (issue 38,
// scripts/eslint/own-keys.js). Formatting and style are left to review.
import tseslint from 'typescript-eslint';
import ownKeys from './scripts/eslint/own-keys.js';

export default tseslint.config({
  files: ['lib/**/*.ts'],
  languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  plugins: { '@typescript-eslint': tseslint.plugin, repohost: ownKeys },
  linterOptions: { reportUnusedDisableDirectives: 'error' },
  rules: {
    '@typescript-eslint/no-floating-promises': 'error',
    '@typescript-eslint/no-misused-promises': 'error',
    '@typescript-eslint/await-thenable': 'error',
    'repohost/own-keys': 'error',
  },
});
