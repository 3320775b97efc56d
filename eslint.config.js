import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'tools/', 'coverage/', '.tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly'
      }
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }
      ]
    }
  },
  {
    // One printer for text outside the console region (src/util/inert-text.ts):
    // plain log lines are written by coreLogger.info alone.
    files: ['src/**/*.ts'],
    ignores: ['src/step/core-logger.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='core'][property.name=/^(info|notice)$/]",
          message:
            'Print through coreLogger.info (src/step/core-logger.ts): it makes Jenkins text inert.'
        }
      ]
    }
  }
)
