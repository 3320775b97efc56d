import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { parseArtifactPatterns } from '../../src/inputs/artifact-patterns.js'
import { downloadArtifacts } from '../../src/outcome/artifacts.js'
import type { ArtifactSink } from '../../src/jenkins/model/types.js'
import type { BuildOutputsApi } from '../../src/jenkins/client.js'
import { JenkinsError } from '../../src/jenkins/transport/errors.js'
import type { BuildRef } from '../../src/jenkins/model/types.js'
import { recordingLogger } from '../jenkins/helpers.js'

const BUILD: BuildRef = { job: ['app'], number: 3, url: 'https://ci/job/app/3/' }

/** Artifacts by path; a value that is an Error fails that download. */
function fakeApi(files: Record<string, string | Error>, extra: string[] = []) {
  const downloads: string[] = []
  const api: Pick<BuildOutputsApi, 'listArtifacts' | 'downloadArtifact'> = {
    async listArtifacts() {
      return { paths: [...Object.keys(files), ...extra], truncated: false }
    },
    async downloadArtifact(_build, path, open: () => Promise<ArtifactSink>) {
      downloads.push(path)
      const content = files[path]
      if (content instanceof Error) throw content
      const sink = await open()
      await new Promise<void>(resolve => sink.stream.end(content ?? '', () => resolve()))
      await sink.commit()
      return { bytes: Buffer.byteLength(content ?? ''), attempts: 1 }
    }
  }
  return { api, downloads }
}

let workspace: string
beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'artifacts-test-'))
})
afterEach(() => undefined)

function settings(patterns: string, folder = 'jenkins-artifacts') {
  return {
    artifacts: parseArtifactPatterns(patterns, 'linux'),
    artifactsPath: join(workspace, folder),
    workspace
  }
}

/** Every file below dir, relative, '/'-separated. */
function filesBelow(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry =>
    entry.isDirectory()
      ? filesBelow(join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`]
  )
}

describe('downloadArtifacts', () => {
  test('writes the selected files with their nested paths; the output lists them in order', async () => {
    const { api, downloads } = fakeApi({
      'build/libs/app.jar': 'JAR',
      'build/libs/app-sources.jar': 'SRC',
      'build/reports/index.html': '<html>',
      'notes.txt': 'n'
    })
    const logger = recordingLogger()
    const outcome = await downloadArtifacts(
      api,
      settings('build/\n!**/*-sources.jar'),
      BUILD,
      logger
    )
    expect(outcome.written).toEqual([
      'jenkins-artifacts/build/libs/app.jar',
      'jenkins-artifacts/build/reports/index.html'
    ])
    expect(outcome.bytes).toBe(9)
    expect(outcome.problems).toEqual([])
    expect(downloads.sort()).toEqual(['build/libs/app.jar', 'build/reports/index.html'])
    expect(readFileSync(join(workspace, 'jenkins-artifacts/build/libs/app.jar'), 'utf8')).toBe(
      'JAR'
    )
    // No temporary file is left behind.
    expect(filesBelow(join(workspace, 'jenkins-artifacts')).sort()).toEqual([
      'build/libs/app.jar',
      'build/reports/index.html'
    ])
  })

  test('hostile relativePaths are refused, named, never written; wanted ones fail the step', async () => {
    const { api, downloads } = fakeApi({ 'ok.txt': 'fine' }, [
      '../../../.bashrc',
      '/etc/passwd',
      'C:\\Windows\\evil.dll',
      'a/../../x',
      'nul\u0000byte',
      'sub//double'
    ])
    const logger = recordingLogger()
    const outcome = await downloadArtifacts(api, settings('**', 'out'), BUILD, logger)
    expect(outcome.written).toEqual(['out/ok.txt'])
    expect(downloads).toEqual(['ok.txt'])
    expect(outcome.refused.map(r => r.path)).toEqual([
      '../../../.bashrc',
      '/etc/passwd',
      'C:\\Windows\\evil.dll',
      'a/../../x',
      'nul\u0000byte',
      'sub//double'
    ])
    const warnings = logger.lines.filter(l => l.level === 'warning').map(l => l.message)
    expect(warnings.find(w => w.includes('"../../../.bashrc"'))).toMatch(
      /Refused artifact path "..\/..\/..\/.bashrc" from Jenkins build #3: it has a '..' segment/
    )
    expect(warnings.find(w => w.includes('nul'))).toContain('"nul\\u0000byte"')
    // `**` takes 'C:\Windows\evil.dll' (one name on Linux) and 'sub//double': the user wanted them.
    expect(outcome.problems).toHaveLength(1)
    expect(outcome.problems[0]).toContain('"C:\\\\Windows\\\\evil.dll"')
    expect(outcome.problems[0]).toContain('"sub//double"')
    expect(filesBelow(workspace)).toEqual(['out/ok.txt'])
  })

  test('a pattern that matches nothing warns with a few names the build does have', async () => {
    const files = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}.log`, 'x']))
    const logger = recordingLogger()
    const outcome = await downloadArtifacts(
      fakeApi(files).api,
      settings('**/*.war\n!*.tmp'),
      BUILD,
      logger
    )
    expect(outcome.written).toEqual([])
    expect(logger.lines).toContainEqual({
      level: 'warning',
      message:
        "Artifact pattern '**/*.war' matched none of the artifacts of Jenkins build #3. It has: f0.log, f1.log, f2.log, f3.log, f4.log, … (8 in all)."
    })
    expect(existsSync(join(workspace, 'jenkins-artifacts'))).toBe(false)
    const none = recordingLogger()
    await downloadArtifacts(fakeApi({}).api, settings('*.jar'), BUILD, none)
    expect(none.lines.at(-1)?.message).toBe(
      "Artifact pattern '*.jar' matched nothing: Jenkins build #3 archived no artifacts."
    )
  })

  test('a download that fails is a problem; the others are still written', async () => {
    const { api } = fakeApi({
      'a.txt': 'a',
      'b.txt': new JenkinsError('not-found', "Artifact 'b.txt' of build #3 … (404)"),
      'c.txt': 'c'
    })
    const outcome = await downloadArtifacts(api, settings('*.txt'), BUILD, recordingLogger())
    expect(outcome.written).toEqual(['jenkins-artifacts/a.txt', 'jenkins-artifacts/c.txt'])
    expect(outcome.problems).toEqual([
      'Artifact "b.txt" was not downloaded: Artifact \'b.txt\' of build #3 … (404)'
    ])
  })

  test('a symbolic link inside the folder that leads out of it is not written through', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'artifacts-outside-'))
    mkdirSync(join(workspace, 'jenkins-artifacts'))
    symlinkSync(outside, join(workspace, 'jenkins-artifacts', 'link'))
    const { api } = fakeApi({ 'link/evil.sh': 'rm -rf', 'safe.txt': 's' })
    const outcome = await downloadArtifacts(api, settings('**'), BUILD, recordingLogger())
    expect(outcome.written).toEqual(['jenkins-artifacts/safe.txt'])
    expect(outcome.problems).toEqual([
      `Artifact "link/evil.sh" was not written: the symbolic link 'jenkins-artifacts/link' leads out of 'jenkins-artifacts' (to ${realpathSync(outside)}).`
    ])
    expect(readdirSync(outside)).toEqual([])
  })

  test('no folder is created through a symbolic link out of the folder, however deep the artifact', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'artifacts-outside-'))
    mkdirSync(join(workspace, 'jenkins-artifacts'))
    symlinkSync(outside, join(workspace, 'jenkins-artifacts', 'lib'))
    const { api, downloads } = fakeApi({ 'lib/deep/er/x.jar': 'jar', 'ok/y.txt': 'y' })
    const outcome = await downloadArtifacts(api, settings('**'), BUILD, recordingLogger())
    expect(outcome.written).toEqual(['jenkins-artifacts/ok/y.txt'])
    expect(outcome.refused).toEqual([
      {
        path: 'lib/deep/er/x.jar',
        reason: `passes through the symbolic link 'lib', which leads out of it (to ${realpathSync(outside)})`
      }
    ])
    expect(downloads).toEqual(['ok/y.txt'])
    expect(readdirSync(outside)).toEqual([])
  })

  test('a symbolic link that leads nowhere is not created through; a file where a folder goes is said', async () => {
    mkdirSync(join(workspace, 'jenkins-artifacts'))
    symlinkSync(join(workspace, 'gone'), join(workspace, 'jenkins-artifacts', 'dangling'))
    writeFileSync(join(workspace, 'jenkins-artifacts', 'file'), 'f')
    const { api } = fakeApi({ 'dangling/a.txt': 'a', 'file/b.txt': 'b' })
    const outcome = await downloadArtifacts(api, settings('**'), BUILD, recordingLogger())
    expect(outcome.written).toEqual([])
    // Downloads run side by side: problems come in any order.
    expect([...outcome.problems].sort()).toEqual([
      `Artifact "dangling/a.txt" was not downloaded: 'dangling/a.txt' passes through the symbolic link 'dangling', which leads to ${join(workspace, 'gone')}, which does not exist`,
      `Artifact "file/b.txt" was not downloaded: 'file/b.txt' is not a folder ('file' is a file)`
    ])
    expect(existsSync(join(workspace, 'gone'))).toBe(false)
    await expect(
      downloadArtifacts(api, settings('**', 'jenkins-artifacts/file/sub'), BUILD, recordingLogger())
    ).rejects.toThrow(
      `Input 'artifacts-path' (${join(workspace, 'jenkins-artifacts/file/sub')}) is not a folder ('jenkins-artifacts/file' is a file): expected a folder inside the workspace.`
    )
  })

  test('a symbolic link that stays inside the folder is followed', async () => {
    mkdirSync(join(workspace, 'jenkins-artifacts', 'real'), { recursive: true })
    symlinkSync(
      join(workspace, 'jenkins-artifacts', 'real'),
      join(workspace, 'jenkins-artifacts', 'alias')
    )
    const { api } = fakeApi({ 'alias/sub/z.txt': 'z' })
    const outcome = await downloadArtifacts(api, settings('**'), BUILD, recordingLogger())
    expect(outcome.problems).toEqual([])
    expect(readFileSync(join(workspace, 'jenkins-artifacts/real/sub/z.txt'), 'utf8')).toBe('z')
  })

  test('artifacts-path below a symbolic link out of the workspace creates nothing there', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'artifacts-outside-'))
    symlinkSync(outside, join(workspace, 'out'))
    const { api } = fakeApi({ 'a.txt': 'a' })
    await expect(
      downloadArtifacts(api, settings('**', 'out/sub/dir'), BUILD, recordingLogger())
    ).rejects.toThrow(
      `Input 'artifacts-path' (${join(workspace, 'out/sub/dir')}) leads out of the workspace through a symbolic link: 'out' leads to ${realpathSync(outside)}, outside ${realpathSync(workspace)}.`
    )
    expect(readdirSync(outside)).toEqual([])
  })

  test('artifacts-path that is a symbolic link out of the workspace is refused before writing', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'artifacts-outside-'))
    symlinkSync(outside, join(workspace, 'jenkins-artifacts'))
    const { api } = fakeApi({ 'a.txt': 'a' })
    await expect(downloadArtifacts(api, settings('**'), BUILD, recordingLogger())).rejects.toThrow(
      /^Input 'artifacts-path' .* leads out of the workspace through a symbolic link/
    )
    expect(readdirSync(outside)).toEqual([])
  })

  test('an artifacts list that cannot be read is a warning and a note, not a failure; no answer at all still fails', async () => {
    const failing = (error: Error) => ({
      listArtifacts: async () => Promise.reject(error),
      downloadArtifact: async () => Promise.reject(new Error('not reached'))
    })
    const logger = recordingLogger()
    const unread: string[] = []
    const deep = new JenkinsError(
      'protocol',
      'Jenkins at x answered … with JSON nested more than 500 levels deep'
    )
    const outcome = await downloadArtifacts(
      failing(deep),
      settings('**'),
      BUILD,
      logger,
      undefined,
      unread
    )
    const message = `The artifacts list of Jenkins build #3 could not be read, so no artifact was downloaded: ${deep.message}`
    expect(outcome).toMatchObject({ written: [], problems: [], refused: [] })
    expect(logger.lines).toEqual([{ level: 'warning', message }])
    expect(unread).toEqual([message])
    const forbidden = new JenkinsError('forbidden', 'Jenkins at x denied … (403)')
    await expect(
      downloadArtifacts(failing(forbidden), settings('**'), BUILD, recordingLogger())
    ).rejects.toBe(forbidden)
  })

  test('an existing file is replaced whole', async () => {
    mkdirSync(join(workspace, 'jenkins-artifacts'))
    const { api } = fakeApi({ 'a.txt': 'new' })
    await downloadArtifacts(api, settings('a.txt'), BUILD, recordingLogger())
    expect(readFileSync(join(workspace, 'jenkins-artifacts/a.txt'), 'utf8')).toBe('new')
  })
})
