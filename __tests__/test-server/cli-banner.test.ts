import { spawnSync } from 'node:child_process'
import { describe, expect, test } from 'vitest'
import { jobNames, requestLine, shellWord, startupLines } from '../../test-server/cli-banner.js'
import { parseCli } from '../../test-server/cli-options.js'
import { DEFAULT_USERS, type RequestLogEntry } from '../../test-server/index.js'

const TOKEN = DEFAULT_USERS[0]?.apiToken ?? ''

describe('test server start-up lines', () => {
  test('the default server: its login, its jobs, a with: block and the same run by hand', () => {
    const { options, job } = parseCli([])
    const lines = startupLines({ url: 'http://127.0.0.1:8080', options, job })
    expect(lines).toEqual([
      'Jenkins test server at http://127.0.0.1:8080/',
      '  CSRF protection on (crumb header Jenkins-Crumb); anonymous users cannot read.',
      'Users:',
      `  admin: password admin, API token ${TOKEN} (all permissions)`,
      'Jobs: hello, params, failing, pipeline-early, with-tests, upload, release, failing-tests, my job, café, team/service/deploy, team/build, repo (multibranch), remote (job token sample-job-token), disabled (disabled)',
      "Point the action at it with admin's API token (Jenkins checks no crumb for it; the password works too, with a crumb and a session):",
      '  with:',
      '    url: http://127.0.0.1:8080',
      '    user: admin',
      `    token: ${TOKEN}`,
      '    job: hello',
      'Or from a terminal, in the repository root (jenkins-build runs dist/index.js as the runner does):',
      `  export JENKINS_URL=http://127.0.0.1:8080 JENKINS_USER=admin JENKINS_TOKEN=${TOKEN}`,
      '  npx --no-install jenkins-build --job hello',
      '  npm run local-action    (its .env.example points here)',
      'Stop it with Ctrl+C.'
    ])
  })

  test('npm run local-action is offered only where .env.example points', () => {
    const { options, job } = parseCli(['--port', '0'])
    const lines = startupLines({ url: 'http://127.0.0.1:40123', options, job })
    expect(lines.join('\n')).not.toContain('local-action')
  })

  test('a password-only user, CSRF off, a job with a space: quoted for the shell', () => {
    const { options, job } = parseCli([
      '--user',
      "o'neil:pa ss",
      '--csrf',
      'off',
      '--no-samples',
      '--job',
      'my app:2s:UNSTABLE'
    ])
    const lines = startupLines({ url: 'http://127.0.0.1:9000/jenkins', options, job })
    expect(lines).toContain(
      "Point the action at it with o'neil's password (CSRF protection is off: no crumb):"
    )
    expect(lines).toContain("  o'neil: password pa ss (permissions read, build, configure, cancel)")
    expect(lines).toContain('Jobs: my app')
    expect(lines).toContain('    job: my app')
    expect(lines).toContain(
      `  export JENKINS_URL=http://127.0.0.1:9000/jenkins JENKINS_USER='o'\\''neil' JENKINS_TOKEN='pa ss'`
    )
    expect(lines).toContain(`  npx --no-install jenkins-build --job 'my app'`)
  })

  test('TLS and an auth proxy: the ca-cert and headers inputs, runnable by hand', () => {
    const { options, job } = parseCli([
      '--auth-proxy',
      'X-Key: one',
      '--auth-proxy',
      "X-Other: it's",
      '--no-samples'
    ])
    const lines = startupLines({
      url: 'https://127.0.0.1:8443',
      options,
      job,
      caPath: '/tmp/ca dir/ca.pem'
    })
    expect(lines).toContain('  https with a test CA: /tmp/ca dir/ca.pem')
    expect(lines).toContain('  Behind an auth proxy requiring: X-Key, X-Other')
    expect(lines).toContain('Jobs: none (add one with --job NAME)')
    expect(lines.join('\n')).toContain(
      "    headers: |\n      X-Key: one\n      X-Other: it's\n    ca-cert: ${{ secrets.JENKINS_CA }} # a secret holding the text of /tmp/ca dir/ca.pem"
    )
    const command = lines.find(l => l.includes('npx --no-install jenkins-build')) ?? ''
    expect(command).toContain(
      `--headers $'X-Key: one\\nX-Other: it\\'s' --ca-cert "$(cat '/tmp/ca dir/ca.pem')"`
    )
    // The shell reads the headers word back as the two lines.
    const word = /--headers (\$'.*?[^\\]')/.exec(command)?.[1] ?? ''
    const echoed = spawnSync('bash', ['-c', `printf '%s' ${word}`], { encoding: 'utf8' }).stdout
    expect(echoed).toBe("X-Key: one\nX-Other: it's")
  })

  test('no users: where it listens, and nothing to point at', () => {
    const lines = startupLines({ url: 'http://127.0.0.1:1', options: { users: [] } })
    expect(lines.at(-1)).toBe('Stop it with Ctrl+C.')
    expect(lines.join('\n')).not.toContain('with:')
  })

  test('shellWord leaves safe words alone and single-quotes the rest', () => {
    expect(shellWord('job=team/app')).toBe('job=team/app')
    const words = ['a b', "it's", '$HOME', 'x;y', 'café', '']
    for (const word of words) {
      const quoted = shellWord(word)
      const back = spawnSync('bash', ['-c', `printf '%s' ${quoted}`], { encoding: 'utf8' }).stdout
      expect(back).toBe(word)
    }
  })

  test('jobNames lists buildable jobs by full name', () => {
    expect(
      jobNames({
        a: { type: 'folder', jobs: { b: {}, c: { type: 'pipeline' } } },
        d: { disabled: true }
      })
    ).toEqual(['a/b', 'a/c', 'd (disabled)'])
  })
})

describe('test server --log lines', () => {
  const entry: RequestLogEntry = {
    method: 'POST',
    path: '/job/app/buildWithParameters',
    query: 'token=job-secret&delay=0sec&TOKEN=x',
    status: 201,
    user: 'alice',
    auth: 'password',
    crumbChecked: true,
    time: 0,
    kind: 'trigger'
  }

  test('method, path, status, how the user signed in, the crumb check, kind; a token query hidden', () => {
    expect(requestLine(entry)).toBe(
      'POST /job/app/buildWithParameters?token=***&delay=0sec&TOKEN=*** 201 (alice by password, crumb checked, trigger)'
    )
    expect(requestLine({ ...entry, query: '', auth: 'token', crumbChecked: undefined })).toBe(
      'POST /job/app/buildWithParameters 201 (alice by API token, trigger)'
    )
  })

  test('rejected credentials, dropped connections and faults', () => {
    expect(requestLine({ ...entry, query: '', user: null, auth: undefined, status: 401 })).toBe(
      'POST /job/app/buildWithParameters 401 (credentials rejected, crumb checked, trigger)'
    )
    expect(
      requestLine({
        ...entry,
        query: '',
        user: 'anonymous',
        auth: 'anonymous',
        crumbChecked: undefined,
        status: 0,
        fault: 'drop'
      })
    ).toBe('POST /job/app/buildWithParameters no answer (anonymous, trigger, drop)')
  })
})
