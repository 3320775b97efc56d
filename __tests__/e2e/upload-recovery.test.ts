/**
 * End to end: an upload (`files`) whose connection Jenkins resets, against
 * the test server's `reset-upload` fault (Jenkins reads the body up to the
 * reset, then acts on what it got, as Stapler does). A reset at any byte of
 * the body ends in the same recovery and one `::error` (never a crash of the
 * process); the build with every parameter at its default and no file is
 * cancelled or stopped only when it is this step's alone, and work of that
 * shape that is someone else's (another user's request, a timer's request
 * ours was merged into, the build that became) is named and left alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation, node24 } from '../../scripts/action-runner.js'
import {
  DEFAULT_USERS,
  startJenkins,
  type JobSpec,
  type TestJenkins
} from '../../test-server/index.js'
import { adminPost, auth, commands, describeRun, run, startBuild, untilServer } from './helpers.js'

const NODE24 = node24()
const BOB_TOKEN = '22e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6'
/**
 * Larger than the socket buffers on both ends can hold, so a reset comes
 * while the body is still being written: each later write then fails.
 */
const FILE_SIZE = 48 * 1024 * 1024

/** A job taking a file and a string with a default; its builds last a minute, so a stop shows. */
const fileJob = (spec: Partial<JobSpec> = {}): JobSpec => ({
  parameters: [
    { name: 'PACKAGE', type: 'file' },
    { name: 'TARGET', default: 'staging' }
  ],
  concurrent: true,
  script: { durationMs: 60_000 },
  ...spec
})

describe('an upload reset by Jenkins', () => {
  let jenkins: TestJenkins
  let workspace: string
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 8,
      users: [
        ...DEFAULT_USERS,
        { name: 'bob', apiToken: BOB_TOKEN, permissions: ['read', 'build'] }
      ],
      jobs: {
        'reset-start': fileJob(),
        'reset-middle': fileJob(),
        'reset-end': fileJob(),
        // The File Parameters plugin's base64File, read first, rethrows a
        // broken body: a 500 and nothing queued by the upload.
        'plugin-upload': fileJob({
          parameters: [
            { name: 'PACKAGE', type: 'base64File' },
            { name: 'TARGET', default: 'staging' }
          ]
        }),
        // Not concurrent: a running build keeps the next item queued.
        'timer-queue': fileJob({ concurrent: false }),
        'timer-build': fileJob({ concurrent: false })
      }
    })
    workspace = mkdtempSync(join(tmpdir(), 'upload-recovery-e2e-'))
    writeFileSync(join(workspace, 'big.bin'), Buffer.alloc(FILE_SIZE, 1))
  })
  afterAll(async () => {
    await jenkins.close()
    rmSync(workspace, { recursive: true, force: true })
  })

  const upload = (job: string) =>
    run(
      NODE24,
      { ...auth(jenkins), job, files: 'PACKAGE=big.bin', parameters: 'TARGET=prod' },
      { env: { GITHUB_WORKSPACE: workspace } }
    )
  const triggers = (job: string) =>
    jenkins.requests.filter(q => q.kind === 'trigger' && q.job === job)
  /** Every cancel of the item, and every stop, term or kill of a build of `job`, Jenkins received. */
  const cancelsAndStops = (job: string, queueId: number) =>
    jenkins.requests.filter(
      q =>
        q.method === 'POST' &&
        ((q.path === '/queue/cancelItem' &&
          new URLSearchParams(q.query).get('id') === String(queueId)) ||
          new RegExp(`^/job/${job}/\\d+/(stop|term|kill)$`).test(q.path))
    )
  const item = (id: number) => `queue item ${id} \\(${jenkins.url}/queue/item/${id}/\\)`
  const build = (job: string, n: number) => `build #${n} \\(${jenkins.url}/job/${job}/${n}/\\)`
  /** How the reset reads: how much was sent shows only when the socket had not taken the whole body when it came. */
  const reset = (job: string) =>
    new RegExp(
      `^The connection to Jenkins at ${jenkins.url} (was reset|was closed while sending \\(EPIPE\\)) while uploading to job '${job}'( \\([\\d.]+ (B|KiB|MiB) of 48\\.0 MiB sent\\))?\\. `
    )

  describe.concurrent('at any byte of the body', () => {
    it.each([
      ['at its first bytes', 'reset-start', { afterBytes: 0 }],
      ['in the middle of the file', 'reset-middle', { afterBytes: FILE_SIZE / 2 }],
      ['in its closing boundary', 'reset-end', { beforeEnd: 16 }]
    ] as const)(
      'reset %s: the defaults-only build it queued is found and stopped, one ::error, nothing sent again',
      async (_where, job, cut) => {
        jenkins.aim({
          kind: 'trigger',
          job,
          method: 'POST',
          effect: { type: 'reset-upload', ...cut }
        })
        const r = await upload(job)
        expect(r.code, describeRun(r)).toBe(1)
        // One clear message: a crash would print none (the runner shows only a stack).
        expect(commands(r.stdout, 'error'), describeRun(r)).toHaveLength(1)
        const builds = jenkins.builds(job)
        // Jenkins queued exactly one build, with every parameter at its default and no file.
        expect(builds.map(b => b.parameterValues)).toEqual([
          [{ name: 'TARGET', type: 'string', value: 'staging' }]
        ])
        expect(triggers(job)).toHaveLength(1)
        const message = errorAnnotation(r)
        expect(message).toMatch(reset(job))
        // An executor is free, so the build started at once, before the step looked: stopped.
        expect(message).toMatch(
          new RegExp(
            `\\. Jenkins queued ${build(job, 1)} from the broken upload with every parameter at its default and no file: stopped build #1\\. Nothing was sent again: run the step again to upload the files\\.$`
          )
        )
        expect(builds[0]!.stopRequestedAt).not.toBeNull()
      }
    )

    it("another user's queued build of the same shape: named and left alone", async () => {
      // Bob's request waits out a long quiet period.
      const res = await fetch(`${jenkins.url}/job/plugin-upload/buildWithParameters?delay=600sec`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`bob:${BOB_TOKEN}`).toString('base64')}`
        }
      })
      expect(res.status).toBe(201)
      const bobs = jenkins.state.queue.find(q => q.job.fullName === 'plugin-upload')!
      jenkins.aim({
        kind: 'trigger',
        job: 'plugin-upload',
        method: 'POST',
        effect: { type: 'reset-upload', afterBytes: 64 * 1024 }
      })
      const r = await upload('plugin-upload')
      expect(r.code, describeRun(r)).toBe(1)
      expect(errorAnnotation(r)).toMatch(
        new RegExp(
          `\\. Jenkins shows ${item(bobs.id)} with every parameter at its default and no file, as the broken upload would have queued it, but it is not a request of user 'admin': it was left alone\\. Check it \\(it may run without the files\\); nothing was sent again\\.$`
        )
      )
      expect(cancelsAndStops('plugin-upload', bobs.id)).toEqual([])
      expect(bobs.state).toBe('waiting')
      expect(jenkins.builds('plugin-upload')).toEqual([])
    })

    it("a timer's queued build our broken upload was merged into: named and left alone", async () => {
      const blocker = await startBuild(jenkins, 'timer-queue', 'TARGET=blocker')
      const timer = jenkins.timer('timer-queue')
      jenkins.aim({
        kind: 'trigger',
        job: 'timer-queue',
        method: 'POST',
        effect: { type: 'reset-upload', afterBytes: 64 * 1024 }
      })
      const r = await upload('timer-queue')
      expect(r.code, describeRun(r)).toBe(1)
      // Jenkins folded the broken request (every default, no file) into the timer's item.
      expect(timer.causes.map(c => c._class)).toEqual([
        'hudson.triggers.TimerTrigger$TimerTriggerCause',
        'hudson.model.Cause$UserIdCause'
      ])
      expect(errorAnnotation(r)).toMatch(
        new RegExp(
          `\\. Jenkins shows ${item(timer.id)} with every parameter at its default and no file, as the broken upload would have queued it, but 2 requests share it \\(another was merged with this step's\\): it was left alone\\. `
        )
      )
      expect(cancelsAndStops('timer-queue', timer.id)).toEqual([])
      expect(timer.state).not.toBe('left')
      expect(blocker.building).toBe(true)
    })

    it("the build a timer's request and our broken upload share: named and left running", async () => {
      const blocker = await startBuild(jenkins, 'timer-build', 'TARGET=blocker')
      const timer = jenkins.timer('timer-build')
      const fault = jenkins.aim({
        kind: 'trigger',
        job: 'timer-build',
        method: 'POST',
        effect: { type: 'reset-upload', afterBytes: 64 * 1024 }
      })
      const running = upload('timer-build')
      // Once the broken request was folded in, the item gets its executor while the step waits to look.
      await fault.hit
      await untilServer(() => (timer.causes.length === 2 ? true : undefined), 'the fold')
      expect((await adminPost(jenkins, `/job/timer-build/${blocker.number}/stop`)).status).toBe(302)
      const r = await running
      expect(r.code, describeRun(r)).toBe(1)
      const shared = await untilServer(() => jenkins.builds('timer-build')[1], 'the shared build')
      // The step looks after a settle period; on a busy machine the item may not have started by then.
      expect(errorAnnotation(r)).toMatch(
        new RegExp(
          `\\. Jenkins shows (${item(timer.id)}|${build('timer-build', 2)}) with every parameter at its default and no file, as the broken upload would have queued it, but 2 requests share it \\(another was merged with this step's\\): it was left alone\\. `
        )
      )
      expect(cancelsAndStops('timer-build', timer.id).map(q => q.path)).toEqual([
        `/job/timer-build/${blocker.number}/stop`
      ])
      expect(shared.causes.map(c => c._class)).toEqual([
        'hudson.triggers.TimerTrigger$TimerTriggerCause',
        'hudson.model.Cause$UserIdCause'
      ])
      expect(shared.stopRequestedAt).toBeNull()
    })
  })
})
