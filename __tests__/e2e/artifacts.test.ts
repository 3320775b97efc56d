/**
 * End to end: artifact download (issue 11) — nested paths, patterns that
 * match and do not, hostile relativePaths from a broken Jenkins, an
 * artifacts-path outside the workspace, and bodies cut off on the way.
 * Every request checked is this run's own (job and build number).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation } from '../../scripts/action-runner.js'
import { generatedBytes, startJenkins, type TestJenkins } from '../../test-server/index.js'
import { auth, commands, describeRun, run, RUNTIMES } from './helpers.js'

const ABSOLUTE = `/tmp/jenkins-e2e-${randomBytes(6).toString('hex')}.txt`
const FILES = [
  { path: 'dist/app.jar', size: 200_000 },
  { path: 'dist/app-sources.jar', size: 1000 },
  { path: 'reports/html/index.html', content: '<html>report</html>' },
  { path: 'reports/html/css/site.css', content: 'body{}' },
  { path: 'logs/build.log', content: 'log line\n' },
  { path: 'README.md', content: '# readme' }
]

/** Every file below dir, relative, '/'-separated. */
function filesBelow(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry =>
    entry.isDirectory()
      ? filesBelow(join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`]
  )
}

/** The folders workspace() made, removed after the suite. */
const made: string[] = []

function workspace(): string {
  // A workspace inside a folder of its own, so that what lands next to it can be checked.
  const parent = mkdtempSync(join(tmpdir(), 'artifacts-e2e-'))
  made.push(parent)
  return join(parent, 'ws')
}

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

describe.each(RUNTIMES)('artifacts ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 4,
      jobs: {
        files: { script: { durationMs: 100, artifacts: FILES } },
        failing: {
          script: { durationMs: 100, result: 'FAILURE', artifacts: FILES.slice(4) }
        },
        linked: {
          script: {
            durationMs: 100,
            artifacts: [
              { path: 'lib/deep/er/x.jar', content: 'jar' },
              { path: 'ok/y.txt', content: 'y' }
            ]
          }
        },
        hostile: {
          script: {
            durationMs: 100,
            artifacts: [
              { path: 'ok/a.txt', content: 'fine' },
              { path: '../../escape.txt', content: 'escaped' },
              { path: ABSOLUTE, content: 'absolute' },
              { path: 'C:/Windows/evil.dll', content: 'drive' },
              { path: 'ok\\..\\..\\back.txt', content: 'backslash' },
              { path: 'ok/nul\u0000.txt', content: 'nul' },
              { path: 'ok//double.txt', content: 'double' }
            ]
          }
        }
      }
    })
  })
  afterAll(() => jenkins.close())

  /** This run's artifact downloads, by relativePath. */
  function downloads(job: string, n: string | undefined): string[] {
    const prefix = `/job/${job}/${n}/artifact/`
    return jenkins.requests
      .filter(q => q.path.startsWith(prefix))
      .map(q => decodeURIComponent(q.path.slice(prefix.length)))
  }

  describe.concurrent('download', () => {
    it('nested paths kept, patterns applied in order, a pattern matching nothing warned about', async () => {
      const ws = workspace()
      const r = await run(
        node,
        {
          ...auth(jenkins),
          job: 'files',
          artifacts: 'dist/*.jar\n!dist/*-sources.jar\nreports/\n**/*.war',
          'artifacts-path': 'out/jenkins'
        },
        { env: { GITHUB_WORKSPACE: ws } }
      )
      expect(r.code, describeRun(r)).toBe(0)
      const n = r.outputs['build-number']
      expect(JSON.parse(r.outputs.artifacts ?? '')).toEqual([
        'out/jenkins/dist/app.jar',
        'out/jenkins/reports/html/css/site.css',
        'out/jenkins/reports/html/index.html'
      ])
      expect(filesBelow(ws).sort()).toEqual([
        'out/jenkins/dist/app.jar',
        'out/jenkins/reports/html/css/site.css',
        'out/jenkins/reports/html/index.html'
      ])
      expect(
        readFileSync(join(ws, 'out/jenkins/dist/app.jar')).equals(
          generatedBytes(0, 200_000, 200_000)
        )
      ).toBe(true)
      expect(readFileSync(join(ws, 'out/jenkins/reports/html/index.html'), 'utf8')).toBe(
        '<html>report</html>'
      )
      expect(commands(r.stdout, 'warning').map(c => c?.value)).toEqual([
        expect.stringContaining(
          `Artifact pattern '**/*.war' matched none of the artifacts of Jenkins build #${n}. It has: README.md, dist/app-sources.jar, dist/app.jar, logs/build.log, reports/html/css/site.css, … (6 in all).`
        )
      ])
      expect(downloads('files', n).sort()).toEqual([
        'dist/app.jar',
        'reports/html/css/site.css',
        'reports/html/index.html'
      ])
      expect(r.summary).toContain('<h3>Artifacts</h3>')
      expect(r.summary).toContain('<li><code>out/jenkins/dist/app.jar</code></li>')
    })

    it('downloaded whatever the result: a failed build still delivers its artifacts', async () => {
      const ws = workspace()
      const r = await run(
        node,
        { ...auth(jenkins), job: 'failing', artifacts: '**' },
        { env: { GITHUB_WORKSPACE: ws } }
      )
      expect(r.code, describeRun(r)).toBe(1)
      expect(JSON.parse(r.outputs.artifacts ?? '')).toEqual([
        'jenkins-artifacts/README.md',
        'jenkins-artifacts/logs/build.log'
      ])
      expect(filesBelow(join(ws, 'jenkins-artifacts')).sort()).toEqual([
        'README.md',
        'logs/build.log'
      ])
    })

    it('hostile relativePaths are refused and named, never requested nor written', async () => {
      const ws = workspace()
      const r = await run(
        node,
        { ...auth(jenkins), job: 'hostile', artifacts: 'ok/a.txt' },
        { env: { GITHUB_WORKSPACE: ws } }
      )
      expect(r.code, describeRun(r)).toBe(0)
      const n = r.outputs['build-number']
      expect(JSON.parse(r.outputs.artifacts ?? '')).toEqual(['jenkins-artifacts/ok/a.txt'])
      const warnings = commands(r.stdout, 'warning').map(c => c?.value ?? '')
      for (const [path, reason] of [
        ['"../../escape.txt"', "has a '..' segment"],
        [JSON.stringify(ABSOLUTE), 'is absolute'],
        ['"C:/Windows/evil.dll"', 'starts with a drive letter'],
        ['"ok\\\\..\\\\..\\\\back.txt"', 'contains a backslash'],
        ['"ok/nul\\u0000.txt"', 'contains a control character'],
        ['"ok//double.txt"', 'has an empty path segment']
      ]) {
        expect(
          warnings.find(w => w.includes(path ?? '')),
          path
        ).toContain(`it ${reason}`)
      }
      expect(downloads('hostile', n)).toEqual(['ok/a.txt'])
      expect(filesBelow(dirname(ws))).toEqual(['ws/jenkins-artifacts/ok/a.txt'])
      expect(existsSync(ABSOLUTE)).toBe(false)
    })

    it('a refused path the patterns select fails the step, naming it', async () => {
      const ws = workspace()
      const r = await run(
        node,
        { ...auth(jenkins), job: 'hostile', artifacts: '**' },
        { env: { GITHUB_WORKSPACE: ws } }
      )
      expect(r.code, describeRun(r)).toBe(1)
      const message = errorAnnotation(r)
      expect(message).toMatch(
        /^The 'artifacts' patterns select \d+ artifact path\(s\) that were refused/
      )
      expect(message).toContain('"ok//double.txt"')
      expect(JSON.parse(r.outputs.artifacts ?? '')).toEqual(['jenkins-artifacts/ok/a.txt'])
    })
  })

  describe.concurrent('symbolic links out of the workspace (layouts made on disk here)', () => {
    it("artifacts-path below a link out: nothing created in the link's target", async () => {
      const ws = workspace()
      const outside = join(dirname(ws), 'outside')
      mkdirSync(ws)
      mkdirSync(outside)
      symlinkSync(outside, join(ws, 'out'))
      const r = await run(
        node,
        { ...auth(jenkins), job: 'linked', artifacts: '**', 'artifacts-path': 'out/sub/dir' },
        { env: { GITHUB_WORKSPACE: ws } }
      )
      // The disk outside is as it was: no sub/ nor sub/dir/.
      expect(readdirSync(outside)).toEqual([])
      expect(readdirSync(dirname(ws)).sort()).toEqual(['outside', 'ws'])
      expect(r.code, describeRun(r)).toBe(1)
      expect(errorAnnotation(r)).toBe(
        `Input 'artifacts-path' (${join(ws, 'out/sub/dir')}) leads out of the workspace through a symbolic link: 'out' leads to ${realpathSync(outside)}, outside ${realpathSync(ws)}. Expected a folder inside the workspace; nothing was created through the link.`
      )
      expect(downloads('linked', r.outputs['build-number'])).toEqual([])
    })

    it('an artifact below a link out of the folder: refused, named, no folder made there', async () => {
      const ws = workspace()
      const outside = join(dirname(ws), 'outside')
      mkdirSync(join(ws, 'jenkins-artifacts'), { recursive: true })
      mkdirSync(outside)
      symlinkSync(outside, join(ws, 'jenkins-artifacts', 'lib'))
      const r = await run(
        node,
        { ...auth(jenkins), job: 'linked', artifacts: '**' },
        { env: { GITHUB_WORKSPACE: ws } }
      )
      // No deep/ nor deep/er/ in the link's target.
      expect(readdirSync(outside)).toEqual([])
      expect(r.code, describeRun(r)).toBe(1)
      expect(errorAnnotation(r)).toBe(
        `Artifact "lib/deep/er/x.jar" was not written: the symbolic link 'jenkins-artifacts/lib' leads out of 'jenkins-artifacts' (to ${realpathSync(outside)}).`
      )
      expect(JSON.parse(r.outputs.artifacts ?? '')).toEqual(['jenkins-artifacts/ok/y.txt'])
      expect(downloads('linked', r.outputs['build-number'])).toEqual(['ok/y.txt'])
      expect(r.summary).toContain(
        'Refused <code>&#34;lib/deep/er/x.jar&#34;</code>: it passes through the symbolic link &#39;lib&#39;, which leads out of it (to '
      )
    })
  })

  it('artifacts-path outside the workspace is an input error, before any request', async () => {
    const quiet = await startJenkins({
      quietPeriodSec: 0,
      jobs: { files: { script: { durationMs: 10 } } }
    })
    try {
      const ws = workspace()
      const r = await run(
        node,
        { ...auth(quiet), job: 'files', artifacts: '**', 'artifacts-path': '../elsewhere' },
        { env: { GITHUB_WORKSPACE: ws } }
      )
      expect(r.code).toBe(1)
      expect(errorAnnotation(r)).toBe(
        `Input 'artifacts-path' ('../elsewhere') leads out of the workspace: expected a folder inside the workspace (${ws}), such as jenkins-artifacts.`
      )
      expect(quiet.requests).toEqual([])
    } finally {
      await quiet.close()
    }
  })

  it('bodies cut off on the way are fetched again, whole, within the deadline', async () => {
    const flaky = await startJenkins({
      quietPeriodSec: 0,
      jobs: { files: { script: { durationMs: 50, artifacts: FILES.slice(0, 1) } } }
    })
    try {
      // The first two answers reset part-way through the file (an aimed fault, this job only).
      const fault = flaky.aim({
        kind: 'artifact',
        job: 'files',
        effect: { type: 'reset', afterBytes: 50_000 },
        times: 2
      })
      const ws = workspace()
      const r = await run(
        node,
        { ...auth(flaky), job: 'files', artifacts: 'dist/app.jar' },
        { env: { GITHUB_WORKSPACE: ws } }
      )
      expect(r.code, describeRun(r)).toBe(0)
      expect(fault.hits).toBe(2)
      expect(
        readFileSync(join(ws, 'jenkins-artifacts/dist/app.jar')).equals(
          generatedBytes(0, 200_000, 200_000)
        )
      ).toBe(true)
      const tries = flaky.requests.filter(
        q => q.path === `/job/files/${r.outputs['build-number']}/artifact/dist/app.jar`
      )
      expect(tries.map(q => q.fault ?? 'whole')).toEqual(['reset', 'reset', 'whole'])
      // No partial file is left behind.
      expect(filesBelow(ws)).toEqual(['jenkins-artifacts/dist/app.jar'])
    } finally {
      await flaky.close()
    }
  })
})
