import { join } from 'node:path'
import { ESLint } from 'eslint'
import { describe, expect, test } from 'vitest'

// The folder rules of eslint.config.js are the architecture's description:
// a file placed in a folder that imports what the folder may not fails the
// lint, naming the rule. Linted in memory; nothing is written.
const ROOT = join(import.meta.dirname, '..')
const eslint = new ESLint({ cwd: ROOT })

async function restricted(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const used = x\n`, {
    filePath: join(ROOT, file)
  })
  return (result?.messages ?? [])
    .filter(message => message.ruleId === 'no-restricted-imports')
    .map(message => message.message)
}

describe('folder boundaries', () => {
  test.each([
    [
      'src/jenkins/probe.ts',
      "import * as x from '@actions/core'",
      'src/jenkins/ knows nothing of the runner'
    ],
    [
      'src/jenkins/probe.ts',
      "import { x } from '../inputs/inputs.js'",
      'src/jenkins/ may import only util/'
    ],
    [
      'src/jenkins/transport/probe.ts',
      "import { x } from '../model/types.js'",
      'src/jenkins/transport/ may import only util/ besides itself'
    ],
    [
      'src/jenkins/transport/probe.ts',
      "import * as x from '@actions/core'",
      'src/jenkins/transport/ knows nothing of the runner'
    ],
    [
      'src/jenkins/model/probe.ts',
      "import { x } from '../reads/reads.js'",
      'src/jenkins/model/ may import only util/, jenkins/transport/'
    ],
    [
      'src/jenkins/reads/probe.ts',
      "import { x } from '../trigger/reconcile.js'",
      'src/jenkins/reads/ may import only'
    ],
    [
      'src/jenkins/reports/probe.ts',
      "import { x } from '../reads/reads.js'",
      'src/jenkins/reports/ may import only'
    ],
    [
      'src/jenkins/trigger/probe.ts',
      "import { x } from '../client.js'",
      'src/jenkins/trigger/ may import only'
    ],
    [
      'src/jenkins/trigger/probe.ts',
      "import { x } from '../../inputs/inputs.js'",
      'src/jenkins/trigger/ may import only'
    ],
    [
      'src/util/probe.ts',
      "import { x } from '../jenkins/transport/errors.js'",
      'src/util/ may import nothing outside itself'
    ],
    [
      'src/util/probe.ts',
      "import * as x from '@actions/github'",
      'src/util/ knows nothing of the runner'
    ],
    [
      'src/runner/probe.ts',
      "import { x } from '../jenkins/errors.js'",
      'src/runner/ may import only util/'
    ],
    [
      'src/inputs/probe.ts',
      "import { x } from '../follow/follower.js'",
      'src/inputs/ may import only util/, jenkins/'
    ],
    [
      'src/inputs/probe.ts',
      "import { x } from '../outcome/report.js'",
      'src/inputs/ may import only util/, jenkins/'
    ],
    [
      'src/outcome/probe.ts',
      "import type { x } from '../follow/follow-builds.js'",
      'src/outcome/ may import only'
    ],
    [
      'src/follow/probe.ts',
      "import { x } from '../step/step-io.js'",
      'src/follow/ may import only'
    ],
    ['src/step/probe.ts', "import { x } from '../cli/main.js'", 'src/step/ may import only'],
    ['src/cli/probe.ts', "import { x } from '../main.js'", 'src/cli/ may import only util/'],
    [
      'src/main-probe.ts',
      "import { x } from './cli/main.js'",
      'never imports the terminal command'
    ],
    [
      'src/follow/probe.ts',
      "import { x } from '../../test-server/server.js'",
      'src/ never imports the test server'
    ],
    ['test-server/probe.ts', "import { x } from '../src/util/html.js'", 'imports nothing of src/'],
    [
      'test-server/model/probe.ts',
      "import { x } from '../http/pages.js'",
      'test-server/model/ imports only'
    ]
  ])('%s: %s fails the lint', async (file, code, expected) => {
    expect(await restricted(file, code)).toEqual(
      expect.arrayContaining([expect.stringContaining(expected)])
    )
  })

  test.each([
    ['src/jenkins/probe.ts', "import { x } from '../util/logger.js'"],
    ['src/jenkins/probe.ts', "import { x } from '@actions/http-client'"],
    ['src/jenkins/probe.ts', "import { x } from './trigger/trigger.js'"],
    ['src/jenkins/transport/probe.ts', "import { x } from '../../util/logger.js'"],
    ['src/jenkins/transport/probe.ts', "import { x } from './errors.js'"],
    ['src/jenkins/model/probe.ts', "import { x } from '../transport/errors.js'"],
    ['src/jenkins/reads/probe.ts', "import { x } from '../model/types.js'"],
    ['src/jenkins/reports/probe.ts', "import { x } from '../transport/requester.js'"],
    ['src/jenkins/trigger/probe.ts', "import { x } from '../reads/reads.js'"],

    ['src/outcome/probe.ts', "import { x } from '../inputs/inputs.js'"],
    ['src/follow/probe.ts', "import { x } from '../outcome/report.js'"],
    ['src/step/probe.ts', "import { x } from '../follow/follow-builds.js'"],
    ['src/cli/probe.ts', "import { x } from '../util/suggest.js'"],
    ['src/main-probe.ts', "import { x } from './step/run-builds.js'"],
    ['test-server/model/probe.ts', "import { x } from '../types.js'"],
    ['test-server/http/probe.ts', "import { x } from '../model/state.js'"]
  ])('%s: %s is allowed', async (file, code) => {
    expect(await restricted(file, code)).toEqual([])
  })
})

describe("the repository's own lint rules (eslint.config.js local)", () => {
  async function messages(code: string): Promise<Array<[string | null, string]>> {
    const [result] = await eslint.lintText(code, { filePath: join(ROOT, 'src/util/probe.ts') })
    return (result?.messages ?? [])
      .filter(m => m.ruleId?.startsWith('local/'))
      .map(m => [m.ruleId, m.message])
  }

  test('a comment block over 12 lines fails; 12 lines, or comments after code, pass', async () => {
    const block = (n: number): string =>
      ['/**', ...Array.from({ length: n - 2 }, (_, i) => ` * line ${i}`), ' */'].join('\n')
    const lineComments = Array.from({ length: 13 }, (_, i) => `// line ${i}`).join('\n')
    expect(await messages(`${block(13)}\nexport const a = 1\n`)).toEqual([
      [
        'local/max-comment-lines',
        'A comment block of 13 lines (at most 12): move the derivation to docs/ and link it by name.'
      ]
    ])
    expect(await messages(`${lineComments}\nexport const a = 1\n`)).toHaveLength(1)
    expect(await messages(`${block(12)}\nexport const a = 1\n`)).toEqual([])
    const trailing = Array.from({ length: 13 }, (_, i) => `  | ${i} // value ${i}`).join('\n')
    expect(await messages(`export type T =\n${trailing}\n`)).toEqual([])
  })

  test('undefined passed to reach a later parameter fails; a last undefined passes', async () => {
    const code = (call: string): string =>
      `function f(a?: number, b?: number): number { return (a ?? 0) + (b ?? 0) }\nexport const x = ${call}\n`
    expect(await messages(code('f(undefined, 2)'))).toEqual([
      [
        'local/no-positional-undefined',
        'undefined passed to reach a later parameter: take an options object instead (or, for a library that cannot, say why in an eslint-disable comment).'
      ]
    ])
    expect(await messages(code('f(1, undefined)'))).toEqual([])
  })
  test("a trailing true or false fails; one argument, an expression, or core's addRaw pass", async () => {
    const code = (call: string): string =>
      `const summary = { addRaw: (t: string, eol = false) => t + String(eol) }\nfunction f(a: number, flag = false): number { return flag ? a : -a }\nexport const x = ${call}\n`
    const flag =
      "A trailing true or false says nothing at the call: take an options object ({ name: true }) instead (a library's method that cannot goes in the rule's 'allow')."
    expect(await messages(code('f(1, true)'))).toEqual([['local/no-boolean-flag', flag]])
    expect(await messages(code('new Map([[1, false]]).set(1, false)'))).toEqual([
      ['local/no-boolean-flag', flag]
    ])
    expect(await messages(code('f(1, Date.now() > 0)'))).toEqual([])
    expect(await messages(code('f(1) + Number(Boolean(true))'))).toEqual([])
    expect(await messages(code("summary.addRaw('text', true)"))).toEqual([])
  })
  test("an 'as' cast outside src/jenkins/ needs a 'cast:' reason; 'as const' does not", async () => {
    const reason =
      "An 'as' cast without a reason: narrow with a guard or a decoder, or say why TypeScript cannot know in a comment starting 'cast:' on this line or the line above."
    const code = (body: string): string => `const u: unknown = 1\n${body}\n`
    expect(await messages(code('export const n = u as number'))).toEqual([
      ['local/cast-reason', reason]
    ])
    expect(await messages(code('export const n = <number>u'))).toEqual([
      ['local/cast-reason', reason]
    ])
    expect(
      await messages(code('// cast: a test of the rule\nexport const n = u as number'))
    ).toEqual([])
    expect(
      await messages(code('export const n = u as number // cast: a test of the rule'))
    ).toEqual([])
    expect(await messages(code('// not a reason\nexport const n = u as number'))).toHaveLength(1)
    expect(await messages(code("export const k = ['a'] as const"))).toEqual([])
    const [inJenkins] = await eslint.lintText(code('export const n = u as number'), {
      filePath: join(ROOT, 'src/jenkins/reads/probe.ts')
    })
    expect(inJenkins?.messages.filter(m => m.ruleId === 'local/cast-reason')).toEqual([])
  })
})
