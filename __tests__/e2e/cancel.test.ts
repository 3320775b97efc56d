/**
 * End to end: cancellation as the runner does it (SIGINT, then SIGTERM 7.5 s
 * later, then a kill), the `timeout` input, and the post step as the safety
 * net for a main step that was killed. Signals are sent to the bundle under
 * Node 24 (what action.yml declares); the test server's build must end
 * ABORTED, and the step must exit well inside the runner's grace period.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  errorAnnotation,
  node24,
  runAction,
  startAction,
  type ActionRun,
  type RunningAction
} from '../../scripts/action-runner.js'
import {
  startJenkins,
  type BuildState,
  type FaultEffect,
  type TestJenkins
} from '../../test-server/index.js'
import { ADMIN_TOKEN, auth, describeRun, savedWork } from './helpers.js'

const NODE24 = node24()
const AUTH64 = `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`
/** Far above the runner's 7.5 s window on a busy machine, far below a hung request's minutes. */
const GENEROUS_MS = 30_000
/** The runner's grace between SIGINT and SIGTERM, for the report. */
const GRACE_MS = 7500

const figures = {
  signalToExitMs: [] as number[],
  signalToAbortedMs: [] as number[],
  /** SIGINT to exit while a request to Jenkins hangs, by what hung. */
  hangingSignalToExit: [] as string[],
  /** Post step durations, by what Jenkins did. */
  post: [] as string[]
}

/** Resolves once `check` holds (polled: the server's request log has no events). */
async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > end) throw new Error('condition never held')
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

function start(jenkins: TestJenkins, job: string, extra: Record<string, string> = {}) {
  return startAction({ ...auth(jenkins), job, ...extra }, { node: NODE24, killAfterMs: 45_000 })
}

/** Sends `signal` once the build is running; returns the run, the signal time and the build. */
async function signalWhileBuilding(
  jenkins: TestJenkins,
  action: RunningAction,
  job: string,
  signal: NodeJS.Signals
): Promise<{ r: ActionRun; sentAt: number; build: BuildState }> {
  await action.waitForOutput(/Jenkins build .* started/)
  const sentAt = Date.now()
  action.child.kill(signal)
  const r = await action.done
  const exitedAt = Date.now()
  figures.signalToExitMs.push(exitedAt - sentAt)
  // Tests run concurrently on the same jobs: find this run's own build.
  const number = Number(savedWork(r.state).number)
  const build = jenkins.builds(job).find(b => b.number === number) as BuildState
  return { r, sentAt, build }
}

describe('cancellation, timeout and the post step (Node 24)', () => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 20,
      jobs: {
        long: { concurrent: true, script: { durationMs: 30_000, consoleLines: ['working'] } },
        pipe: {
          type: 'pipeline',
          script: { durationMs: 30_000, stopDelayMs: 400, consoleLines: ['[Pipeline] sh'] }
        },
        stubborn: {
          type: 'pipeline',
          // Ignores stop for far longer than the action waits: only term ends it.
          script: { durationMs: 30_000, stopDelayMs: 60_000, consoleLines: ['[Pipeline] sh'] }
        },
        quick: { script: { durationMs: 200 } },
        blocked: { script: { durationMs: 200 } }
      }
    })
  })
  afterAll(async () => {
    await jenkins.close()
    console.log(
      `cancel figures (runner grace ${GRACE_MS} ms): signal→exit median ${median(figures.signalToExitMs)} ms (${figures.signalToExitMs.join(', ')}); signal→ABORTED median ${median(figures.signalToAbortedMs)} ms (${figures.signalToAbortedMs.join(', ')})\n` +
        `  SIGINT→exit while a request hangs: ${figures.hangingSignalToExit.join('; ')}\n` +
        `  post step: ${figures.post.join('; ')}`
    )
  })

  describe.concurrent('signals', () => {
    it('SIGINT while building a freestyle job: stop, ABORTED on the server, says so, exits non-zero fast', async () => {
      const { r, sentAt, build } = await signalWhileBuilding(
        jenkins,
        start(jenkins, 'long'),
        'long',
        'SIGINT'
      )
      expect(r.code, describeRun(r)).not.toBe(0)
      expect(r.signal).toBeNull()
      expect(build.result).toBe('ABORTED')
      figures.signalToAbortedMs.push((build.finishedAt ?? 0) - sentAt)
      expect(r.stdout).toContain('Received SIGINT: the workflow was cancelled.')
      expect(errorAnnotation(r)).toMatch(
        /cancelled while waiting for Jenkins long #\d+; stopped Jenkins build #\d+ \(stop; result ABORTED\)/
      )
      // What is known is reported, as with `jobs`: the outputs and the summary, with what the stop did.
      expect(r.outputs['build-number']).toBe(String(build.number))
      expect(r.summary).toContain(`<h2>Jenkins <a href="${jenkins.url}/job/long/">long</a></h2>`)
      expect(r.summary).toContain(
        `stopped Jenkins build &#35;${build.number} (stop; result ABORTED)`
      )
      expect(r.durationMs).toBeGreaterThan(0)
    })

    it('SIGINT while building a Pipeline that takes a moment to stop: ABORTED after stop', async () => {
      const { r, sentAt, build } = await signalWhileBuilding(
        jenkins,
        start(jenkins, 'pipe'),
        'pipe',
        'SIGINT'
      )
      expect(r.code, describeRun(r)).not.toBe(0)
      expect(build.result).toBe('ABORTED')
      figures.signalToAbortedMs.push((build.finishedAt ?? 0) - sentAt)
      expect(errorAnnotation(r)).toMatch(/stopped Jenkins build #\d+ \(stop; result ABORTED\)/)
    })

    it('SIGINT on a Pipeline that ignores stop: escalates to term, ABORTED, still well inside the grace period', async () => {
      const { r, sentAt, build } = await signalWhileBuilding(
        jenkins,
        start(jenkins, 'stubborn'),
        'stubborn',
        'SIGINT'
      )
      expect(r.code, describeRun(r)).not.toBe(0)
      expect(build.result).toBe('ABORTED')
      expect(r.stdout).toContain('Sent stop to Jenkins build')
      expect(r.stdout).toContain('Sent term to Jenkins build')
      expect(errorAnnotation(r)).toMatch(/stopped Jenkins build #\d+ \(term; result ABORTED\)/)
      // The escalation has to fit before the runner's SIGTERM (GRACE_MS); the
      // time is reported rather than asserted on a shared machine.
      figures.signalToAbortedMs.push((build.finishedAt ?? 0) - sentAt)
    })

    it('SIGTERM alone stops the build the same way', async () => {
      const { r, build } = await signalWhileBuilding(
        jenkins,
        start(jenkins, 'long'),
        'long',
        'SIGTERM'
      )
      expect(r.code, describeRun(r)).not.toBe(0)
      expect(r.stdout).toContain('Received SIGTERM')
      expect(build.result).toBe('ABORTED')
    })

    it('abort-on-cancel: false leaves the build running', async () => {
      const action = start(jenkins, 'long', { 'abort-on-cancel': 'false' })
      const { r, build } = await signalWhileBuilding(jenkins, action, 'long', 'SIGINT')
      expect(r.code, describeRun(r)).not.toBe(0)
      expect(build.building).toBe(true)
      // Other tests stop their own builds of other jobs (and of `long`) on this
      // shared server: match this run's build exactly, by job and number.
      const ours = ['stop', 'term', 'kill'].map(how => `/job/long/${build.number}/${how}`)
      expect(jenkins.requests.filter(q => q.method === 'POST' && ours.includes(q.path))).toEqual([])
      expect(errorAnnotation(r)).toMatch(/left the Jenkins work running \(abort-on-cancel: false\)/)
      await fetch(`${jenkins.url}/job/long/${build.number}/stop`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`
        }
      })
    })

    it('timeout: 2 on a long build: says how long it waited and what it did; ABORTED', async () => {
      const r = await runAction(
        { ...auth(jenkins), job: 'long', timeout: '2' },
        { node: NODE24, killAfterMs: 45_000 }
      )
      expect(r.code, describeRun(r)).not.toBe(0)
      const number = Number(savedWork(r.state).number)
      const build = jenkins.builds('long').find(b => b.number === number)
      expect(build?.result).toBe('ABORTED')
      // Every output the mode knew before the timeout is set.
      expect(r.outputs['build-number'], describeRun(r)).toBe(String(number))
      expect(r.outputs['build-url']).toBe(`${jenkins.url}/job/long/${number}/`)
      expect(r.outputs['queue-url']).toContain(`${jenkins.url}/queue/item/`)
      expect(errorAnnotation(r)).toMatch(
        /^Timed out after 2 s \(timeout: 2 s\) waiting for Jenkins long #\d+; stopped Jenkins build #\d+ \(stop; result ABORTED\)\.$/
      )
    })
  })

  describe.concurrent('SIGINT while a request to Jenkins hangs', () => {
    /** Starts a run of `job`, waits until the fault hits its request, sends SIGINT, and measures. */
    async function interruptWhile(
      job: string,
      effect: FaultEffect,
      extra: Record<string, string> = {},
      kind: 'build' | 'log' = 'build'
    ) {
      jenkins.addJob(job, {
        concurrent: true,
        script: { durationMs: 60_000, consoleLines: ['working'] }
      })
      const fault = jenkins.aim({ kind, job, effect })
      // For a build GET, log: false: with the console on, the step reads the
      // console while the build runs and no build JSON until the end.
      const action = start(jenkins, job, kind === 'build' ? { log: 'false', ...extra } : extra)
      await fault.hit
      const sentAt = Date.now()
      action.child.kill('SIGINT')
      const r = await action.done
      const ms = Date.now() - sentAt
      fault.remove()
      figures.hangingSignalToExit.push(`${effect.type} on the build GET: ${ms} ms`)
      expect(r.code, describeRun(r)).not.toBe(0)
      expect(r.signal, describeRun(r)).toBeNull()
      expect(ms, describeRun(r)).toBeLessThan(GENEROUS_MS)
      const number = Number(savedWork(r.state).number)
      const build = jenkins.builds(job).find(b => b.number === number)
      const stops = jenkins.requests.filter(
        q => q.method === 'POST' && q.path === `/job/${job}/${number}/stop`
      )
      return { r, build, stops }
    }

    it('a build GET with no answer at all: stop is sent first, the build ends ABORTED, the step exits', async () => {
      const { r, build, stops } = await interruptWhile('hang-build', { type: 'hang' })
      expect(stops).toHaveLength(1)
      expect(build?.result).toBe('ABORTED')
      expect(r.stdout).toMatch(
        /Stopped waiting for Jenkins at .*: no answer to build #\d+ of 'hang-build' after/
      )
      expect(errorAnnotation(r)).toMatch(
        /^The workflow was cancelled while waiting for Jenkins hang-build #\d+; sent stop to Jenkins build #\d+, but could not see it end: .+/
      )
    })

    it('a console GET with no answer at all: stop is sent first, the build ends ABORTED, the step exits', async () => {
      const { r, build, stops } = await interruptWhile('hang-log', { type: 'hang' }, {}, 'log')
      expect(stops).toHaveLength(1)
      expect(build?.result).toBe('ABORTED')
      expect(r.stdout).toMatch(
        /Stopped waiting for Jenkins at .*: no answer to the console of build #\d+ of 'hang-log' after/
      )
      // Only the console hangs: the stop's own build reads see the build end.
      expect(errorAnnotation(r)).toMatch(
        /^The workflow was cancelled while waiting for Jenkins hang-log #\d+; stopped Jenkins build #\d+ \(stop; result ABORTED\)\.$/
      )
    })

    it('a build GET answered 503 with Retry-After: 50 (timeout: 10): no waiting it out, stop is sent, the step exits', async () => {
      const { r, build, stops } = await interruptWhile(
        'retry-after',
        { type: 'status', status: 503, retryAfterSec: 50 },
        { timeout: '10' }
      )
      expect(stops).toHaveLength(1)
      expect(build?.result).toBe('ABORTED')
      expect(errorAnnotation(r)).toMatch(
        /^The workflow was cancelled while waiting for Jenkins retry-after #\d+; sent stop to Jenkins build #\d+, but could not see it end: .+/
      )
    })
  })

  it("SIGINT: the abort continues the step's session, its stop the only request with no crumb asked first (own server)", async () => {
    const own = await startJenkins({
      quietPeriodSec: 0,
      jobs: { app: { script: { durationMs: 60_000, consoleLines: ['working'] } } }
    })
    try {
      const { r, sentAt, build } = await signalWhileBuilding(
        own,
        start(own, 'app'),
        'app',
        'SIGINT'
      )
      expect(build.result, describeRun(r)).toBe('ABORTED')
      expect(errorAnnotation(r)).toMatch(/stopped Jenkins build #\d+ \(stop; result ABORTED\)/)
      // One crumb for the whole run (the trigger's), and the stop carried it (an API token is exempt from the check, not from the header).
      expect(own.requests.filter(q => q.kind === 'crumb')).toHaveLength(1)
      const after = own.requests.filter(q => q.time >= sentAt && q.method === 'POST')
      expect(after.map(q => [q.path, q.status, q.crumbHeader])).toEqual([
        [`/job/app/${build.number}/stop`, 302, true]
      ])
    } finally {
      await own.close()
    }
  })

  describe('no trigger after a cancel (each on its own server: crumb and queue requests name no job)', () => {
    it('SIGINT while the crumb request hangs: the trigger is never sent, and nothing was started', async () => {
      const own = await startJenkins({
        quietPeriodSec: 0,
        jobs: { app: { script: { durationMs: 200 } } }
      })
      try {
        const fault = own.aim({ kind: 'crumb', effect: { type: 'hang' } })
        const action = start(own, 'app')
        await fault.hit
        // The job GET went alongside: the trigger is next, waiting for the crumb.
        await until(() => own.requests.some(q => q.kind === 'job' && q.status === 200))
        const sentAt = Date.now()
        action.child.kill('SIGINT')
        const r = await action.done
        figures.hangingSignalToExit.push(
          `hang on the crumb before the trigger: ${Date.now() - sentAt} ms`
        )
        expect(r.code, describeRun(r)).not.toBe(0)
        expect(errorAnnotation(r)).toBe(
          'The workflow was cancelled while waiting for Jenkins app; nothing was started in Jenkins.'
        )
        // Some time for a trigger that would still go out (it went out 943 ms later before).
        await new Promise(resolve => setTimeout(resolve, 1500))
        expect(own.requests.filter(q => q.kind === 'trigger')).toEqual([])
        expect(own.builds('app')).toEqual([])
      } finally {
        await own.close()
      }
    })

    it('SIGINT while a lost trigger answer is reconciled: no resend, and the item it queued is found and cancelled', async () => {
      const own = await startJenkins({
        quietPeriodSec: 0,
        jobs: {
          recon: {
            parameters: [{ name: 'RUN', type: 'string' }],
            script: { durationMs: 60_000, consoleLines: ['working'] }
          }
        }
      })
      try {
        // Another build runs first: recon is not concurrent, so ours stays queued.
        await fetch(`${own.url}/job/recon/buildWithParameters?delay=0sec&RUN=other`, {
          method: 'POST',
          headers: { authorization: AUTH64 }
        })
        // Jenkins queues ours, but the answer is lost; the reconciliation's first look hangs.
        own.setFaults({ kinds: ['trigger'], lostAnswerRate: 1, lostAs: [502] })
        const look = own.aim({ kind: 'queue', times: 1, effect: { type: 'hang' } })
        const action = startAction(
          { ...auth(own), job: 'recon', parameters: 'RUN=mine' },
          { node: NODE24, killAfterMs: 45_000 }
        )
        await look.hit
        action.child.kill('SIGINT')
        const r = await action.done
        expect(r.code, describeRun(r)).not.toBe(0)
        const mine = own.state.queue.filter(i => i.parameters.some(p => p.value === 'mine'))
        expect(mine, describeRun(r)).toHaveLength(1)
        expect(mine[0]?.cancelled, describeRun(r)).toBe(true)
        expect(errorAnnotation(r)).toBe(
          `The workflow was cancelled while waiting for Jenkins recon; cancelled Jenkins queue item ${mine[0]?.id} (found by its parameters: the trigger's answer never came).`
        )
        // One POST of ours besides the first build's: nothing was resent, then or later.
        await new Promise(resolve => setTimeout(resolve, 1500))
        const posts = own.requests.filter(q => q.kind === 'trigger' && q.job === 'recon')
        expect(posts.map(q => q.query)).toEqual(['delay=0sec&RUN=other', 'delay=0sec'])
        expect(posts[1]?.fault).toBe('lost')
        const first = own.builds('recon')[0]
        await fetch(`${own.url}/job/recon/${first?.number}/stop`, {
          method: 'POST',
          headers: { authorization: AUTH64 }
        })
      } finally {
        await own.close()
      }
    })
  })

  it('SIGINT while queued: the queue item is cancelled on the server', async () => {
    // `blocked` is not concurrent: a running build keeps the next one queued.
    const auth64 = `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`
    jenkins.state.findJob('blocked')!.script.durationMs = 30_000
    await fetch(`${jenkins.url}/job/blocked/build?delay=0sec`, {
      method: 'POST',
      headers: { authorization: auth64 }
    })
    const action = start(jenkins, 'blocked')
    await action.waitForOutput(/Waiting in the Jenkins queue/)
    const sentAt = Date.now()
    action.child.kill('SIGINT')
    const r = await action.done
    figures.signalToExitMs.push(Date.now() - sentAt)
    expect(r.code, describeRun(r)).not.toBe(0)
    const queueId = Number(savedWork(r.state).queueId)
    const item = jenkins.state.queue.find(i => i.id === queueId)
    expect(item?.cancelled).toBe(true)
    expect(errorAnnotation(r)).toMatch(/cancelled Jenkins queue item \d+/)
    expect(r.stdout).toContain(`Jenkins: cancelled Jenkins queue item ${queueId}.`)
    const first = jenkins.builds('blocked')[0]
    await fetch(`${jenkins.url}/job/blocked/${first?.number}/stop`, {
      method: 'POST',
      headers: { authorization: auth64 }
    })
  })

  describe('post step', () => {
    it('after the main step was killed mid-build: stops the build from saved state, exit 0', async () => {
      const main = start(jenkins, 'long')
      await main.waitForOutput(/Jenkins build .* started/)
      main.child.kill('SIGKILL')
      const killed = await main.done
      expect(killed.signal).toBe('SIGKILL')
      expect(killed.state['done']).toBe('false')
      const number = Number(savedWork(killed.state).number)
      expect(jenkins.builds('long').find(b => b.number === number)?.building).toBe(true)

      const post = await runAction(
        { ...auth(jenkins), job: 'long' },
        { node: NODE24, state: killed.state, killAfterMs: 45_000 }
      )
      expect(post.code, describeRun(post)).toBe(0)
      expect(jenkins.builds('long').find(b => b.number === number)?.result).toBe('ABORTED')
      expect(post.stdout).toMatch(/Post step: stopped Jenkins build #\d+ \(stop; result ABORTED\)/)
    })

    it('after a timeout whose stop could not reach Jenkins: the record is kept, and the post step stops the build', async () => {
      jenkins.addJob('unreached', {
        concurrent: true,
        script: { durationMs: 60_000, consoleLines: ['working'] }
      })
      // Every stop of this job hangs while the main step runs: its abort runs out of time.
      const fault = jenkins.aim({ kind: 'stop', job: 'unreached', effect: { type: 'hang' } })
      const main = await runAction(
        { ...auth(jenkins), job: 'unreached', timeout: '3' },
        { node: NODE24, killAfterMs: 45_000 }
      )
      fault.remove()
      expect(main.code, describeRun(main)).toBe(1)
      expect(errorAnnotation(main)).toMatch(
        /^Timed out after \d+ s \(timeout: 3 s\) waiting for Jenkins unreached #\d+; could not abort the Jenkins work \(see the warning above\)\.$/
      )
      expect(main.stdout).toContain('Jenkins: the post step will try again to stop it.')
      expect(main.state['done'], describeRun(main)).toBe('false')
      const number = Number(savedWork(main.state).number)
      expect(jenkins.builds('unreached').find(b => b.number === number)?.building).toBe(true)

      const post = await runAction(
        { ...auth(jenkins), job: 'unreached', timeout: '3' },
        { node: NODE24, state: main.state, killAfterMs: 45_000 }
      )
      expect(post.code, describeRun(post)).toBe(0)
      expect(jenkins.builds('unreached').find(b => b.number === number)?.result).toBe('ABORTED')
      expect(post.stdout).toMatch(/Post step: stopped Jenkins build #\d+ \(stop; result ABORTED\)/)
    })

    it('after the main step failed for another reason than cancel or timeout: the build is left running, said and linked, not stopped', async () => {
      jenkins.addJob('refused', { concurrent: true, script: { durationMs: 60_000 } })
      // Build reads are refused once the build started: a failure, not a cancel.
      const fault = jenkins.aim({
        kind: 'build',
        job: 'refused',
        effect: { type: 'status', status: 400 }
      })
      // log: false: the build JSON is polled while the build runs.
      const main = await runAction(
        { ...auth(jenkins), job: 'refused', log: 'false' },
        { node: NODE24, killAfterMs: 45_000 }
      )
      fault.remove()
      expect(main.code, describeRun(main)).not.toBe(0)
      const number = Number(savedWork(main.state).number)
      const url = `${jenkins.url}/job/refused/${number}/`
      expect(errorAnnotation(main)).toContain(
        `Jenkins build #${number} is still running: ${url} (this step stops Jenkins work only when it is cancelled or times out).`
      )
      expect(main.state['done']).toBe('true')
      const post = await runAction(
        { ...auth(jenkins), job: 'refused' },
        { node: NODE24, state: main.state, killAfterMs: 45_000 }
      )
      expect(post.code, describeRun(post)).toBe(0)
      expect(post.stdout).toContain(
        `Post step: the main step failed for another reason than cancel or timeout and left the Jenkins work running: ${url}`
      )
      const ours = ['stop', 'term', 'kill'].map(how => `/job/refused/${number}/${how}`)
      expect(jenkins.requests.filter(q => q.method === 'POST' && ours.includes(q.path))).toEqual([])
      expect(jenkins.builds('refused').find(b => b.number === number)?.building).toBe(true)
      await fetch(`${url}stop`, { method: 'POST', headers: { authorization: AUTH64 } })
    })

    it('against a Jenkins that hangs on every request: bounded (its budget is 15 s, its bound 20 s), warns, exit 0', async () => {
      jenkins.addJob('stuck', { concurrent: true, script: { durationMs: 60_000 } })
      const main = start(jenkins, 'stuck')
      await main.waitForOutput(/Jenkins build .* started/)
      main.child.kill('SIGKILL')
      const killed = await main.done
      const faults = (['stop', 'build'] as const).map(kind =>
        jenkins.aim({ kind, job: 'stuck', effect: { type: 'hang' } })
      )
      const post = await runAction(
        { ...auth(jenkins), job: 'stuck' },
        { node: NODE24, state: killed.state, killAfterMs: 60_000 }
      )
      for (const fault of faults) fault.remove()
      figures.post.push(`Jenkins hanging on every request: ${post.durationMs} ms`)
      expect(post.code, describeRun(post)).toBe(0)
      expect(post.durationMs, describeRun(post)).toBeLessThan(GENEROUS_MS + 15_000)
      expect(post.stdout).toMatch(
        /::warning::Could not abort the Jenkins work: Stopped waiting for Jenkins/
      )
      expect(post.stdout).toMatch(/Post step: could not abort the Jenkins work/)
      const number = Number(savedWork(killed.state).number)
      await fetch(`${jenkins.url}/job/stuck/${number}/stop`, {
        method: 'POST',
        headers: { authorization: AUTH64 }
      })
    })

    it('after a finished run: does nothing', async () => {
      const main = await runAction(
        { ...auth(jenkins), job: 'quick' },
        { node: NODE24, killAfterMs: 45_000 }
      )
      expect(main.code, describeRun(main)).toBe(0)
      const since = jenkins.requests.length
      const post = await runAction(
        { ...auth(jenkins), job: 'quick' },
        { node: NODE24, state: main.state, killAfterMs: 45_000 }
      )
      expect(post.code, describeRun(post)).toBe(0)
      expect(jenkins.requests.length).toBe(since)
      expect(post.stdout).not.toMatch(/::(warning|error)::/)
    })

    it('when Jenkins is unreachable: only warns, exit 0', async () => {
      const gone = await startJenkins({ jobs: { long: {} } })
      const url = gone.url
      await gone.close()
      const post = await runAction(
        { url, user: 'admin', token: ADMIN_TOKEN, job: 'long' },
        {
          node: NODE24,
          state: {
            isPost: 'true',
            builds: JSON.stringify([
              { job: ['long'], queueId: 3, number: 2, own: 1, shared: false }
            ]),
            done: 'false'
          },
          killAfterMs: 45_000
        }
      )
      expect(post.code, describeRun(post)).toBe(0)
      expect(post.stdout).toMatch(/::warning::.*(Connection refused|could not)/i)
      // Its own budget ran out; nothing stopped it.
      expect(post.stdout).not.toMatch(/the step was stopped/)
      expect(post.stdout).not.toMatch(/::error::/)
    })
  })
})
