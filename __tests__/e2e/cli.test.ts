/**
 * End to end: the jenkins-build command as a user runs it, the built bin of
 * package.json (dist/cli/index.js) spawned against the test server. It runs
 * dist/index.js as the runner does, under Node 24, so these tests check what
 * the command adds: flags and variables reaching the step, the log as a
 * terminal shows it, --json, the exit status, and Ctrl+C stopping the build.
 * Each test has a job of its own and matches only the build its run reports.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readActionInputs } from '../../src/cli/action-yml.js'
import { ROOT } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { buildOf, describeRun, startCli } from './cli-process.js'
import { ADMIN_TOKEN } from './helpers.js'

describe('jenkins-build (the package bin)', () => {
  let jenkins: TestJenkins
  /** The admin's API token in the environment, as the README tells users to pass it. */
  let creds: Record<string, string>
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 10,
      jobs: {
        hello: {
          script: {
            durationMs: 200,
            // Jenkins text that looks like a command must reach the terminal as text.
            consoleLines: ['Hello from Jenkins', '::error::not a command', '##[group]nor this']
          }
        },
        failing: { script: { durationMs: 200, result: 'FAILURE', consoleLines: ['error: boom'] } },
        params: {
          parameters: [
            { name: 'BRANCH', type: 'string', default: 'main' },
            { name: 'DEBUG', type: 'boolean', default: false },
            { name: 'TARGET', type: 'choice', choices: ['staging', 'production'] },
            { name: 'NOTES', type: 'text', default: '' }
          ],
          script: { durationMs: 200, echoParameters: true }
        },
        flagged: { script: { durationMs: 200 } },
        remote: { authToken: 'cli-job-token-5f3a9c', script: { durationMs: 200 } },
        long: { script: { durationMs: 30_000, consoleLines: ['working'] } }
      }
    })
    creds = { JENKINS_URL: jenkins.url, JENKINS_USER: 'admin', JENKINS_TOKEN: ADMIN_TOKEN }
  })
  afterAll(() => jenkins.close())

  describe.concurrent('runs', () => {
    it('--json: outputs on stdout, the log on stderr as a terminal shows it, credentials from the environment', async () => {
      const r = await startCli(['--job', 'hello', '--json'], creds).done
      expect(r.code, describeRun(r)).toBe(0)
      const outputs = JSON.parse(r.stdout) as Record<string, string>
      const build = buildOf(jenkins, 'hello', outputs['build-number'])
      expect(build.result).toBe('SUCCESS')
      expect(outputs).toMatchObject({
        result: 'SUCCESS',
        'build-url': `${jenkins.url}/job/hello/${build.number}/`,
        'queue-url': `${jenkins.url}/queue/item/${build.queueId}/`,
        'job-url': `${jenkins.url}/job/hello/`
      })
      // Started by the admin, who signed in with the token from JENKINS_TOKEN.
      const trigger = jenkins.requests.find(
        q => q.method === 'POST' && q.path === '/job/hello/build' && q.status === 201
      )
      expect(trigger).toMatchObject({ user: 'admin', auth: 'token' })

      expect(r.stderr).toContain(`=== Console of Jenkins hello #${build.number}\n`)
      expect(r.stderr).toContain(
        'Hello from Jenkins\n::error::not a command\n##[group]nor this\nFinished: SUCCESS\n'
      )
      expect(r.stderr).toContain(`Jenkins build hello #${build.number} finished: SUCCESS`)
      // No workflow command of the action's own is left raw, and no annotation came from Jenkins.
      expect(r.stderr).not.toMatch(/^::(add-mask|group|endgroup|stop-commands|debug)/m)
      expect(r.stderr).not.toContain('Error:')
      expect(r.stdout + r.stderr).not.toContain(ADMIN_TOKEN)
    })

    it('a failing build: exit status 1, the error line, the summary written with --summary', async () => {
      const r = await startCli(['--job', 'failing', '--summary', 'summary.md'], creds).done
      expect(r.code, describeRun(r)).toBe(1)
      const number = /Jenkins build failing #(\d+) started/.exec(r.stdout)?.[1]
      const build = buildOf(jenkins, 'failing', number)
      expect(build.result).toBe('FAILURE')
      // Without --json the log is on stdout.
      expect(r.stdout).toContain(
        `\nError: Jenkins build failing #${number} finished FAILURE (accepted: SUCCESS) — ${jenkins.url}/job/failing/${number}/\n`
      )
      expect(r.stdout).toContain('error: boom\n')
      expect(r.stdout).not.toMatch(/^::error/m)
      expect(r.summary).toContain(
        `<a href="${jenkins.url}/job/failing/${number}/">&#35;${number}</a>`
      )
      expect(r.summary).toContain('FAILURE')
    })

    it('-p parameters reach the build exactly, --verbose shows the debug lines', async () => {
      const notes = 'two\nlines; $(id) "q"'
      const r = await startCli(
        [
          '--job',
          'params',
          '-p',
          'BRANCH=feature/x=y',
          '--param',
          'TARGET=production',
          '-p',
          `NOTES=${notes}`,
          '--no-log',
          '--verbose',
          '--json'
        ],
        creds
      ).done
      expect(r.code, describeRun(r)).toBe(0)
      const outputs = JSON.parse(r.stdout) as Record<string, string>
      const build = buildOf(jenkins, 'params', outputs['build-number'])
      expect(build.parameters).toEqual({
        BRANCH: 'feature/x=y',
        DEBUG: false,
        TARGET: 'production',
        NOTES: notes
      })
      // --no-log: no console; --verbose: the action's debug lines.
      expect(r.stderr).not.toContain('=== Console of')
      expect(r.stderr).toMatch(/^Debug: /m)
    })

    it('flags instead of the environment: --url, --user and --token work, and --token is warned about and masked', async () => {
      const r = await startCli([
        '--url',
        jenkins.url,
        '--user',
        'admin',
        '--token',
        ADMIN_TOKEN,
        '--job',
        'flagged',
        '--wait=started',
        '--json'
      ]).done
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.stderr).toContain(
        'Warning: --token on the command line lands in your shell history, and in the process list while this runs; set JENKINS_TOKEN in the environment instead.\n'
      )
      const outputs = JSON.parse(r.stdout) as Record<string, string>
      // wait: started returns once the build has a number, before its result.
      expect(outputs.result).toBeUndefined()
      expect(outputs['build-url']).toBe(
        `${jenkins.url}/job/flagged/${buildOf(jenkins, 'flagged', outputs['build-number']).number}/`
      )
      expect(r.stdout + r.stderr).not.toContain(ADMIN_TOKEN)
    })

    it('JENKINS_JOB_TOKEN gives --job-token: the trigger carries it, and it is masked', async () => {
      const r = await startCli(['--job', 'remote', '--json'], {
        ...creds,
        JENKINS_JOB_TOKEN: 'cli-job-token-5f3a9c'
      }).done
      expect(r.code, describeRun(r)).toBe(0)
      const outputs = JSON.parse(r.stdout) as Record<string, string>
      const build = buildOf(jenkins, 'remote', outputs['build-number'])
      expect(build.causes.map(c => c._class)).toContain('hudson.model.Cause$RemoteCause')
      expect(r.stderr).not.toContain('--job-token on the command line')
      expect(r.stdout + r.stderr).not.toContain('cli-job-token-5f3a9c')
    })

    it('Ctrl+C (SIGINT) stops the Jenkins build as a cancelled workflow does, then ends by SIGINT', async () => {
      const cli = startCli(['--job', 'long'], creds)
      const [, number] = await cli.waitFor(/Jenkins build long #(\d+) started/)
      cli.signal('SIGINT')
      const r = await cli.done
      expect(r.signal, describeRun(r)).toBe('SIGINT')
      expect(buildOf(jenkins, 'long', number).result).toBe('ABORTED')
      // The action got exactly one SIGINT (the runner's), not a second from the
      // terminal, and said so: one line for one Ctrl+C.
      expect(r.stdout.match(/Received SIGINT/g)).toEqual(['Received SIGINT'])
      expect(r.stdout).toContain('Received SIGINT: the workflow was cancelled.\n')
      // The main step stopped its build: the post step had nothing to stop, and says nothing.
      expect(r.stdout).not.toContain('Post step')
      expect(r.stdout).toContain(
        `Error: The workflow was cancelled while waiting for Jenkins long #${number}; stopped Jenkins build #${number} (stop; result ABORTED).\n`
      )
    })
  })

  describe.concurrent('the command line alone', () => {
    it('--help lists every input of action.yml as a flag, and exits 0', async () => {
      const r = await startCli(['--help']).done
      expect(r.code, describeRun(r)).toBe(0)
      for (const input of readActionInputs(join(ROOT, 'action.yml'))) {
        expect(r.stdout).toMatch(new RegExp(`^ {2}--(\\[no-\\])?${input.name}\\b`, 'm'))
      }
      expect(r.stdout).toMatch(/^Usage: jenkins-build /)
      expect(r.stderr).toBe('')
    })

    it('a bad flag: exit status 2, what was wrong, and no step started', async () => {
      const r = await startCli(['--jbo', 'hello'], creds).done
      expect(r.code, describeRun(r)).toBe(2)
      expect(r.stderr).toMatch(
        /^jenkins-build: unknown option --jbo \(did you mean --job\b.*\)\nSee 'jenkins-build --help' for the flags\.\n$/
      )
      expect(r.stdout).toBe('')

      const noUrl = await startCli(['--job', 'hello']).done
      expect(noUrl.code, describeRun(noUrl)).toBe(2)
      expect(noUrl.stderr).toContain(
        'jenkins-build: no Jenkins URL: give --url URL or set JENKINS_URL'
      )
    })
  })
})

/** The exit status a shell reports: the code, or 128 + the signal that ended the process. */
