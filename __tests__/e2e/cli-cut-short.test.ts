/**
 * End to end: jenkins-build cut short (a closed pipe, Ctrl+C, SIGTERM) never
 * leaves a build running; its messages after an error (--json, terminal
 * wording, failed tests); its stack traces name files that exist. Each test
 * has a server or a job of its own and matches only what its run did.
 */
import { spawnSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { constants, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import type { JobSpec } from '../../test-server/types.js'
import {
  BIN,
  buildOf,
  describeRun,
  startCli,
  startCommand,
  userEnv,
  type CliRun,
  type Spawned
} from './cli-process.js'
import { ADMIN_TOKEN } from './helpers.js'

function shellStatus(r: CliRun): number {
  return r.code ?? 128 + (r.signal ? constants.signals[r.signal] : 0)
}

/** The stack trace lines of a Node error (`    at …`). */
const STACK_FRAME = /^\s+at .*(:\d+:\d+\)?|<anonymous>)$/m

/**
 * Each test here has a test server of its own, and a TMPDIR of its own, in
 * which the step's temporary folder (`jenkins-action-step-*`) is made: what
 * it asserts on is what its one run did.
 */
describe.concurrent('jenkins-build cut short, and its messages', () => {
  async function withJenkins<T>(
    jobs: Record<string, JobSpec>,
    test: (jenkins: TestJenkins, env: Record<string, string>, temp: string) => Promise<T>
  ): Promise<T> {
    const jenkins = await startJenkins({ quietPeriodSec: 0, executors: 4, jobs })
    const temp = mkdtempSync(join(tmpdir(), 'jenkins-build-tmp-'))
    try {
      const env = {
        JENKINS_URL: jenkins.url,
        JENKINS_USER: 'admin',
        JENKINS_TOKEN: ADMIN_TOKEN,
        TMPDIR: temp
      }
      return await test(jenkins, env, temp)
    } finally {
      await jenkins.close()
      rmSync(temp, { recursive: true, force: true })
    }
  }

  /** The step folders left in `temp`. */
  const stepFolders = (temp: string): string[] =>
    readdirSync(temp).filter(name => name.startsWith('jenkins-action-step-'))

  /**
   * A 10-minute build that prints a line a second. A closed pipe shows only
   * when the command next writes to it, as for any writer (`yes | head`):
   * the console's next line is that write.
   */
  const SLEEPY: Record<string, JobSpec> = {
    sleepy: {
      script: {
        durationMs: 600_000,
        consoleLines: Array.from({ length: 600 }, (_, i) => `sleeping ${i + 1}`)
      }
    }
  }

  for (const [job, lines] of [
    ['sleepy', 2],
    ['hello', 3]
  ] as const) {
    it(`| head -${lines} (--job ${job}): the build this run started is stopped, status 141, no stack trace, no folder left`, async () => {
      const jobs: Record<string, JobSpec> =
        job === 'sleepy'
          ? SLEEPY
          : {
              hello: {
                script: {
                  durationMs: 20_000,
                  consoleLines: Array.from({ length: 20 }, (_, i) => `Hello ${i + 1}`)
                }
              }
            }
      await withJenkins(jobs, async (jenkins, env, temp) => {
        // Exactly the user's pipeline, in bash, with the status of the command itself.
        const r = await startCommand({
          command: 'bash',
          args: [
            '-c',
            `"$NODE" "$BIN" --job ${job} | head -${lines}; echo "status=\${PIPESTATUS[0]}"`
          ],
          env: { ...env, NODE: process.execPath, BIN }
        }).done
        expect(r.code, describeRun(r)).toBe(0)
        const shown = r.stdout.split('\n')
        expect(shown[lines], describeRun(r)).toBe('status=141')
        const number = /^Jenkins build \S+ #(\d+) started/m.exec(r.stdout)?.[1]
        const build = buildOf(jenkins, job, number)
        expect(build.result, describeRun(r)).toBe('ABORTED')
        // Stopped by this run's step: one stop, of that build.
        const stops = jenkins.requests.filter(q => q.method === 'POST' && q.path.endsWith('/stop'))
        expect(stops.map(q => q.path)).toEqual([`/job/${job}/${build.number}/stop`])
        // The command's own lines go to stderr once stdout is gone.
        expect(r.stderr).toContain(
          'The reader of stdout went away: cancelling the step as the runner cancels a workflow (SIGINT).\n'
        )
        // And what that stopped, as Ctrl+C says it: the step's own error, on stderr.
        expect(r.stderr).toContain(
          `stopped Jenkins build #${build.number} (stop; result ABORTED).\n`
        )
        expect(r.stderr).not.toMatch(STACK_FRAME)
        expect(r.stderr).not.toContain('EPIPE')
        expect(stepFolders(temp)).toEqual([])
      })
    })
  }

  it('a closed stdout: the post step runs after the main step is cancelled', async () => {
    await withJenkins(SLEEPY, async (jenkins, env, temp) => {
      // sed stops reading at the line that names the build.
      const r = await startCommand({
        command: 'bash',
        args: ['-c', `"$NODE" "$BIN" --job sleepy --verbose | sed '/ started: /q'`],
        env: { ...env, NODE: process.execPath, BIN }
      }).done
      const number = /^Jenkins build sleepy #(\d+) started/m.exec(r.stdout)?.[1]
      expect(buildOf(jenkins, 'sleepy', number).result, describeRun(r)).toBe('ABORTED')
      const said = r.stderr
      const closed = said.indexOf('The reader of stdout went away')
      const post = said.indexOf(
        'Post step: the bundle again, with the state the main step saved.\n'
      )
      expect(closed, describeRun(r)).toBeGreaterThanOrEqual(0)
      expect(post, describeRun(r)).toBeGreaterThan(closed)
      expect(said.slice(post)).toContain('Post step: exit status 0.\n')
      expect(said).not.toMatch(STACK_FRAME)
      expect(stepFolders(temp)).toEqual([])
    })
  })

  it('Ctrl+C: the same exit status through npx, npm exec and node dist/cli/index.js (SIGINT, 130 in a shell)', async () => {
    await withJenkins(SLEEPY, async (jenkins, env, temp) => {
      const ways: Array<[string, Spawned]> = [
        ['node', { command: process.execPath, args: [BIN, '--job', 'sleepy'], env, group: true }],
        [
          'npx',
          {
            command: 'npx',
            args: ['--no-install', 'jenkins-build', '--job', 'sleepy'],
            env,
            cwd: ROOT,
            group: true
          }
        ],
        [
          'npm exec',
          {
            command: 'npm',
            args: ['exec', '--no', '--', 'jenkins-build', '--job', 'sleepy'],
            env,
            cwd: ROOT,
            group: true
          }
        ]
      ]
      for (const [way, spec] of ways) {
        const cli = startCommand(spec)
        const [, number] = await cli.waitFor(/Jenkins build sleepy #(\d+) started/)
        // What a terminal does on Ctrl+C: SIGINT to the whole foreground group.
        cli.signal('SIGINT')
        const r = await cli.done
        expect(r.signal, `${way}: ${describeRun(r)}`).toBe('SIGINT')
        expect(shellStatus(r)).toBe(130)
        expect(buildOf(jenkins, 'sleepy', number).result, way).toBe('ABORTED')
        expect(r.stdout, way).toContain(
          `Error: The workflow was cancelled while waiting for Jenkins sleepy #${number}; stopped Jenkins build #${number} (stop; result ABORTED).\n`
        )
        expect(r.stdout + r.stderr, way).not.toMatch(STACK_FRAME)
      }
      expect(stepFolders(temp)).toEqual([])
    })
  }, 120_000)

  it('SIGTERM: the build is stopped as on Ctrl+C, and the command ends by SIGTERM (143 in a shell)', async () => {
    await withJenkins(SLEEPY, async (jenkins, env, temp) => {
      const cli = startCli(['--job', 'sleepy'], env)
      const [, number] = await cli.waitFor(/Jenkins build sleepy #(\d+) started/)
      cli.signal('SIGTERM')
      const r = await cli.done
      expect(r.signal, describeRun(r)).toBe('SIGTERM')
      expect(shellStatus(r)).toBe(143)
      expect(buildOf(jenkins, 'sleepy', number).result).toBe('ABORTED')
      expect(r.stdout).toContain(
        'Received SIGTERM: cancelling the step as the runner cancels a workflow (SIGINT).\n'
      )
      expect(stepFolders(temp)).toEqual([])
    })
  })

  it('--json after an error: an object with the error message, and no job-url for a job that does not exist', async () => {
    await withJenkins({ hello: { script: { durationMs: 100 } } }, async (_jenkins, env) => {
      const r = await startCli(['--job', 'nope', '--json'], env).done
      expect(r.code, describeRun(r)).toBe(1)
      const outputs = JSON.parse(r.stdout) as Record<string, string>
      expect(outputs).not.toHaveProperty('job-url')
      // The message the log ends with, as it shows there.
      const last = /^Error: (.*)$/m.exec(r.stderr)?.[1] ?? ''
      expect(last).toMatch(/\bnope\b/)
      expect(outputs.error).toBe(last)

      const usage = await startCli(['--jbo', 'hello', '--json'], env).done
      expect(usage.code, describeRun(usage)).toBe(2)
      expect(JSON.parse(usage.stdout)).toEqual({
        error: expect.stringMatching(/^unknown option --jbo \(did you mean --job\b/) as unknown
      })
    })
  })

  it('terminal wording: flags and variables, never workflow inputs or ${{ }} expressions', async () => {
    const jobs: Record<string, JobSpec> = {
      repo: { type: 'multibranch', jobs: { main: { script: { durationMs: 100 } } } }
    }
    await withJenkins(jobs, async (_jenkins, env) => {
      const { JENKINS_TOKEN: _token, ...noToken } = env
      const cases: Array<[string[], Record<string, string>, string]> = [
        [
          [],
          env,
          'Error: --job is required unless --jobs is set or --list-jobs is true: expected `folder/job`, `job/folder/job/job`, or the job URL on the same server as --url (or JENKINS_URL).\n'
        ],
        [
          ['--job', 'repo'],
          noToken,
          "Error: --user (or JENKINS_USER) ('admin') is set but --token (or JENKINS_TOKEN) is empty: set --token (or JENKINS_TOKEN) to the user's API token (or leave both empty for anonymous access).\n"
        ],
        [
          ['--job', 'repo'],
          env,
          'Set --branch to the one to build (for example `--branch main` or `--branch PR-<number>`).\n'
        ]
      ]
      for (const [args, variables, message] of cases) {
        const r = await startCli(args, variables).done
        expect(r.code, describeRun(r)).toBe(1)
        expect(r.stdout).toContain(message)
        expect(r.stdout).not.toMatch(/Input '|\$\{\{/)
      }
    })
  })

  it("failed tests: each line keeps the test's name", async () => {
    const jobs: Record<string, JobSpec> = {
      tested: {
        script: {
          durationMs: 100,
          result: 'UNSTABLE',
          tests: {
            suites: [
              {
                name: 'CalcTest',
                cases: [
                  { className: 'CalcTest', name: 'adds' },
                  {
                    className: 'CalcTest',
                    name: 'divides by zero',
                    status: 'FAILED',
                    errorDetails: 'expected: <ArithmeticException> but was: <Infinity>'
                  }
                ]
              }
            ]
          }
        }
      }
    }
    await withJenkins(jobs, async (jenkins, env) => {
      const r = await startCli(['--job', 'tested'], env).done
      expect(r.code, describeRun(r)).toBe(1)
      const number = /Jenkins build tested #(\d+) started/.exec(r.stdout)?.[1]
      buildOf(jenkins, 'tested', number)
      expect(r.stdout).toContain(
        `\nError: divides by zero: expected: <ArithmeticException> but was: <Infinity>\nError: divides by zero: CalcTest — ${jenkins.url}/job/tested/${number}/testReport/`
      )
    })
  })
})

describe('stack traces of jenkins-build', () => {
  it("every source of the bundles' maps that is a file of the clone resolves to it", () => {
    for (const bundle of ['dist/index.js.map', 'dist/cli/index.js.map']) {
      const path = join(ROOT, bundle)
      const map = JSON.parse(readFileSync(path, 'utf8')) as {
        sourceRoot?: string
        sources: string[]
      }
      // Resolved as source-map-support and Node do: the map's folder, then sourceRoot, then the source.
      const files = map.sources
        .filter(source => /\/(src|node_modules)\//.test(source))
        .map(source => join(path, '..', map.sourceRoot ?? '', source))
      expect(
        files.some(
          file => file === join(ROOT, 'src', bundle.includes('cli') ? 'cli/main.ts' : 'main.ts')
        )
      ).toBe(true)
      const missing = files.filter(file => !existsSync(file))
      expect(missing, bundle).toEqual([])
    }
  })

  it('name source files that exist (src/cli/*.ts, not dist/src/cli/*.ts)', () => {
    // A copy of the command whose action.yml has no inputs: it fails with a stack trace.
    const copy = mkdtempSync(join(tmpdir(), 'jenkins-build-copy-'))
    try {
      mkdirSync(join(copy, 'dist'))
      cpSync(join(ROOT, 'dist', 'cli'), join(copy, 'dist', 'cli'), { recursive: true })
      cpSync(join(ROOT, 'dist', 'index.js'), join(copy, 'dist', 'index.js'))
      writeFileSync(join(copy, 'action.yml'), 'name: no inputs\n')
      symlinkSync(join(ROOT, 'src'), join(copy, 'src'))
      const r = spawnSync(process.execPath, [join(copy, 'dist', 'cli', 'index.js'), '--job', 'x'], {
        encoding: 'utf8',
        env: userEnv()
      })
      expect(r.stderr).toContain('has no inputs: block')
      const files = [...r.stderr.matchAll(/\(file:\/\/(\/[^:)]+\.ts):\d+:\d+\)/g)].map(m => m[1])
      expect(files, r.stderr).toContain(join(copy, 'src', 'cli', 'main.ts'))
      for (const file of files) expect(existsSync(file ?? ''), file).toBe(true)
    } finally {
      rmSync(copy, { recursive: true, force: true })
    }
  })
})
