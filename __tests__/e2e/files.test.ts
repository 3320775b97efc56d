/**
 * End to end: `files`, workspace files uploaded to the job's file
 * parameters in one multipart trigger (core's File Parameter on a freestyle
 * job, base64File and stashedFile on a Pipeline), refusals before anything
 * is sent, an upload reset mid-way, and `jobs` with per-job files.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { testCertificates } from '../../test-server/http/tls.js'
import { ROOT } from '../../scripts/action-runner.js'
import { ADMIN_TOKEN, auth, describeRun, run, RUNTIMES } from './helpers.js'

const NODE24 = RUNTIMES[1]?.path ?? process.execPath

const jobs = () => ({
  deploy: {
    parameters: [
      { name: 'PACKAGE', type: 'file' as const },
      { name: 'TARGET', default: 'staging' },
      { name: 'NOTE' }
    ],
    concurrent: true,
    script: { durationMs: 100, echoParameters: true }
  },
  pipe: {
    type: 'pipeline' as const,
    parameters: [
      { name: 'B64', type: 'base64File' as const },
      { name: 'STASHED', type: 'stashedFile' as const },
      { name: 'ENV', default: 'dev' }
    ],
    script: { durationMs: 100 }
  },
  'deploy-reset': {
    parameters: [
      { name: 'TARGET', default: 'staging' },
      { name: 'PACKAGE', type: 'file' as const }
    ],
    script: { durationMs: 60_000 }
  },
  refused: {
    parameters: [
      { name: 'PACKAGE', type: 'file' as const },
      { name: 'TARGET', default: 'staging' }
    ],
    script: { durationMs: 100 }
  },
  plain: { script: { durationMs: 100 } }
})

describe('files', () => {
  let jenkins: TestJenkins
  /** For refusals only: no request may reach it. */
  let quiet: TestJenkins
  let workspace: string
  beforeAll(async () => {
    jenkins = await startJenkins({ quietPeriodSec: 0, executors: 6, jobs: jobs() })
    quiet = await startJenkins({ quietPeriodSec: 0, jobs: jobs() })
    workspace = mkdtempSync(join(tmpdir(), 'files-e2e-'))
    mkdirSync(join(workspace, 'dist'))
    writeFileSync(join(workspace, 'dist', 'app.zip'), Buffer.alloc(300_000, 7))
    writeFileSync(join(workspace, 'dist', 'notes.txt'), 'café notes\n')
    writeFileSync(join(workspace, 'dist', 'big.bin'), Buffer.alloc(2 * 1024 * 1024, 1))
    mkdirSync(join(workspace, 'folder'))
    symlinkSync('/etc/hostname', join(workspace, 'escape'))
  })
  afterAll(async () => {
    await Promise.all([jenkins.close(), quiet.close()])
    rmSync(workspace, { recursive: true, force: true })
  })

  const inputs = (job: string, extra: Record<string, string>) => ({
    ...auth(jenkins),
    job,
    ...extra
  })
  const env = () => ({ GITHUB_WORKSPACE: workspace })
  const triggers = (job: string) =>
    jenkins.requests.filter(q => q.kind === 'trigger' && q.job === job)

  describe.concurrent('', () => {
    it('a freestyle job with a core file parameter gets the file and the other parameters, in UTF-8', async () => {
      const r = await run(
        NODE24,
        inputs('deploy', { files: 'PACKAGE=dist/app.zip', parameters: 'TARGET=prod\nNOTE=café' }),
        { env: env() }
      )
      expect(r.code, describeRun(r)).toBe(0)
      const build = jenkins
        .builds('deploy')
        .find(b => b.parameterValues.some(p => p.value === 'prod'))
      expect(build?.parameterValues.map(p => [p.name, p.value, p.file?.size])).toEqual([
        ['PACKAGE', 'app.zip', 300_000],
        ['TARGET', 'prod', undefined],
        ['NOTE', 'café', undefined]
      ])
      expect(r.stdout).toContain("Uploading PACKAGE (app.zip, 293 KiB) to 'deploy'")
      // Jenkins exports a file parameter's name only: the summary names the file uploaded.
      expect(r.summary).toContain(
        '<tr><td><code>PACKAGE</code></td><td>app.zip (293 KiB)</td></tr><tr><td><code>TARGET</code></td><td>prod</td></tr>'
      )
      expect(r.stdout).toMatch(
        /Uploaded 293 KiB of files in (\d+ ms\.|[\d.]+ s \([\d.]+ [KM]iB\/s\)\.)/
      )
      const file = await fetch(
        `${jenkins.url}/job/deploy/${build?.number}/parameters/parameter/PACKAGE/PACKAGE`,
        {
          headers: {
            authorization: `Basic ${Buffer.from(`admin:${auth(jenkins).token}`).toString('base64')}`
          }
        }
      )
      expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.alloc(300_000, 7))).toBe(true)
    })

    it('jenkins-build --file NAME=path uploads from the current directory', async () => {
      const child = spawn(
        process.execPath,
        [
          join(ROOT, 'dist/cli/index.js'),
          '--job',
          'deploy',
          '--file',
          'PACKAGE=dist/notes.txt',
          '-p',
          'TARGET=cli',
          '--json'
        ],
        {
          cwd: workspace,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            JENKINS_URL: jenkins.url,
            JENKINS_USER: 'admin',
            JENKINS_TOKEN: ADMIN_TOKEN
          },
          stdio: ['ignore', 'pipe', 'pipe']
        }
      )
      let stdout = ''
      let stderr = ''
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
      const code = await new Promise<number | null>(resolve => child.on('close', resolve))
      expect(code, `${stdout}\n${stderr}`).toBe(0)
      const outputs = JSON.parse(stdout) as { 'build-number': string; result: string }
      expect(outputs.result).toBe('SUCCESS')
      const build = jenkins.builds('deploy').find(b => b.number === Number(outputs['build-number']))
      expect(build?.parameterValues.map(p => [p.name, p.value, p.file?.size])).toEqual([
        ['PACKAGE', 'notes.txt', 12],
        ['TARGET', 'cli', undefined],
        ['NOTE', '', undefined]
      ])
      expect(stderr).toContain("Uploading PACKAGE (notes.txt, 12 B) to 'deploy'")
    })

    it('a Pipeline with base64File and stashedFile, and an ordinary parameter', async () => {
      const r = await run(
        NODE24,
        inputs('pipe', {
          files: 'B64=dist/notes.txt\nSTASHED = dist/app.zip',
          parameters: 'ENV=prod'
        }),
        { env: env() }
      )
      expect(r.code, describeRun(r)).toBe(0)
      const build = jenkins.builds('pipe')[0]
      expect(build?.parameterValues.map(p => [p.name, p.value, p.file?.size])).toEqual([
        ['B64', 'notes.txt', 12],
        ['STASHED', 'app.zip', 300_000],
        ['ENV', 'prod', undefined]
      ])
      const posts = triggers('pipe')
      expect(posts.map(t => [t.method, t.path, t.status])).toEqual([
        ['POST', '/job/pipe/buildWithParameters', 201]
      ])
    })

    it.each([
      [
        'a missing file',
        'PACKAGE=dist/missing.zip',
        /PACKAGE=dist\/missing\.zip does not exist \('dist\/missing\.zip' is missing\)/
      ],
      ['a folder', 'PACKAGE=folder', /PACKAGE=folder is a folder, not a file/],
      [
        'a symbolic link out of the workspace',
        'PACKAGE=escape',
        /PACKAGE=escape leads out of .+ through a symbolic link: 'escape' leads to /
      ],
      [
        'a .. path',
        'PACKAGE=../etc/passwd',
        /the path for PACKAGE \('\.\.\/etc\/passwd'\) has a '\.\.' segment/
      ],
      [
        'an absolute path',
        'PACKAGE=/etc/passwd',
        /the path for PACKAGE \('\/etc\/passwd'\) is absolute/
      ]
    ])('refuses %s before any request', async (_what, files, message) => {
      const r = await run(NODE24, { ...auth(quiet), job: 'refused', files }, { env: env() })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errorAnnotation(r)).toMatch(message)
      // This server serves only these runs, none of which may send anything.
      expect(quiet.requests).toEqual([])
    })

    it('refuses a NAME that is not a file parameter, listing those of the job, with no trigger sent', async () => {
      const r = await run(
        NODE24,
        inputs('refused', { files: 'TARGET=dist/app.zip\nPKG=dist/app.zip' }),
        {
          env: env()
        }
      )
      expect(r.code, describeRun(r)).toBe(1)
      expect(errorAnnotation(r)).toBe(
        "Input 'files' gives job 'refused' files for parameters that take none: TARGET is a String parameter, not a file parameter; PKG is not a parameter of the job. Its file parameters are PACKAGE. Nothing was triggered."
      )
      expect(triggers('refused')).toEqual([])
      const plain = await run(NODE24, inputs('plain', { files: 'PACKAGE=dist/app.zip' }), {
        env: env()
      })
      expect(plain.code, describeRun(plain)).toBe(1)
      expect(errorAnnotation(plain)).toBe(
        "Input 'files' gives job 'plain' a file for a parameter that takes none: PACKAGE is not a parameter of the job. It has no file parameter (a File Parameter, or base64File/stashedFile from the File Parameters plugin). Nothing was triggered."
      )
      expect(triggers('plain')).toEqual([])
    })

    it('an upload reset mid-way: the build Jenkins queued without the file is found and stopped, nothing is sent again', async () => {
      jenkins.aim({
        kind: 'trigger',
        job: 'deploy-reset',
        method: 'POST',
        effect: { type: 'reset-upload', afterBytes: 64 * 1024 }
      })
      const r = await run(
        NODE24,
        inputs('deploy-reset', { files: 'PACKAGE=dist/big.bin', parameters: 'TARGET=prod' }),
        { env: env() }
      )
      expect(r.code, describeRun(r)).toBe(1)
      const builds = jenkins.builds('deploy-reset')
      expect(builds).toHaveLength(1)
      const broken = builds[0]
      expect(broken?.parameterValues).toEqual([
        { name: 'TARGET', type: 'string', value: 'staging' }
      ])
      expect(triggers('deploy-reset')).toHaveLength(1)
      const message = errorAnnotation(r)
      // How much was sent shows only when the reset came before the body was all
      // written: on a busy machine the socket may take it all first.
      expect(message).toMatch(
        /was reset while uploading to job 'deploy-reset'( \([\d.]+ (B|KiB|MiB) of 2 MiB sent\))?\. /
      )
      expect(message).toMatch(
        /Jenkins queued (queue item \d+|build #1) .* from the broken upload with every parameter at its default and no file: (cancelled it|stopped build #1)\. Nothing was sent again/
      )
      // The build did not run to its end (60 s): it was cancelled in the queue or stopped.
      expect(broken?.result === 'ABORTED' || broken === undefined).toBe(true)
    })
  })
})

describe('files with jobs, job-token, headers and ca-cert', () => {
  const JOB_TOKEN = 'jt-files-9Qw3-remote-secret'
  const PROXY = {
    'CF-Access-Client-Id': 'files-client-id-4411',
    'CF-Access-Client-Secret': 'files-proxy-secret-8822'
  }
  let jenkins: TestJenkins
  let workspace: string
  let ca: string
  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'files-e2e-jobs-'))
    const certs = testCertificates(join(workspace, '.certs'))
    ca = certs.ca
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 4,
      tls: { key: certs.key, cert: certs.cert },
      authProxy: { headers: PROXY },
      anonymousRead: true,
      jobs: {
        web: {
          parameters: [
            { name: 'SITE', type: 'file' },
            { name: 'ENV', default: 'dev' }
          ],
          script: { durationMs: 100 }
        },
        api: {
          type: 'pipeline',
          parameters: [
            { name: 'BUNDLE', type: 'stashedFile' },
            { name: 'ENV', default: 'dev' }
          ],
          script: { durationMs: 100 }
        },
        remote: {
          authToken: JOB_TOKEN,
          parameters: [{ name: 'PACKAGE', type: 'base64File' }],
          script: { durationMs: 100 }
        }
      }
    })
    writeFileSync(join(workspace, 'site.tgz'), 'site archive')
    writeFileSync(join(workspace, 'api.jar'), 'api archive')
    writeFileSync(join(workspace, 'remote.zip'), 'remote archive')
  })
  afterAll(async () => {
    await jenkins.close()
    rmSync(workspace, { recursive: true, force: true })
  })
  const headers = Object.entries(PROXY)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n')

  describe.concurrent('', () => {
    it('jobs: each item uploads its own files with the shared parameters, over TLS behind the proxy headers', async () => {
      const r = await run(
        NODE24,
        {
          ...auth(jenkins),
          'ca-cert': ca,
          headers,
          parameters: 'ENV=prod',
          jobs: JSON.stringify([
            { job: 'web', files: { SITE: 'site.tgz' } },
            { job: 'api', files: 'BUNDLE=api.jar' }
          ])
        },
        { env: { GITHUB_WORKSPACE: workspace } }
      )
      expect(r.code, describeRun(r)).toBe(0)
      const web = jenkins.builds('web')[0]
      const api = jenkins.builds('api')[0]
      expect(web?.parameterValues.map(p => [p.name, p.value, p.file?.size])).toEqual([
        ['SITE', 'site.tgz', 12],
        ['ENV', 'prod', undefined]
      ])
      expect(api?.parameterValues.map(p => [p.name, p.value, p.file?.size])).toEqual([
        ['BUNDLE', 'api.jar', 11],
        ['ENV', 'prod', undefined]
      ])
      const shown = r.stdout.split('\n').filter(line => !line.startsWith('::add-mask::'))
      expect(shown.join('\n') + r.stderr).not.toContain(PROXY['CF-Access-Client-Secret'])
    })

    it('job-token alone: the token travels in the multipart body, never in the URL', async () => {
      const r = await run(
        NODE24,
        {
          url: jenkins.url,
          job: 'remote',
          'job-token': JOB_TOKEN,
          'ca-cert': ca,
          headers,
          files: 'PACKAGE=remote.zip'
        },
        { env: { GITHUB_WORKSPACE: workspace } }
      )
      expect(r.code, describeRun(r)).toBe(0)
      const build = jenkins.builds('remote')[0]
      expect(build?.causes[0]?._class).toBe('hudson.model.Cause$RemoteCause')
      expect(build?.parameterValues.map(p => [p.name, p.value])).toEqual([
        ['PACKAGE', 'remote.zip']
      ])
      // Anonymous: the crumb was checked, and it travelled in its header (CrumbFilter never reads a multipart body).
      const posts = jenkins.requests.filter(q => q.kind === 'trigger' && q.job === 'remote')
      expect(posts.map(q => [q.method, q.path, q.query, q.user, q.crumbChecked, q.status])).toEqual(
        [['POST', '/job/remote/buildWithParameters', 'delay=0sec', 'anonymous', true, 201]]
      )
      for (const request of jenkins.requests) {
        expect(request.path + request.query).not.toContain(JOB_TOKEN)
      }
    })
  })
})
