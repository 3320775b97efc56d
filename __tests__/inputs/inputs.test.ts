import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { Input } from '../../src/util/constants.js'
import {
  getSettings,
  INPUT_DEFAULTS,
  parseSettings,
  type Settings
} from '../../src/inputs/inputs.js'
import { InputError } from '../../src/util/input-error.js'
import { maskSecret } from '../../src/step/step-io.js'
import { actionDefaults } from '../fixtures/action-defaults.js'
import { selfSignedPem } from '../fixtures/pem.js'

const BASE = { url: 'http://127.0.0.1:1/jenkins', job: 'folder/job' }

const WORKSPACE = '/home/runner/work/repo/repo'

function settings(inputs: Record<string, string> = {}): Settings {
  const all: Record<string, string> = { ...BASE, ...inputs }
  return parseSettings((name: Input) => all[name] ?? '', {
    workspace: WORKSPACE,
    platform: 'linux'
  })
}

function errorOf(inputs: Record<string, string>): string {
  try {
    settings(inputs)
  } catch (error) {
    expect(error).toBeInstanceOf(InputError)
    return (error as Error).message
  }
  throw new Error(`accepted ${JSON.stringify(inputs)}`)
}

describe('parseSettings', () => {
  test('only url and job given: every other input takes its action.yml default', () => {
    expect(settings()).toEqual({
      url: 'http://127.0.0.1:1/jenkins',
      user: '',
      token: '',
      job: ['folder', 'job'],
      jobName: 'folder/job',
      parameters: {},
      hasParameters: false,
      files: [],
      wait: 'finish',
      disable: false,
      build: 'new',
      listJobs: false,
      timeoutMs: 3_600_000,
      accept: ['SUCCESS'],
      log: true,
      abortOnCancel: true,
      commitStatus: false,
      githubToken: '',
      statusContext: 'jenkins/folder/job',
      prComment: false,
      commentPermission: 'write',
      artifacts: [],
      artifactsPath: `${WORKSPACE}/jenkins-artifacts`,
      workspace: WORKSPACE,
      scan: 'if-missing',
      jobToken: '',
      headers: [],
      caCerts: [],
      failFast: false,
      valuesFileRequired: false,
      inputWarnings: []
    })
  })

  test('INPUT_DEFAULTS match action.yml (github-token is evaluated by the runner)', () => {
    const fromYml = actionDefaults()
    // url is required, so it has no default.
    expect([...Object.keys(fromYml), 'url'].sort()).toEqual(Object.values(Input).sort())
    for (const name of Object.values(Input)) {
      if (name === Input.GithubToken) expect(fromYml[name]).toBe('${{ github.token }}')
      else if (name !== Input.Url) expect(INPUT_DEFAULTS[name] ?? '', name).toBe(fromYml[name])
    }
  })

  test('whitespace-only values count as empty, so as the default', () => {
    const s = settings({ wait: '  ', timeout: ' ', accept: '\n', log: ' ' })
    expect([s.wait, s.timeoutMs, s.accept, s.log]).toEqual(['finish', 3_600_000, ['SUCCESS'], true])
  })

  describe('url', () => {
    test.each([
      ['http://127.0.0.1:1/jenkins/', 'http://127.0.0.1:1/jenkins'],
      ['http://127.0.0.1:1/jenkins///', 'http://127.0.0.1:1/jenkins'],
      ['  https://CI.Example.com:443/Jenkins/ci/ ', 'https://ci.example.com/Jenkins/ci'],
      ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
      ['http://127.0.0.1:8080/', 'http://127.0.0.1:8080'],
      ['HTTP://127.0.0.1:80/a b', 'http://127.0.0.1/a%20b']
    ])('%s → %s', (url, expected) => {
      expect(settings({ url, job: 'x' }).url).toBe(expected)
    })

    test.each(['file:///etc/passwd', 'javascript:alert(1)', 'localhost:8080', '//127.0.0.1/x'])(
      '%s is refused',
      url => {
        expect(errorOf({ url })).toMatch(/^Input 'url' .*http\(s\):\/\/host/)
      }
    )

    test('a password in the URL is never echoed, even percent-encoded or holding @ and /', () => {
      for (const url of [
        'https://alice:p%40ss@127.0.0.1/jenkins',
        'https://alice:p@ss@127.0.0.1/jenkins',
        'https://alice:p/ss@127.0.0.1/jenkins',
        'alice:pss@127.0.0.1/jenkins'
      ]) {
        const message = errorOf({ url })
        expect(message).toMatch(/^Input 'url'/)
        expect(message).not.toMatch(/p%40ss|p@ss|p\/ss|pss/)
      }
    })

    test('a query is refused even when empty', () => {
      expect(errorOf({ url: 'http://127.0.0.1:1/jenkins?' })).toMatch(/query or fragment/)
    })
  })

  describe('user and token', () => {
    test('both set, or both empty (anonymous)', () => {
      expect(settings({ user: ' alice ', token: ' tok ' })).toMatchObject({
        user: 'alice',
        token: 'tok'
      })
      expect(settings({ user: '', token: '' })).toMatchObject({ user: '', token: '' })
    })

    test('a token holding a control character is refused without echoing it', () => {
      const message = errorOf({ user: 'alice', token: 'abc\ndef-secret' })
      expect(message).toMatch(/^Input 'token' must not contain control characters/)
      expect(message).not.toContain('def-secret')
    })

    test('token without user and user without token never echo the token', () => {
      expect(errorOf({ token: 'only-token-xyz' })).not.toContain('only-token-xyz')
      expect(errorOf({ user: 'bob' })).toMatch(
        /^Input 'user' \('bob'\) is set but 'token' is empty/
      )
    })
  })

  describe('job', () => {
    test.each([
      ['team/service/deploy', ['team', 'service', 'deploy']],
      ['job/team/job/service/job/deploy/', ['team', 'service', 'deploy']],
      ['http://127.0.0.1:1/jenkins/job/team/job/my%20job/', ['team', 'my job']],
      ['mb/feature%2Fx', ['mb', 'feature%2Fx']]
    ])('%s', (job, expected) => {
      const s = settings({ job })
      expect(s.job).toEqual(expected)
      expect(s.jobName).toBe(expected.join('/'))
      expect(s.statusContext).toBe(`jenkins/${expected.join('/')}`)
    })

    test('list-jobs without job lists the root', () => {
      const s = settings({ job: '', 'list-jobs': 'true' })
      expect(s).toMatchObject({ job: [], jobName: '', listJobs: true, statusContext: 'jenkins' })
    })

    test('list-jobs with job names the folder', () => {
      expect(settings({ job: 'team', 'list-jobs': 'true' }).job).toEqual(['team'])
    })

    test('a bad job value becomes an InputError', () => {
      expect(errorOf({ job: 'a/./b' })).toMatch(/^Input 'job' .*'\.' segment/)
    })
  })

  describe('parameters', () => {
    test('lines and JSON; hasParameters is true for any non-empty input', () => {
      expect(settings({ parameters: 'A=1\nA=2\nB=x=y' })).toMatchObject({
        parameters: { A: ['1', '2'], B: 'x=y' },
        hasParameters: true
      })
      expect(settings({ parameters: '{"N": 5}' })).toMatchObject({
        parameters: { N: '5' },
        hasParameters: true
      })
      expect(settings({ parameters: '{}' })).toMatchObject({ parameters: {}, hasParameters: true })
      expect(settings({ parameters: ' \n ' })).toMatchObject({
        parameters: {},
        hasParameters: false
      })
    })

    test('line numbers count the leading blank lines as given', () => {
      expect(errorOf({ parameters: '\n\nA=1\nB' })).toMatch(/line 4 has no '='/)
    })

    test('values keep their whitespace', () => {
      expect(settings({ parameters: 'MSG= hi ' }).parameters).toEqual({ MSG: ' hi ' })
    })
  })

  test.each([
    ['true', 'finish'],
    ['TRUE', 'finish'],
    ['started', 'started'],
    ['Started', 'started'],
    ['false', 'queued'],
    ['False', 'queued']
  ])('wait: %s → %s', (wait, mode) => {
    expect(settings({ wait }).wait).toBe(mode)
  })

  test.each(['maybe', 'yes', 'finish', 'queued', 'constructor'])('wait: %s is refused', wait => {
    expect(errorOf({ wait })).toMatch(/^Input 'wait' .*must be one of true, started, false/)
  })

  describe('commit and pull-request', () => {
    test('a full SHA-1 or SHA-256 commit, lower-cased', () => {
      expect(settings({ commit: 'A'.repeat(40) }).commit).toBe('a'.repeat(40))
      expect(settings({ commit: ` ${'0f'.repeat(32)} ` }).commit).toBe('0f'.repeat(32))
      expect(settings().commit).toBeUndefined()
    })

    test('a pull request number, with or without #', () => {
      expect(settings({ 'pull-request': '42' }).pullRequest).toBe(42)
      expect(settings({ 'pull-request': '#7' }).pullRequest).toBe(7)
      expect(settings().pullRequest).toBeUndefined()
    })
  })

  describe('comment-permission and commit-parameter', () => {
    test.each(['triage', 'write', 'maintain', 'admin', 'none', 'Admin'])(
      'comment-permission: %s',
      value => {
        expect(settings({ 'comment-permission': value }).commentPermission).toBe(
          value.toLowerCase()
        )
      }
    )

    test('commit-parameter: the name as given; none by default', () => {
      expect(settings({ 'commit-parameter': 'GIT_COMMIT' }).commitParameter).toBe('GIT_COMMIT')
      expect(settings().commitParameter).toBeUndefined()
    })
  })

  describe('booleans', () => {
    const booleans = [
      [Input.Disable, 'disable'],
      [Input.ListJobs, 'listJobs'],
      [Input.Log, 'log'],
      [Input.AbortOnCancel, 'abortOnCancel'],
      [Input.CommitStatus, 'commitStatus'],
      [Input.PrComment, 'prComment']
    ] as const
    // Inputs that a `true` would put in conflict with the base inputs.
    const extra: Record<string, Record<string, string>> = {
      [Input.CommitStatus]: { 'github-token': 'gh' },
      [Input.PrComment]: { 'github-token': 'gh' }
    }

    test.each(booleans)('%s accepts the YAML 1.2 core spellings', (input, field) => {
      for (const [value, expected] of [
        ['true', true],
        ['True', true],
        ['TRUE', true],
        ['false', false],
        ['False', false],
        ['FALSE', false]
      ] as const) {
        expect(settings({ ...extra[input], [input]: value })[field], `${input}: ${value}`).toBe(
          expected
        )
      }
    })

    test.each(booleans)('%s refuses yes, 1, on, tRue', input => {
      for (const value of ['yes', '1', 'on', 'tRue']) {
        expect(errorOf({ [input]: value })).toMatch(
          new RegExp(`^Input '${input}' \\('${value}'\\) is not a boolean: expected true or false`)
        )
      }
    })
  })

  test.each([
    ['new', 'new'],
    ['last', 'last'],
    ['Last-Successful', 'last-successful']
  ])('build: %s', (build, mode) => {
    expect(settings({ build }).build).toBe(mode)
  })

  test("build: the job's lastBuild or lastSuccessfulBuild URL, as copied from the browser, is that mode", () => {
    const job = 'http://127.0.0.1:1/jenkins/job/folder/job/job'
    expect(settings({ build: `${job}/lastBuild/` })).toMatchObject({ build: 'last' })
    expect(settings({ build: `${job}/lastSuccessfulBuild/console` }).given).toBeUndefined()
    expect(settings({ build: `${job}/lastSuccessfulBuild/console` }).build).toBe('last-successful')
    expect(settings({ build: `${job}/42/console` })).toMatchObject({
      build: 'given',
      given: { kind: 'build', number: 42 }
    })
  })

  test('timeout in milliseconds', () => {
    expect(settings({ timeout: '90' }).timeoutMs).toBe(90_000)
    expect(settings({ timeout: '1h30m' }).timeoutMs).toBe(5_400_000)
  })

  test('accept: case-insensitive, spaces tolerated, duplicates dropped', () => {
    expect(settings({ accept: ' success ,Unstable,,SUCCESS ' }).accept).toEqual([
      'SUCCESS',
      'UNSTABLE'
    ])
    expect(settings({ accept: 'SUCCESS,UNSTABLE,FAILURE,NOT_BUILT,ABORTED' }).accept).toHaveLength(
      5
    )
  })

  describe('settle', () => {
    test('needs no job; filters by job and status-context when given; status-creator with it', () => {
      expect(settings({ settle: 'true', job: '', 'github-token': 'gh' })).toMatchObject({
        settle: {},
        job: []
      })
      expect(
        settings({
          settle: 'true',
          job: 'team/app',
          'status-context': 'ci/app',
          'status-creator': 'my-app[bot]',
          'github-token': 'gh'
        })
      ).toMatchObject({
        settle: { context: 'ci/app', creator: 'my-app[bot]' },
        job: ['team', 'app']
      })
      expect(settings({}).settle).toBeUndefined()
    })

    test.each([
      [{ jobs: 'a\nb', job: '' }, "Inputs 'settle' and 'jobs' cannot be used together"],
      [{ 'list-jobs': 'true' }, "Inputs 'settle' and 'list-jobs' cannot be used together"],
      [{ disable: 'true' }, "Inputs 'settle' and 'disable' cannot be used together"],
      [{ parameters: 'A=1' }, "Inputs 'settle' and 'parameters' cannot be used together"],
      [{ build: 'last' }, "Inputs 'settle' and 'build' cannot be used together"],
      [{ 'github-token': '' }, "Input 'settle' is true but 'github-token' is empty"],
      [{ 'status-creator': 'a b' }, "Input 'status-creator' ('a b') is not a GitHub login"]
    ])('refuses %o', (extra, message) => {
      expect(errorOf({ settle: 'true', job: '', 'github-token': 'gh', ...extra })).toContain(
        message
      )
    })

    test('refuses status-creator without settle', () => {
      expect(errorOf({ 'status-creator': 'my-app[bot]' })).toBe(
        "Input 'status-creator' only applies with 'settle: true': it names who wrote the hand-offs a settle run takes."
      )
    })
  })

  describe('combinations', () => {
    test('allowed: disable alone, build last with wait false, commit-status with wait started or false', () => {
      expect(settings({ disable: 'true' }).disable).toBe(true)
      expect(settings({ build: 'last', wait: 'false' })).toMatchObject({
        build: 'last',
        wait: 'queued'
      })
      expect(
        settings({ 'commit-status': 'true', wait: 'started', 'github-token': 'gh' })
      ).toMatchObject({ commitStatus: true, wait: 'started', githubToken: 'gh' })
      // The hand-off: a pending status that a settle run completes (docs/hand-off.md).
      expect(
        settings({ 'commit-status': 'true', wait: 'false', 'github-token': 'gh' })
      ).toMatchObject({ commitStatus: true, wait: 'queued' })
    })

    test('each conflict names both inputs', () => {
      expect(errorOf({ disable: 'true', parameters: '{}' })).toMatch(/'disable' and 'parameters'/)
      expect(errorOf({ 'list-jobs': 'true', job: '', build: 'last' })).toMatch(
        /'list-jobs' and 'build'/
      )
    })
  })

  describe('artifacts', () => {
    test('patterns: one per line, comments and blank lines skipped, ! excludes, ./ dropped', () => {
      const s = settings({
        artifacts: '\n  dist/**/*.jar\n# a comment\n!dist/**/*-sources.jar\n./logs/\n'
      })
      expect(s.artifacts).toEqual([
        { glob: 'dist/**/*.jar', negate: false, text: 'dist/**/*.jar' },
        { glob: 'dist/**/*-sources.jar', negate: true, text: '!dist/**/*-sources.jar' },
        { glob: 'logs/', negate: false, text: './logs/' }
      ])
    })

    test.each(['/etc/passwd', '../outside/*', 'a/../../b', 'C:/x', '~/x', '.', '!'])(
      'pattern %s can never match a relativePath: an input error naming it',
      pattern => {
        expect(errorOf({ artifacts: pattern })).toMatch(/^Input 'artifacts' .*can never match/)
        expect(errorOf({ artifacts: pattern })).toContain(`'${pattern}'`)
      }
    )

    test.each([
      ['jenkins-artifacts', `${WORKSPACE}/jenkins-artifacts`],
      ['out/jenkins', `${WORKSPACE}/out/jenkins`],
      ['./a/../b', `${WORKSPACE}/b`],
      ['.', WORKSPACE],
      [`${WORKSPACE}/abs`, `${WORKSPACE}/abs`]
    ])('artifacts-path %s resolves to %s, inside the workspace', (value, expected) => {
      expect(settings({ 'artifacts-path': value }).artifactsPath).toBe(expected)
    })

    test.each(['..', '../sibling', 'a/../../..', '/tmp/x', `${WORKSPACE}-evil/x`, 'a\0b'])(
      'artifacts-path %s outside the workspace is an input error',
      value => {
        const message = errorOf({ 'artifacts-path': value })
        expect(message).toMatch(/^Input 'artifacts-path' /)
        expect(message).toContain(WORKSPACE)
      }
    )

    test('artifacts need a build that is waited for', () => {
      expect(errorOf({ artifacts: '**', wait: 'started' })).toMatch(/'artifacts' and 'wait'/)
      expect(errorOf({ artifacts: '**', wait: 'false' })).toMatch(/'artifacts' and 'wait'/)
      expect(errorOf({ artifacts: '**', disable: 'true' })).toMatch(/'artifacts' and 'disable'/)
      expect(errorOf({ artifacts: '**', 'list-jobs': 'true' })).toMatch(
        /'artifacts' and 'list-jobs'/
      )
      expect(settings({ artifacts: '**', build: 'last' }).artifacts).toHaveLength(1)
    })
  })

  test('status-context: given, or jenkins/<job>', () => {
    expect(settings({ 'status-context': ' ci/deploy ' }).statusContext).toBe('ci/deploy')
    expect(settings({ job: 'job/a/job/b' }).statusContext).toBe('jenkins/a/b')
  })

  describe('branch and scan', () => {
    test.each([
      ['feature/x', 'feature%2Fx'],
      ['PR-42', 'PR-42'],
      ['release/1.x#2', 'release%2F1.x%232'],
      ['a b?c', 'a b%3Fc'],
      ['.', '%2E'],
      ['100%', '100%25']
    ])('branch %s is the item %s of the project in job', (branch, item) => {
      const s = settings({ job: 'org/repo', branch })
      expect(s.job).toEqual(['org', 'repo', item])
      expect(s.jobName).toBe(`org/repo/${item}`)
      expect(s.branch).toEqual({ name: branch, project: ['org', 'repo'] })
    })

    test('the default status context is the project, the same for every pull request', () => {
      expect(settings({ job: 'repo', branch: 'PR-1' }).statusContext).toBe('jenkins/repo')
      expect(settings({ job: 'repo', branch: 'PR-1', 'status-context': 'ci' }).statusContext).toBe(
        'ci'
      )
    })

    test('scan: if-missing (default) or never, case-insensitive; never needs branch', () => {
      expect(settings({ branch: 'x', scan: 'NEVER' }).scan).toBe('never')
      expect(settings({ branch: 'x' }).scan).toBe('if-missing')
      expect(errorOf({ scan: 'never' })).toMatch(
        /^Input 'scan' \('never'\) only applies with 'branch'/
      )
      expect(errorOf({ branch: 'x', scan: 'always' })).toMatch(
        /^Input 'scan' \('always'\) must be one of if-missing, never/
      )
    })

    test('branch refuses control characters and list-jobs', () => {
      expect(errorOf({ branch: 'ab' })).toMatch(/^Input 'branch' contains a control character/)
      expect(errorOf({ branch: 'x', 'list-jobs': 'true' })).toMatch(/'branch' and 'list-jobs'/)
    })
  })

  describe('job-token', () => {
    test('kept as given; anonymous use is allowed', () => {
      expect(settings({ 'job-token': ' jt-123 ' }).jobToken).toBe('jt-123')
      expect(settings({ 'job-token': 'jt', user: 'a', token: 't' }).jobToken).toBe('jt')
    })

    test('refused with control characters, list-jobs, disable and build other than new, never echoed', () => {
      for (const [inputs, pattern] of [
        [{ 'job-token': 'jt	secret-xyz' }, /^Input 'job-token' must not contain control characters/],
        [{ 'job-token': 'jt-secret-xyz', 'list-jobs': 'true' }, /'job-token' and 'list-jobs'/],
        [{ 'job-token': 'jt-secret-xyz', disable: 'true' }, /'job-token' and 'disable'/],
        [{ 'job-token': 'jt-secret-xyz', build: 'last' }, /'job-token' and 'build'/]
      ] as const) {
        const message = errorOf(inputs)
        expect(message).toMatch(pattern)
        expect(message).not.toContain('secret-xyz')
      }
    })
  })

  describe('headers', () => {
    test('Name: value lines, trimmed, blank lines skipped, values may hold colons', () => {
      expect(
        settings({
          headers: '\nCF-Access-Client-Id:  id.access \r\nX-Other: a:b:c\n\n'
        }).headers
      ).toEqual([
        ['CF-Access-Client-Id', 'id.access'],
        ['X-Other', 'a:b:c']
      ])
    })

    test('Authorization is allowed without user and token (a bearer token for an IAP)', () => {
      expect(settings({ headers: 'Authorization: Bearer abc.def' }).headers).toEqual([
        ['Authorization', 'Bearer abc.def']
      ])
    })

    test.each([
      ['X-A', /line 1 has no ':'/],
      ['Bad Name: v', /line 1 has an invalid header name/],
      [': v', /line 1 has an invalid header name/],
      ['X-A:', /line 1 \(X-A\) has an empty value/],
      ['X-A: a\rX-Injected: 1', /line 1 \(X-A\) has a value with a line break/],
      ['X-A: caf\u00e9', /non-ASCII/],
      ['Host: evil.example', /sets Host, which is refused/],
      ['cookie: JSESSIONID=1', /sets cookie, which is refused/],
      ['Content-Length: 5', /sets Content-Length, which is refused/],
      ['Transfer-Encoding: chunked', /which is refused/],
      ['Proxy-Authorization: Basic x', /HTTPS_PROXY/],
      ['X-A: 1\nx-a: 2', /sets x-a twice \(lines 1 and 2\)/]
    ])('%j is refused', (headers, pattern) => {
      expect(errorOf({ headers })).toMatch(
        new RegExp(`^Input 'headers' [\\s\\S]*${pattern.source}`)
      )
    })

    test('Authorization while user and token are set is refused; no message shows a value', () => {
      const message = errorOf({
        user: 'alice',
        token: 'tok',
        headers: 'X-Ok: fine-value-1\nAuthorization: Bearer secret-bearer-9'
      })
      expect(message).toMatch(/line 2 sets Authorization, but 'user' and 'token' already send one/)
      expect(message).not.toMatch(/secret-bearer-9|fine-value-1/)
    })
  })

  describe('ca-cert', () => {
    test('one or more PEM certificates, text around them ignored', () => {
      const pem = selfSignedPem()
      const s = settings({ 'ca-cert': `# Private CA\n${pem}\n# second\n${pem}` })
      expect(s.caCerts).toHaveLength(2)
      expect(s.caCerts[0]).toMatch(
        /^-----BEGIN CERTIFICATE-----\n[\s\S]*-----END CERTIFICATE-----\n$/
      )
    })

    test.each([
      ['not a certificate', /holds no PEM certificate/],
      ['/etc/ssl/ca.pem', /looks like a file path/],
      [
        '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
        /certificate 1 is not a valid certificate/
      ],
      ['-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----', /holds a private key/],
      ['-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----', /block 1 is a X509 CRL block/]
    ])('%j is refused', (caCert, pattern) => {
      expect(errorOf({ 'ca-cert': caCert })).toMatch(
        new RegExp(`^Input 'ca-cert' [\\s\\S]*${pattern.source}`)
      )
    })

    test('a block cut short is refused even after a good one', () => {
      const pem = selfSignedPem()
      expect(errorOf({ 'ca-cert': `${pem}\n${pem.slice(0, 100)}` })).toMatch(
        /BEGIN line without its END line \(block 2/
      )
    })
  })

  test('commit-status needs github-token', () => {
    expect(errorOf({ 'commit-status': 'true' })).toMatch(
      /^Input 'commit-status' is true but 'github-token' is empty/
    )
  })
})

describe('getSettings', () => {
  let saved: NodeJS.ProcessEnv
  let written: string[]

  beforeEach(() => {
    saved = { ...process.env }
    for (const key of Object.keys(process.env))
      if (key.startsWith('INPUT_')) delete process.env[key]
    written = []
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk))
      return true
    })
  })

  afterEach(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
    Object.assign(process.env, saved)
  })

  /** What was written, unescaped as the runner reads workflow commands. */
  function masks(): string[] {
    return written.map(line =>
      line.trim().replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%')
    )
  }

  function setInputs(inputs: Record<string, string>): void {
    for (const [name, value] of Object.entries(inputs)) {
      process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value
    }
  }

  test('reads INPUT_* as the runner sets them, hyphens kept', () => {
    setInputs({
      url: 'http://127.0.0.1:1/jenkins/',
      user: 'alice',
      token: 'tok-123',
      job: '',
      'list-jobs': 'true',
      'abort-on-cancel': 'false',
      'commit-status': 'false',
      timeout: '15m'
    })
    expect(process.env['INPUT_LIST-JOBS']).toBe('true')
    expect(getSettings({ mask: maskSecret })).toMatchObject({
      url: 'http://127.0.0.1:1/jenkins',
      user: 'alice',
      token: 'tok-123',
      job: [],
      listJobs: true,
      abortOnCancel: false,
      timeoutMs: 900_000
    })
    expect(masks()).toEqual(['::add-mask::tok-123'])
  })

  test('parameters keep their leading blank lines, so line numbers match', () => {
    setInputs({ url: 'http://127.0.0.1:1', job: 'x', parameters: '\nA=1\nB\n' })
    expect(() => getSettings({ mask: maskSecret })).toThrow(/line 3 has no '='/)
  })

  test('the secrets are masked before anything else is written, even when an input is bad', () => {
    setInputs({
      url: 'http://bob:url-pass%21@127.0.0.1:1/jenkins',
      user: 'alice',
      token: ' tok-secret-1 ',
      'github-token': 'ghs_secret2',
      job: 'x',
      wait: 'maybe'
    })
    let thrown: unknown
    try {
      getSettings({ mask: maskSecret })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(InputError)
    expect(masks()).toEqual([
      '::add-mask::tok-secret-1',
      '::add-mask::ghs_secret2',
      '::add-mask::url-pass%21',
      '::add-mask::url-pass!'
    ])
    const message = (thrown as Error).message
    for (const secret of ['tok-secret-1', 'ghs_secret2', 'url-pass']) {
      expect(message).not.toContain(secret)
    }
  })

  test('job-token and header values (and a bearer credential alone) are masked first; short values are not', () => {
    setInputs({
      url: 'http://127.0.0.1:1',
      job: 'x',
      'job-token': 'jt-secret-1',
      headers: 'X-Id: id-value-2\nAuthorization: Bearer bearer-3\nX-Flag: on\nbroken line',
      wait: 'maybe'
    })
    expect(() => getSettings({ mask: maskSecret })).toThrow(InputError)
    expect(masks()).toEqual([
      '::add-mask::jt-secret-1',
      '::add-mask::id-value-2',
      '::add-mask::Bearer bearer-3',
      '::add-mask::bearer-3'
    ])
  })

  test('a password in a job URL is masked too; empty secrets are not', () => {
    setInputs({ url: 'http://127.0.0.1:1', job: 'http://a:job-pass@127.0.0.1:1/job/x/' })
    expect(() => getSettings({ mask: maskSecret })).toThrow(
      /^Input 'job' URL must not contain credentials/
    )
    expect(masks()).toEqual(['::add-mask::job-pass'])
  })
})
