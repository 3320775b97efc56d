import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, test } from 'vitest'
import {
  DEFAULT_PORT,
  FLAGS,
  HELP,
  parseCli,
  parseDuration,
  UsageError
} from '../../test-server/cli-options.js'
import { jobNames } from '../../test-server/cli-banner.js'
import {
  DEFAULT_USERS,
  SAMPLE_NOTES,
  SAMPLE_WORKSPACE,
  sampleJobs,
  type JobSpec
} from '../../test-server/index.js'

/** The spec at a full name in a job tree. */
function at(jobs: Record<string, JobSpec> | undefined, fullName: string): JobSpec | undefined {
  const [first, ...rest] = fullName.split('/')
  const spec = jobs?.[first ?? '']
  return rest.length === 0 ? spec : at(spec?.jobs, rest.join('/'))
}

function failure(args: string[]): string {
  try {
    parseCli(args)
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError)
    return (error as Error).message
  }
  throw new Error(`parseCli(${JSON.stringify(args)}) did not fail`)
}

describe('test server command line: defaults and --help', () => {
  test('no flag: port 8080, the sample jobs, the default login with its fixed API token', () => {
    const config = parseCli([])
    expect(config.help).toBe(false)
    expect(config.options.port).toBe(DEFAULT_PORT)
    expect(config.options.users).toEqual(DEFAULT_USERS)
    expect(config.options.users?.[0]?.apiToken).toMatch(/^11[0-9a-f]{32}$/)
    expect(config.options.jobs).toEqual(sampleJobs)
    expect(config.job).toBe('hello')
    expect(config.log).toBe(false)
    expect(config.tlsDir).toBeUndefined()
  })

  test('--help and -h; the help names every flag', () => {
    expect(parseCli(['--help']).help).toBe(true)
    expect(parseCli(['-h']).help).toBe(true)
    for (const flag of Object.keys(FLAGS)) expect(HELP).toContain(`--${flag}`)
    expect(HELP).toContain(DEFAULT_USERS[0]?.apiToken)
  })

  test('the help says what each sample job shows, one line each, and names the sample workspace', () => {
    const listed = jobNames(sampleJobs).map(name => name.replace(/ \(.*\)$/, ''))
    expect(Object.keys(SAMPLE_NOTES)).toEqual(listed)
    const lines = HELP.split('\n')
    for (const [name, note] of Object.entries(SAMPLE_NOTES)) {
      expect(
        lines.filter(line => line.startsWith(`  ${name} `) && line.endsWith(note))
      ).toHaveLength(1)
    }
    expect(HELP).toContain(
      `cd ${SAMPLE_WORKSPACE} && npx --no-install jenkins-build --job failing-tests`
    )
    expect(existsSync(resolve(import.meta.dirname, '../..', SAMPLE_WORKSPACE, 'README.md'))).toBe(
      true
    )
  })
})

describe('test server command line: server flags', () => {
  test('each flag sets its ServerOptions field', () => {
    const config = parseCli([
      '--port=0',
      '--host',
      '0.0.0.0',
      '--context',
      '/jenkins',
      '--root-url',
      'https://ci.example.com/jenkins/',
      '--tls',
      'certs',
      '--auth-proxy',
      'X-Key: one',
      '--auth-proxy',
      'CF-Access-Client-Id:two',
      '--csrf',
      'off',
      '--crumb-field',
      'Automation-Crumb',
      '--anonymous-read',
      '--quiet-period',
      '0.5',
      '--executors',
      '0',
      '--no-stage-view',
      '--hostile',
      '::error::x\\ny',
      '--echo-request',
      '--log'
    ])
    expect(config.options).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      contextPath: '/jenkins',
      rootUrl: 'https://ci.example.com/jenkins/',
      authProxy: { headers: { 'X-Key': 'one', 'CF-Access-Client-Id': 'two' } },
      csrf: false,
      crumbField: 'Automation-Crumb',
      anonymousRead: true,
      quietPeriodSec: 0.5,
      executors: 0,
      stageView: false,
      hostile: { text: '::error::x\ny', echoRequest: true }
    })
    expect(config.tlsDir).toBe(resolve('certs'))
    expect(config.log).toBe(true)
  })

  test('--clock-skew: a signed duration with its unit; --silent', () => {
    expect(parseCli(['--clock-skew=-75447h']).options.clockSkewMs).toBe(-75_447 * 3_600_000)
    expect(parseCli(['--clock-skew', '+1h']).options.clockSkewMs).toBe(3_600_000)
    expect(parseCli(['--clock-skew', '90s']).options.clockSkewMs).toBe(90_000)
    expect(() => parseCli(['--clock-skew', '2'])).toThrow(
      "--clock-skew takes a duration with its unit, - for behind: -75447h, 1h, 90s, 500ms; not '2'"
    )
    expect(parseCli([]).silent).toBe(false)
    expect(parseCli(['--silent']).silent).toBe(true)
  })
})

describe('test server command line: users', () => {
  test('--user, --token and --permissions make exactly those users', () => {
    const { options } = parseCli([
      '--user',
      'alice:s3cret',
      '--token',
      'alice:11aa22bb33cc44dd55ee66ff77889900aa',
      '--token',
      'ci:ci-token',
      '--permissions',
      'ci:read,build',
      '--user',
      'bob:pa:ss'
    ])
    expect(options.users).toEqual([
      { name: 'alice', password: 's3cret', apiToken: '11aa22bb33cc44dd55ee66ff77889900aa' },
      { name: 'bob', password: 'pa:ss' },
      { name: 'ci', apiToken: 'ci-token', permissions: ['read', 'build'] }
    ])
  })

  test('--permissions alone changes the default login', () => {
    const users = parseCli(['--permissions', 'admin:read']).options.users
    expect(users).toEqual([{ ...DEFAULT_USERS[0], permissions: ['read'] }])
    expect(DEFAULT_USERS[0]?.permissions).toEqual(['admin'])
  })

  test('the default users are a copy: changing them leaves DEFAULT_USERS alone', () => {
    const users = parseCli([]).options.users ?? []
    ;(users[0] as { password?: string }).password = 'changed'
    expect(DEFAULT_USERS[0]?.password).toBe('admin')
  })
})

describe('test server command line: jobs', () => {
  test('--job in a folder keeps the sample folder beside it, and the samples stay as they were', () => {
    const before = JSON.stringify(sampleJobs)
    const config = parseCli(['--job', 'team/app:20s:failure', '--pipeline', 'deploy:500ms'])
    const jobs = config.options.jobs
    expect(at(jobs, 'team/app')).toMatchObject({
      type: 'freestyle',
      script: { durationMs: 20_000, result: 'FAILURE', echoParameters: true }
    })
    expect(at(jobs, 'team/app')?.script?.consoleLines?.[0]).toBe(
      "team/app runs 20 sec and ends FAILURE, as the test server's command line asked"
    )
    expect(at(jobs, 'team/app')?.script?.consoleLines).toHaveLength(21)
    expect(at(jobs, 'team/service/deploy')).toBe(at(sampleJobs, 'team/service/deploy'))
    expect(at(jobs, 'deploy')).toMatchObject({
      type: 'pipeline',
      script: { durationMs: 500, result: 'SUCCESS' }
    })
    expect(config.job).toBe('team/app')
    expect(JSON.stringify(sampleJobs)).toBe(before)
  })

  test('a --job replaces the sample of the same name, whatever its case; new folders are made', () => {
    const jobs = parseCli(['--job', 'HELLO:2m', '--job', 'a/b/c']).options.jobs ?? {}
    expect(jobs.hello).toBeUndefined()
    expect(jobs.HELLO?.script?.durationMs).toBe(120_000)
    expect(at(jobs, 'a')?.type).toBe('folder')
    expect(at(jobs, 'a/b/c')?.script).toMatchObject({ durationMs: 1000, result: 'SUCCESS' })
  })

  test('--param adds parameters of each type, to a --job or a sample job; --job-token', () => {
    const config = parseCli([
      '--param',
      'team/app:ENV:choice=dev|prod',
      '--param',
      'team/app:BRANCH=main',
      '--param',
      'team/app:DEBUG:boolean=true',
      '--param',
      'team/app:NOTES:text',
      '--param',
      'team/app:KEY:password=x=y',
      '--job',
      'team/app',
      '--param',
      'hello:GREETING=hi',
      '--param',
      'params:BRANCH=develop',
      '--job-token',
      'team/app:job-secret'
    ])
    const jobs = config.options.jobs
    expect(at(jobs, 'team/app')?.parameters).toEqual([
      { name: 'ENV', type: 'choice', choices: ['dev', 'prod'] },
      { name: 'BRANCH', type: 'string', default: 'main' },
      { name: 'DEBUG', type: 'boolean', default: true },
      { name: 'NOTES', type: 'text' },
      { name: 'KEY', type: 'password', default: 'x=y' }
    ])
    expect(at(jobs, 'team/app')?.authToken).toBe('job-secret')
    expect(at(jobs, 'hello')?.parameters).toEqual([
      { name: 'GREETING', type: 'string', default: 'hi' }
    ])
    // A parameter of the same name is replaced, the others kept.
    const names = at(jobs, 'params')?.parameters?.map(p => p.name)
    expect(names).toEqual(['DEBUG', 'TARGET', 'NOTES', 'SECRET', 'BRANCH'])
    expect(at(jobs, 'params')?.parameters?.at(-1)?.default).toBe('develop')
    expect(at(sampleJobs, 'hello')?.parameters).toBeUndefined()
  })

  test('--no-samples: only the jobs given, and no job to show when none is', () => {
    const config = parseCli(['--no-samples', '--job', 'only'])
    expect(Object.keys(config.options.jobs ?? {})).toEqual(['only'])
    expect(parseCli(['--no-samples']).job).toBeUndefined()
    expect(parseCli(['--no-samples']).options.jobs).toEqual({})
  })

  test('durations', () => {
    expect(parseDuration('job', '250ms')).toBe(250)
    expect(parseDuration('job', '1.5')).toBe(1500)
    expect(parseDuration('job', '2m')).toBe(120_000)
    expect(parseDuration('job', '24h')).toBe(86_400_000)
    expect(() => parseDuration('job', '25h')).toThrow(/at most 24h/)
  })
})

describe('test server command line: errors name the flag and what it expects', () => {
  test.each([
    [['--frob'], /^unknown flag --frob$/],
    [['8080'], /^unexpected argument '8080'.*npm run server -- --port 8080/],
    [['--port'], /^--port needs a value$/],
    [['--log=yes'], /^--log takes no value$/],
    [['--port', '-1'], /^--port's value starts with '-': write it as --port=VALUE/],
    [['--port', '70000'], /^--port takes a whole number from 0 to 65535, not '70000'$/],
    [['--port', '80.5'], /^--port takes a whole number/],
    [['--executors', 'two'], /^--executors takes a whole number from 0 to 100, not 'two'$/],
    [['--quiet-period', 'soon'], /^--quiet-period takes seconds from 0 to 86400, not 'soon'$/],
    [['--csrf', 'maybe'], /^--csrf takes on or off, not 'maybe'$/],
    [['--crumb-field', 'Bad Field'], /^--crumb-field takes a header name/],
    [['--host', ' '], /^--host needs a name or an address$/],
    [['--context', 'has space'], /^--context takes a URL path such as \/jenkins/],
    [['--root-url', 'ftp://x'], /^--root-url takes an http\(s\) URL, not 'ftp:\/\/x'$/],
    [['--auth-proxy', 'novalue'], /^--auth-proxy takes 'Name: value', not 'novalue'$/],
    [['--hostile', ''], /^--hostile needs a text$/],
    [['--tls', ''], /^--tls needs a folder/],
    [['--user', 'alice'], /^--user takes NAME:PASSWORD, not 'alice'$/],
    [['--user', 'alice:'], /^--user takes NAME:PASSWORD, not 'alice:'$/],
    [['--user', 'a:x', '--user', 'A:y'], /^--user A is given twice$/],
    [['--token', ':tok'], /^--token takes NAME:TOKEN/],
    [['--token', 'a:x', '--token', 'a:y'], /^--token a is given twice$/],
    [['--token', 'alice:has space'], /^--token alice: a token has no spaces$/],
    [
      ['--permissions', 'bob:read'],
      /^--permissions: no user bob: add one with --user bob:PASSWORD/
    ],
    [
      ['--user', 'a:b', '--permissions', 'a:read,fly'],
      /^--permissions a: 'fly' is not one of read, build/
    ],
    [['--job', 'x:soon'], /^--job: 'soon' is not a duration: 500ms, 30s, 2m or 1h/],
    [['--pipeline', 'x:1s:BROKEN'], /^--pipeline x:1s:BROKEN: the result is one of SUCCESS,/],
    [['--job', 'a:1:SUCCESS:x'], /^--job takes NAME\[:DURATION\[:RESULT\]\], not 'a:1:SUCCESS:x'$/],
    [['--job', 'bad?name'], /^--job: 'bad\?name' is not a Jenkins item name \('\?' is unsafe/],
    [['--job', 'a//b'], /^--job: 'a\/\/b' is not a Jenkins item name \(empty, \. or \.\./],
    [['--job', 'hello/x'], /^--job hello\/x: hello is a freestyle job, not a folder$/],
    [['--job', 'repo/x'], /^--job repo\/x: repo is a multibranch job, not a folder$/],
    [['--param', 'nojob:X'], /^--param: no job nojob: declare it with --job nojob$/],
    [['--param', 'team:X'], /^--param: no job team \(it is a folder\)/],
    [['--param', 'hello'], /^--param takes JOB:NAME\[:TYPE\]\[=DEFAULT\], not 'hello'$/],
    [['--param', 'hello:X:number'], /^--param hello:X:number: the type is one of string, boolean/],
    [['--param', 'hello:X:choice'], /^--param hello:X:choice: a choice lists its choices/],
    [['--param', 'hello:X:choice=a||b'], /a choice lists its choices/],
    [['--param', 'hello:X:boolean=yes'], /^--param hello:X:boolean=yes: a boolean's default/],
    [['--job-token', 'hello'], /^--job-token takes JOB:TOKEN, not 'hello'$/],
    [['--no-samples', '--param', 'hello:X'], /^--param: no job hello/]
  ])('%j', (args, message) => {
    expect(failure(args)).toMatch(message)
  })
})
