/**
 * resolveBranch with the real client against the in-process test server:
 * an existing branch, a new pull request found by a scan (its indexing
 * build followed), scan: never, a scan that finds nothing, parameters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolveBranch, ScanLog, type BranchOptions } from '../../src/follow/branch.js'
import { parseSettings } from '../../src/inputs/inputs.js'
import type { Input } from '../../src/util/constants.js'
import { inertLine } from '../../src/step/step-io.js'
import { JenkinsClient } from '../../src/jenkins/client.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { runnerView } from '../e2e/helpers.js'

const USER = { name: 'ci', apiToken: 'tok-ci-0123456789', permissions: ['admin' as const] }
let jenkins: TestJenkins

beforeAll(async () => {
  jenkins = await startJenkins({
    users: [USER],
    quietPeriodSec: 0,
    jobs: {
      repo: {
        type: 'multibranch',
        scanDurationMs: 120,
        jobs: {
          main: { script: { durationMs: 50 } },
          'feature%2Fold': { script: { durationMs: 50 } }
        }
      },
      folder: { type: 'folder', jobs: { a: {} } }
    }
  })
})
afterAll(() => jenkins.close())

function recorder(): BranchOptions['out'] & { lines: string[] } {
  const lines: string[] = []
  return {
    lines,
    logger: {
      debug: () => undefined,
      // As coreLogger.info prints.
      info: message => lines.push(inertLine(message)),
      warning: message => lines.push(`warning: ${message}`)
    },
    startGroup: title => lines.push(`::group::${title}`),
    endGroup: () => lines.push('::endgroup::')
  }
}

function options(inputs: Record<string, string>): BranchOptions & { out: { lines: string[] } } {
  const all: Record<string, string> = {
    url: jenkins.url,
    user: USER.name,
    token: USER.apiToken,
    job: 'repo',
    ...inputs
  }
  const parsed = parseSettings((name: Input) => all[name] ?? '')
  const { branch } = parsed
  if (!branch) throw new Error('these tests give a branch')
  const settings = { ...parsed, branch }
  const api = new JenkinsClient({
    url: settings.url,
    user: settings.user,
    token: settings.token,
    logger: { debug: () => undefined, info: () => undefined, warning: () => undefined }
  })
  return { api, settings, out: recorder(), signal: new AbortController().signal, pollMs: 20 }
}

/** This test's requests only: those naming its branch, or the scans of `repo` after `since`. */
function requestsFor(branchItem: string, since: number) {
  return jenkins.requests.filter(
    r =>
      r.time >= since && (r.job === `repo/${branchItem}` || (r.kind === 'scan' && r.job === 'repo'))
  )
}

describe('resolveBranch', () => {
  it('an existing branch: its job, no scan', async () => {
    const o = options({ branch: 'feature/old' })
    const found = await resolveBranch(o)
    expect(found.info.name).toBe('feature%2Fold')
    expect(found.indexingBuild).toBeUndefined()
    expect(o.out.lines).toEqual([])
  })

  it('a new pull request: one scan, and the build the scan queued, not a second one', async () => {
    jenkins.addHead('repo', 'PR-11', { script: { durationMs: 50 } })
    const since = Date.now()
    const o = options({ branch: 'PR-11' })
    const found = await resolveBranch(o)
    expect(found.info.url).toBe(`${jenkins.url}/job/repo/job/PR-11/`)
    expect(found.indexingBuild?.queueId).toBeGreaterThan(0)
    const queueId = found.indexingBuild?.queueId
    const build = jenkins.builds('repo/PR-11')
    expect(build.length).toBeLessThanOrEqual(1)
    const item = jenkins.state.queue.find(i => i.id === queueId)
    expect(item?.causes).toEqual([
      { _class: 'jenkins.branch.BranchIndexingCause', shortDescription: 'Branch indexing' }
    ])
    const mine = requestsFor('PR-11', since)
    expect(mine.filter(r => r.kind === 'scan')).toHaveLength(1)
    expect(mine.filter(r => r.kind === 'trigger')).toEqual([])
    expect(o.out.lines[0]).toMatch(
      /^Branch 'PR-11' of repo has no job in Jenkins yet: scanning repo/
    )
    expect(o.out.lines).toContain('::group::Scan of repo')
    expect(o.out.lines.filter(l => l === '::endgroup::')).toHaveLength(1)
    expect(o.out.lines.at(-2)).toMatch(
      /^Branch indexing created repo\/PR-11 and started its first build \(cause: Branch indexing\): following (queue item|build #1)/
    )
    // Any other run that scanned for it follows the same build: a cancel must leave it.
    expect(o.out.lines.at(-1)).toBe(
      "Every run that scanned for branch 'PR-11' follows this build, and Jenkins does not record which: it is shared, and a cancel leaves it running."
    )
    // One scan request: nothing was folded into it.
    expect(o.out.lines.some(l => l.startsWith('Jenkins merged this scan request'))).toBe(false)
  })

  it('scan: never names the closest branches, decoded, and sends no scan', async () => {
    const since = Date.now()
    const o = options({ branch: 'feature/olt', scan: 'never' })
    await expect(resolveBranch(o)).rejects.toThrow(
      /^Multibranch project repo has no branch 'feature\/olt' \(scan: never\) on .* Closest branches: feature\/old\.$/
    )
    expect(requestsFor('x', since).filter(r => r.kind === 'scan')).toEqual([])
  })

  it('a scan that does not find the branch fails once it is over, listing what there is', async () => {
    const o = options({ branch: 'no-such-branch-at-all-here' })
    await expect(resolveBranch(o)).rejects.toThrow(
      /^The scan of repo finished without a branch 'no-such-branch-at-all-here' .* It has: /
    )
    expect(o.out.lines.filter(l => l === '::endgroup::')).toHaveLength(1)
  })

  it('a scan that creates the job without building it: the caller triggers', async () => {
    jenkins.addHead('repo', 'PR-12', { indexingBuild: false })
    const o = options({ branch: 'PR-12' })
    const found = await resolveBranch(o)
    expect(found.indexingBuild).toBeUndefined()
    expect(o.out.lines.at(-1)).toBe(
      'The scan finished without building repo/PR-12; triggering a build.'
    )
  })

  it('parameters other than the defaults the scan built with: the caller triggers its own', async () => {
    jenkins.addHead('repo', 'PR-13', {
      parameters: [{ name: 'TARGET', default: 'dev' }],
      script: { durationMs: 50 }
    })
    const o = options({ branch: 'PR-13', parameters: 'TARGET=prod' })
    const found = await resolveBranch(o)
    expect(found.indexingBuild).toBeUndefined()
    expect(o.out.lines.at(-1)).toMatch(/built repo\/PR-13 with its default parameters/)
    // With the defaults asked for, the scan's build is the one.
    jenkins.addHead('repo', 'PR-14', {
      parameters: [{ name: 'TARGET', default: 'dev' }],
      script: { durationMs: 50 }
    })
    const same = await resolveBranch(options({ branch: 'PR-14', parameters: 'TARGET=dev' }))
    expect(same.indexingBuild).toBeDefined()
  })

  it('the scan log is printed without workflow commands, even when Jenkins text holds them', async () => {
    jenkins.addHead('repo', 'evil::error::x ##[warning]y', { indexingBuild: false })
    jenkins.addHead('repo', 'PR-15', { script: { durationMs: 50 } })
    const o = options({ branch: 'PR-15' })
    await resolveBranch(o)
    const printed = o.out.lines.filter(l => !l.startsWith('::group::') && l !== '::endgroup::')
    expect(printed.join('\n')).toContain('Checking branch evil:')
    expect(runnerView(printed.join('\n')).filter(l => l.command)).toEqual([])
    expect(printed.join('\n')).not.toContain('##[')
  })

  it('a branch of something that is not a multibranch project', async () => {
    await expect(resolveBranch(options({ job: 'folder', branch: 'main' }))).rejects.toThrow(
      /^Jenkins item folder is a folder, not a multibranch project/
    )
  })
})

describe('ScanLog: whether the scan is over', () => {
  it('a scan seen queued or running is over once it is neither', () => {
    const state = new ScanLog(options({ branch: 'main' }))
    state.look(true)
    expect(state.finished).toBe(false)
    state.look(true)
    expect(state.finished).toBe(false)
    state.look(false)
    expect(state.finished).toBe(true)
  })

  it('never seen active: over only after two looks (the first may show the previous scan)', () => {
    const state = new ScanLog(options({ branch: 'main' }))
    state.look(false)
    expect(state.finished).toBe(false)
    state.look(false)
    expect(state.finished).toBe(true)
  })
})
