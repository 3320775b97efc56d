/**
 * End to end: what the jenkins-build command says, as a new user met it
 * (issue 24, item 5): no console lines shown twice, the main outputs at the
 * end of a plain run, `--summary -` on stdout, the `--file` refusal naming
 * the flag as typed, and no action input name in any message of an error
 * case: the command's flags and variables instead.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readActionInputs } from '../../src/cli/action-yml.js'
import { ROOT } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { BIN, buildOf, describeRun, startCli, startCommand, type CliRun } from './cli-process.js'
import { ADMIN_TOKEN } from './helpers.js'

const INPUTS = readActionInputs(join(ROOT, 'action.yml')).map(input => input.name)
/** An input named as the action names it to a workflow author: `'url'`, `the 'url' input`, `Input 'job'`. */
const INPUT_NAME = new RegExp(`'(${INPUTS.join('|')})'|\\binputs?\\b`, 'i')

/** The lines of a run that name an action input rather than a flag. */
function inputNames(r: CliRun): string[] {
  return `${r.stdout}\n${r.stderr}`.split('\n').filter(line => INPUT_NAME.test(line))
}

describe('jenkins-build: its messages', () => {
  let jenkins: TestJenkins
  let creds: Record<string, string>
  let workspace: string
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 10,
      jobs: {
        failing: {
          script: { durationMs: 200, result: 'FAILURE', consoleLines: ['Compiling', 'error: boom'] }
        },
        hello: { script: { durationMs: 200, consoleLines: ['Hello'] } },
        upload: {
          parameters: [{ name: 'PACKAGE', type: 'file' }],
          script: { durationMs: 200 }
        },
        deploy: {
          parameters: [{ name: 'ENV', type: 'choice', choices: ['dev', 'prod'] }],
          script: { durationMs: 200 }
        },
        // A plugin's parameter the step cannot know, which takes one value (it extends SimpleParameterDefinition).
        twice: {
          parameters: [
            {
              name: 'ENV',
              type: 'string',
              pluginClass: 'org.example.release.ReleaseParameterDefinition'
            }
          ],
          script: { durationMs: 200 }
        }
      }
    })
    creds = { JENKINS_URL: jenkins.url, JENKINS_USER: 'admin', JENKINS_TOKEN: ADMIN_TOKEN }
    workspace = mkdtempSync(join(tmpdir(), 'jenkins-build-messages-'))
    writeFileSync(join(workspace, 'app.zip'), 'zip')
  })
  afterAll(async () => {
    await jenkins.close()
    rmSync(workspace, { recursive: true, force: true })
  })

  describe.concurrent('runs', () => {
    it('a failing build: the console once (its last lines not repeated after it), then the main outputs', async () => {
      const r = await startCli(['--job', 'failing'], creds).done
      expect(r.code, describeRun(r)).toBe(1)
      const number = /Jenkins build failing #(\d+) started/.exec(r.stdout)?.[1]
      expect(buildOf(jenkins, 'failing', number).result).toBe('FAILURE')
      expect(r.stdout).toContain(
        `\nError: Jenkins build failing #${number} finished FAILURE (accepted: SUCCESS) — ${jenkins.url}/job/failing/${number}/\n`
      )
      expect(r.stdout).not.toContain('console lines:')
      expect(r.stdout.split('error: boom\n')).toHaveLength(2)
      expect(r.stdout).toContain(
        [
          'Outputs (--json prints every one):',
          '  result        FAILURE',
          `  build-number  ${number}`,
          `  build-url     ${jenkins.url}/job/failing/${number}/`
        ].join('\n')
      )
    })

    it('--summary -: the summary on stdout, the log on stderr', async () => {
      const r = await startCli(['--job', 'hello', '--summary', '-'], creds).done
      expect(r.code, describeRun(r)).toBe(0)
      const number = /Jenkins build hello #(\d+) started/.exec(r.stderr)?.[1]
      expect(r.stdout).toMatch(/^<h2>Jenkins <a href="[^"]+\/job\/hello\/">hello<\/a><\/h2>/)
      expect(r.stdout).toContain(`<a href="${jenkins.url}/job/hello/${number}/">&#35;${number}</a>`)
      expect(r.stdout).not.toContain('=== Console of')
      expect(r.stderr).toContain(`=== Console of Jenkins hello #${number}\n`)
      expect(r.stderr).toContain('Outputs (--json prints every one):\n  result        SUCCESS\n')
    })

    it('--file for a parameter the job has not: one sentence, naming --file as typed; nothing sent', async () => {
      const r = await startCommand({
        command: process.execPath,
        args: [BIN, '--job', 'upload', '--file', 'PKG=app.zip'],
        env: creds,
        cwd: workspace
      }).done
      expect(r.code, describeRun(r)).toBe(1)
      expect(r.stdout).toContain(
        "Error: --file gives job 'upload' a file for a parameter that takes none: PKG is not a parameter of the job. Its file parameters are PACKAGE. Nothing was triggered.\n"
      )
      expect(jenkins.requests.filter(q => q.path.startsWith('/job/upload/build'))).toEqual([])
    })

    it('an input error, and a run that ends well: no post step line, for there was nothing to stop', async () => {
      const bad = await startCli(['--job', 'hello', '--timeout', 'soon'], creds).done
      expect(bad.code, describeRun(bad)).toBe(1)
      expect(bad.stdout).toMatch(/^Error: --timeout/m)
      expect(bad.stdout + bad.stderr).not.toContain('Post step')
      const good = await startCli(['--job', 'hello'], creds).done
      expect(good.code, describeRun(good)).toBe(0)
      expect(good.stdout + good.stderr).not.toContain('Post step')
      // With --verbose it shows, as the runner's log would.
      const verbose = await startCli(['--job', 'hello', '--verbose'], creds).done
      expect(verbose.stdout).toContain(
        'Post step: nothing to stop; the main step finished and left nothing for it.\n'
      )
    })

    it("--build takes a build's page as copied from the browser, and says what to paste for a permalink it cannot follow", async () => {
      const first = await startCli(['--job', 'hello', '--json'], creds).done
      expect(first.code, describeRun(first)).toBe(0)
      const number = (JSON.parse(first.stdout) as Record<string, string>)['build-number']
      const page = `${jenkins.url}/job/hello/${number}/console`
      const again = await startCli(['--job', 'hello', '--build', page, '--json'], creds).done
      expect(again.code, describeRun(again)).toBe(0)
      const outputs = JSON.parse(again.stdout) as Record<string, string>
      expect(outputs).toMatchObject({ result: 'SUCCESS', 'build-number': number })
      const latest = await startCli(
        ['--job', 'hello', '--build', `${jenkins.url}/job/hello/lastBuild/`, '--json'],
        creds
      ).done
      expect(latest.code, describeRun(latest)).toBe(0)
      const failed = await startCli(
        ['--job', 'hello', '--build', `${jenkins.url}/job/hello/lastFailedBuild/`],
        creds
      ).done
      expect(failed.code, describeRun(failed)).toBe(1)
      expect(failed.stdout).toContain(
        'names lastFailedBuild, a build Jenkins picks anew each time: give `--build last` (lastBuild) or `--build last-successful` (lastSuccessfulBuild)'
      )
    })

    it('a --file refused for its path names the flag as typed, not a line', async () => {
      const r = await startCommand({
        command: process.execPath,
        args: [BIN, '--job', 'upload', '--file', 'PACKAGE=../app.zip'],
        env: creds,
        cwd: workspace
      }).done
      expect(r.code, describeRun(r)).toBe(1)
      expect(r.stdout).toContain(
        "Error: --file PACKAGE=../app.zip: the path for PACKAGE ('../app.zip')"
      )
      expect(r.stdout).not.toContain('line 1')
    })

    it("a value outside a choice parameter's list: refused before anything is sent, naming the choices", async () => {
      const r = await startCli(['--job', 'deploy', '-p', 'ENV=qa'], creds).done
      expect(r.code, describeRun(r)).toBe(1)
      expect(r.stdout).toContain(
        "Error: Parameter 'ENV' of job 'deploy' is 'qa', which is not one of its choices: 'dev', 'prod'. Nothing was triggered.\n"
      )
      expect(
        jenkins.requests.filter(q => q.method === 'POST' && q.path.startsWith('/job/deploy/'))
      ).toEqual([])
    })

    it("Jenkins' 500 refusing the request is its answer: sent once, one sentence", async () => {
      // Two values for a plugin's single-value parameter: Jenkins' IllegalArgumentException, a 500 page.
      const r = await startCli(['--job', 'twice', '-p', 'ENV=dev', '-p', 'ENV=prod'], creds).done
      expect(r.code, describeRun(r)).toBe(1)
      expect(r.stdout).toMatch(
        new RegExp(
          `^Error: Jenkins at ${jenkins.url.replace(/\./g, '\\.')} refused to trigger job 'twice' \\(500\\): its error page gives no reason; its log has it under Logging ID [0-9a-f-]{36} \\(a parameter value it does not accept, such as several values for a plugin's parameter that takes one, is the usual one\\)\\.\\n`,
          'm'
        )
      )
      const posts = jenkins.requests.filter(
        q => q.method === 'POST' && q.path.startsWith('/job/twice/')
      )
      expect(posts.map(q => q.status)).toEqual([500])
    })

    it('error cases name flags and variables, never an action input', async () => {
      const cases: Array<[string, string[], Record<string, string>]> = [
        ['refused connection', ['--job', 'hello'], { ...creds, JENKINS_URL: 'http://127.0.0.1:1' }],
        ['wrong token', ['--job', 'hello'], { ...creds, JENKINS_TOKEN: 'wrong' }],
        ['user without token', ['--job', 'hello'], { ...creds, JENKINS_TOKEN: '' }],
        ['no job', [], creds],
        ['job and jobs', ['--job', 'hello', '--jobs', 'failing'], creds],
        ['bad timeout', ['--job', 'hello', '--timeout', 'soon'], creds],
        ['bad accept', ['--job', 'hello', '--accept', 'GREEN'], creds],
        ['unknown job', ['--job', 'nope'], creds],
        ['files for a job without', ['--job', 'hello', '--files', 'PKG=app.zip'], creds]
      ]
      const runs = await Promise.all(cases.map(([, args, env]) => startCli(args, env).done))
      for (const [index, r] of runs.entries()) {
        expect(r.code, `${cases[index]?.[0]}\n${describeRun(r)}`).not.toBe(0)
      }
      const named = runs.flatMap((r, index) =>
        inputNames(r).map(line => `${cases[index]?.[0]}: ${line}`)
      )
      expect(named).toEqual([])
    })
  })

  it('a Jenkins that never answers: the retry lines too name --url, not the input', async () => {
    const silent = await startJenkins({ quietPeriodSec: 0, jobs: { hello: {} } })
    silent.aim({ effect: { type: 'hang' } })
    try {
      const r = await startCli(['--job', 'hello'], { ...creds, JENKINS_URL: silent.url }).done
      expect(r.code, describeRun(r)).toBe(1)
      expect(r.stdout, describeRun(r)).toMatch(/; trying again in .*\n/)
      expect(r.stdout).toContain('check --url (or JENKINS_URL) (its host and port)')
      expect(inputNames(r), describeRun(r)).toEqual([])
    } finally {
      await silent.close()
    }
  })
})
