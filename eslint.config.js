import js from '@eslint/js'
import tseslint from 'typescript-eslint'

/**
 * The architecture, enforced: what each folder of src/ may import besides
 * itself and npm packages. Layers run one way (each folder imports only
 * those listed before it), so the folders cannot form a cycle. The entry
 * points (src/index.ts, main.ts, post.ts) may import any folder but cli/.
 */
const LAYERS = {
  util: [],
  // The one interface the step writes to the runner through (StepIO).
  runner: ['util'],
  jenkins: ['util'],
  inputs: ['util', 'jenkins'],
  outcome: ['util', 'runner', 'jenkins', 'inputs'],
  follow: ['util', 'runner', 'jenkins', 'inputs', 'outcome'],
  step: ['util', 'runner', 'jenkins', 'inputs', 'outcome', 'follow'],
  // The command talks to the action through its bundle only.
  cli: ['util']
}
/**
 * Inside src/jenkins/, the same one-way order between its sub-folders (the
 * client's facade, src/jenkins/client.ts, sits above them all and none
 * imports it): the transport knows nothing of Jenkins' model, the reads and
 * the test reports use the transport and the model, the trigger also the
 * reads. Besides these, a sub-folder imports only util/.
 */
const JENKINS = {
  transport: [],
  model: ['transport'],
  reads: ['transport', 'model'],
  reports: ['transport', 'model'],
  trigger: ['transport', 'model', 'reads']
}
/** The runner's API stays out of the client and the helpers (@actions/http-client is the client's transport). */
const NO_RUNNER = ['util', 'jenkins']
const TEST_SERVER = {
  regex: '(^|/)test-server(/|$)',
  message: 'src/ never imports the test server.'
}

const NO_SRC = {
  regex: '(^|/)src(/|$)',
  message: 'The test server follows Jenkins, never our client: it imports nothing of src/.'
}

/** The import rule of one folder: `outside` matches what it may not import. */
function restrict(folder, layer, outside, message) {
  return {
    files: [`src/${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: NO_RUNNER.includes(layer)
            ? ['@actions/core', '@actions/github'].map(name => ({
                name,
                message: `src/${folder}/ knows nothing of the runner.`
              }))
            : [],
          patterns: [{ regex: outside, message }, TEST_SERVER]
        }
      ]
    }
  }
}

function listed(folders) {
  return folders.map(f => `${f}/`).join(', ')
}

function boundaries() {
  const folders = Object.entries(LAYERS).map(([folder, allowed]) =>
    restrict(
      folder,
      folder,
      allowed.length ? `^\\.\\./(?!(${allowed.join('|')})/)` : '^\\.\\./',
      `src/${folder}/ may import ${allowed.length ? `only ${listed(allowed)} besides itself` : 'nothing outside itself'} (see src/${folder}/README.md).`
    )
  )
  // After the folder rules, so that these replace jenkins/'s for its sub-folders.
  const jenkins = Object.entries(JENKINS).map(([sub, allowed]) =>
    restrict(
      `jenkins/${sub}`,
      'jenkins',
      `^\\.\\./(?!(${['\\.\\./util', ...allowed].join('|')})/)`,
      `src/jenkins/${sub}/ may import only ${listed(['util', ...allowed.map(a => `jenkins/${a}`)])} besides itself (see src/jenkins/README.md).`
    )
  )
  return [
    {
      files: ['src/*.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              { regex: '^\\./cli/', message: 'The action never imports the terminal command.' },
              TEST_SERVER
            ]
          }
        ]
      }
    },
    ...folders,
    ...jenkins,
    {
      files: ['test-server/**/*.ts'],
      rules: { 'no-restricted-imports': ['error', { patterns: [NO_SRC] }] }
    },
    {
      // Jenkins' state does not depend on how it is served.
      files: ['test-server/model/**/*.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              NO_SRC,
              {
                regex: '^\\.\\./(?!types\\.js$)',
                message:
                  'test-server/model/ imports only itself and ../types.js (see its README.md).'
              }
            ]
          }
        ]
      }
    }
  ]
}

/** The longest comment block in src/: what needs more is a derivation, and goes to docs/ (linked by name). */
const MAX_COMMENT_LINES = 12

/** Rules of this repository's own, for what the style guide asks and no published rule holds. */
const local = {
  rules: {
    'max-comment-lines': {
      meta: {
        type: 'suggestion',
        schema: [{ type: 'integer', minimum: 1 }],
        messages: {
          long: 'A comment block of {{lines}} lines (at most {{max}}): move the derivation to docs/ and link it by name.'
        }
      },
      create(context) {
        const max = context.options[0] ?? MAX_COMMENT_LINES
        const source = context.sourceCode
        const report = (node, lines) => {
          if (lines > max)
            context.report({ loc: node.loc, messageId: 'long', data: { lines, max } })
        }
        return {
          Program() {
            // A block comment, or a run of line comments on consecutive lines, is one block.
            let run = []
            const endRun = () => {
              const [first] = run
              const last = run.at(-1)
              if (first)
                report(
                  { loc: { start: first.loc.start, end: last.loc.end } },
                  last.loc.end.line - first.loc.start.line + 1
                )
              run = []
            }
            for (const comment of source.getAllComments()) {
              // A comment after code on its line explains that line: not part of a block.
              const before = source.lines[comment.loc.start.line - 1].slice(
                0,
                comment.loc.start.column
              )
              if (before.trim() !== '') {
                endRun()
                continue
              }
              if (comment.type === 'Block') {
                endRun()
                report(comment, comment.loc.end.line - comment.loc.start.line + 1)
                continue
              }
              const last = run.at(-1)
              if (last && comment.loc.start.line !== last.loc.end.line + 1) endRun()
              run.push(comment)
            }
            endRun()
          }
        }
      }
    },
    'cast-reason': {
      meta: {
        type: 'suggestion',
        schema: [],
        messages: {
          reason:
            "An 'as' cast without a reason: narrow with a guard or a decoder, or say why TypeScript cannot know in a comment starting 'cast:' on this line or the line above."
        }
      },
      create(context) {
        const source = context.sourceCode
        const explained = node => {
          const line = node.loc.start.line
          return source
            .getAllComments()
            .some(
              comment =>
                /^\s*cast:/.test(comment.value) &&
                comment.loc.end.line >= line - 1 &&
                comment.loc.start.line <= node.loc.end.line
            )
        }
        const check = node => {
          const type = node.typeAnnotation
          const asConst =
            type.type === 'TSTypeReference' &&
            type.typeName.type === 'Identifier' &&
            type.typeName.name === 'const'
          if (!asConst && !explained(node)) context.report({ node, messageId: 'reason' })
        }
        return { TSAsExpression: check, TSTypeAssertion: check }
      }
    },
    'no-positional-undefined': {
      meta: {
        type: 'suggestion',
        schema: [],
        messages: {
          positional:
            'undefined passed to reach a later parameter: take an options object instead (or, for a library that cannot, say why in an eslint-disable comment).'
        }
      },
      create(context) {
        const check = node => {
          node.arguments.forEach((arg, i) => {
            if (
              arg.type === 'Identifier' &&
              arg.name === 'undefined' &&
              i < node.arguments.length - 1
            ) {
              context.report({ node: arg, messageId: 'positional' })
            }
          })
        }
        return { CallExpression: check, NewExpression: check }
      }
    },
    'no-boolean-flag': {
      meta: {
        type: 'suggestion',
        schema: [{ type: 'object', properties: { allow: { type: 'array' } } }],
        messages: {
          flag: "A trailing true or false says nothing at the call: take an options object ({ name: true }) instead (a library's method that cannot goes in the rule's 'allow')."
        }
      },
      create(context) {
        const allow = new Set(context.options[0]?.allow ?? [])
        const check = node => {
          const last = node.arguments.at(-1)
          const name = node.callee.type === 'MemberExpression' ? node.callee.property.name : ''
          if (node.arguments.length < 2 || allow.has(name)) return
          if (last.type === 'Literal' && typeof last.value === 'boolean') {
            context.report({ node: last, messageId: 'flag' })
          }
        }
        return { CallExpression: check, NewExpression: check }
      }
    }
  }
}

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
    files: ['src/**/*.ts'],
    plugins: { local },
    rules: {
      'local/max-comment-lines': ['error', MAX_COMMENT_LINES],
      'local/no-positional-undefined': 'error',
      // @actions/core's summary.addRaw(text, addEOL) takes no options object.
      'local/no-boolean-flag': ['error', { allow: ['addRaw'] }]
    }
  },
  {
    // Jenkins answers are decoded where they arrive (src/jenkins/), so a cast elsewhere
    // is a type TypeScript cannot know: each says why (issue 34 §6).
    files: ['src/**/*.ts'],
    ignores: ['src/jenkins/**'],
    plugins: { local },
    rules: { 'local/cast-reason': 'error' }
  },
  {
    // One printer for text outside the console region (src/step/step-io.ts):
    // plain log lines are written by coreLogger.info alone (its one line disables this).
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='core'][property.name=/^(info|notice)$/]",
          message:
            'Print through coreLogger.info (src/step/step-io.ts): it makes Jenkins text inert.'
        }
      ]
    }
  },
  ...boundaries()
)
