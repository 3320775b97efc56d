import { once } from 'node:events'
import { Interrupted, JenkinsError, unlessNotFound } from '../jenkins/transport/errors.js'
import { fullName } from '../jenkins/model/job-path.js'
import type { Build, BuildRef, JobPath } from '../jenkins/model/types.js'
import type { PipelineRun } from '../jenkins/reads/stages.js'
import type { BuildOutputsApi, JenkinsApi } from '../jenkins/client.js'
import type { Logger } from '../util/logger.js'
import { abortReason, sleep, StepAborted } from '../util/wait.js'
import {
  expectationFromEstimate,
  nextPoll,
  nextQueueDelay,
  sawBuild,
  sawConsole,
  watch
} from './poll-policy.js'
import { DEFAULT_SCHEDULE_POLICY, isRunning, isTransient, Track } from './schedule.js'
import type { ConsoleFollower, FollowedParts, SchedulePolicy, StartSeen } from './schedule.js'
import { buildNumberByQueueId, QueueItemEnded } from './queue-ended.js'
import { buildRef } from './build-parts.js'
import { Rounds } from './rounds.js'
import { formatDuration } from '../util/duration.js'
import { errorText } from '../util/error-text.js'

/** Fields polled while a build runs: enough to know whether it is over and when to look again. */
const POLL_TREE = 'number,url,building,result,duration,estimatedDuration,timestamp,queueId'

/** What the follower tells about each build, by the id `add…` returned. Called in order, never concurrently. */
interface FollowHooks {
  /** The item waits in the queue, for this (Jenkins' text, untrusted). */
  waiting(track: number, why: string): void
  started(track: number, ref: BuildRef, start: StartSeen): void
  /** The build ended: its full, final JSON. */
  ended(track: number, build: Build): void
  /** It cannot be followed further (cancelled in the queue, gone, refused). */
  failed(track: number, error: Error): void
  /** A running Pipeline's stages, looked at for a pending `input` (added with `inputs`). */
  inputs(track: number, run: PipelineRun): void
}

export interface BuildsFollowerOptions {
  api: JenkinsApi & Pick<BuildOutputsApi, 'describeRun'>
  hooks: FollowHooks
  logger: Logger
  /** Fires on cancel or timeout: run() ends with StepAborted. */
  signal: AbortSignal
  policy?: SchedulePolicy
}

/** Between the reads of a build the step told to stop (ms). */
const STOPPING_MS = 500
/** A running Pipeline's first look for a pending `input`, and the pause between looks (ms): an input waits for a person. */
const INPUT_FIRST_MS = 5000
const INPUT_EVERY_MS = 10_000

/**
 * Follows builds, one or several at once, with one client: the one polling
 * engine. It keeps each build's Track (schedule.ts), decides what to read
 * when (the rounds of the lists, rounds.ts; each build's own reads; the
 * shared budget of polls), carries out the reads of one moment
 * concurrently, and tells the hooks what they showed. A read that failed on
 * the way is tried again (Track.retry).
 *
 * It never guesses a build from `lastBuild` when a queue item is known:
 * with concurrent triggers that is how other actions end up reporting
 * someone else's build.
 */
export class BuildsFollower {
  private readonly tracks: Track[] = []
  private readonly policy: SchedulePolicy
  private readonly rounds: Rounds
  private lastPollAt = -Infinity
  private readonly inFlight = new Set<Promise<void>>()
  private wakeUp: (() => void) | undefined
  /** Work of the step's that may add reads (a console to drain): run() waits for it. */
  private readonly holds = new Set<Promise<void>>()
  private failure: unknown
  /** What a read in flight threw once the step was stopped. */
  private cut: unknown

  constructor(private readonly options: BuildsFollowerOptions) {
    this.policy = options.policy ?? DEFAULT_SCHEDULE_POLICY
    this.rounds = new Rounds(this.tracks, this.policy, options, (track, now, listed) => {
      const ref = buildRef(options.api, track.job, listed.number)
      this.startTrack(track, ref, now, { listed })
    })
  }

  /** Follows a queue item (just created, or found) to its build and the build to its end; returns its id for the hooks. */
  addQueued(job: JobPath, queueId: number, parts: Omit<FollowedParts, 'console'> = {}): number {
    const now = Date.now()
    const track = this.add(job, { phase: 'queued', queueId }, now, parts)
    this.rounds.queued(now)
    // Its own queue item, at once (the build usually starts at once).
    if (!this.rounds.covers(track)) track.readAt(now, { poll: true })
    return track.id
  }

  /**
   * Follows a build known to run to its end: as read (`build`), or as known
   * of its start; with a `console`, its console polls are the end signal
   * (Jenkins closes the log after `building` turns false), so no build JSON
   * is read while the console says the build goes on.
   */
  addRunning(ref: BuildRef, { build, ...parts }: Omit<FollowedParts, 'consoleOf'>): number {
    const now = Date.now()
    const track = this.add(ref.job, { phase: 'done' }, now, parts)
    this.startTrack(track, ref, now, { listed: build })
    this.rounds.at ??= now
    return track.id
  }

  /**
   * Reads the console of a build that ended to its end, on its own (never
   * budgeted), until Jenkins closes it, or followUpForMs (said in it);
   * rejects with what kept it from being read. Needs run() to be running
   * (hold() the work that calls it).
   */
  drain(ref: BuildRef, console: ConsoleFollower): Promise<void> {
    return new Promise((resolve, reject) => {
      const now = Date.now()
      const drained = watch({ console: true, startedAt: now, endSeenAt: now, endConfirmed: true })
      const track = this.add(ref.job, { phase: 'running', ref, watch: drained }, now, { console })
      track.next = 'console'
      track.direct = true
      track.readAt(now, { poll: false })
      track.drained = { resolve, reject }
    })
  }

  /** run() does not end before `work` settled (it may drain a console). */
  hold(work: Promise<unknown>): void {
    const held: Promise<void> = work
      .catch(() => undefined)
      .then(() => {
        this.holds.delete(held)
        this.wakeUp?.()
      })
    this.holds.add(held)
  }

  /** Stops following one build (its result is not wanted, it is left running, or its read failed for good). */
  drop(id: number): void {
    this.tracks[id]?.finish()
    this.wakeUp?.()
  }

  /**
   * Looks at a build (or queue item) the step just told to stop: its own
   * read now, the full JSON of a build, then every STOPPING_MS until it ended.
   */
  expedite(id: number): void {
    this.wakeUp?.()
    const track = this.tracks[id]
    if (!track || track.state.phase === 'done') return
    if (track.state.phase === 'running') {
      track.stopping = true
      track.wantFull = true
    }
    track.readAt(Date.now(), { poll: false })
  }

  /** Whether any build is still followed. */
  private get active(): boolean {
    return this.tracks.some(t => t.state.phase !== 'done')
  }

  /** Runs until no build is followed; on cancel or timeout throws what the read in flight threw, or StepAborted. */
  async run(): Promise<void> {
    const { signal } = this.options
    for (;;) {
      if (signal.aborted) {
        // It ends with what the reads in flight threw (the client's Interrupted:
        // what the step was waiting for, and the failure it was waiting out), else StepAborted.
        await Promise.allSettled([...this.inFlight])
        throw this.cut ?? new StepAborted(abortReason(signal))
      }
      if (this.failure !== undefined) throw this.failure
      const { started, nextAt } = this.due(Date.now())
      if (!this.active && this.inFlight.size === 0 && this.holds.size === 0) break
      if (started) continue
      await this.wait(nextAt === undefined ? undefined : nextAt - Date.now())
    }
    this.rounds.end()
  }

  // ---------------------------------------------------------------------------

  private add(job: JobPath, state: Track['state'], now: number, parts: Track['parts']): Track {
    const track = new Track(this.tracks.length, job, state, now, parts)
    this.tracks.push(track)
    this.wakeUp?.()
    return track
  }

  /** Until `ms` passed, a read ended, something was added, or the signal fired. */
  private async wait(ms: number | undefined): Promise<void> {
    const woken = new AbortController()
    this.wakeUp = () => woken.abort()
    const signal = AbortSignal.any([this.options.signal, woken.signal])
    const until = ms === undefined ? once(signal, 'abort') : sleep(Math.max(0, ms), signal)
    await until.catch(() => undefined)
    this.wakeUp = undefined
  }

  /**
   * Starts the reads due now (each track's in flight until it is reported):
   * whether it started any, and when to look again (epoch ms; undefined:
   * only once a read in flight ends).
   */
  private due(now: number): { started: boolean; nextAt: number | undefined } {
    const inFlight = this.inFlight.size
    const inputs: Array<() => Promise<void>> = []
    const polls: Array<{ at: number; track?: Track }> = []
    let nextAt: number | undefined
    const consider = (at: number): void => {
      nextAt = Math.min(nextAt ?? at, at)
    }
    for (const track of this.tracks) {
      const { state } = track
      if (state.phase === 'done') continue
      if (!track.inFlight && track.dueAt !== undefined) {
        // Urgent reads at once: they follow from what a round showed.
        if (track.duePoll) polls.push({ at: track.dueAt, track })
        else if (track.dueAt > now) consider(track.dueAt)
        else this.launch(this.ownRead(track, now))
      }
      // A running Pipeline's pending inputs: a read of their own, beside the build's.
      if (state.phase !== 'running' || track.inputsAt === undefined) continue
      if (track.inputsAt > now) consider(track.inputsAt)
      else {
        // None while one is in flight: its answer says when the next is.
        track.inputsAt = undefined
        inputs.push(() => this.inputs(track, state.ref))
      }
    }
    for (const look of inputs) this.launch(look())
    // Then one poll, if the budget allows: the round or the most overdue own poll.
    const round = this.rounds.due()
    if (round !== undefined) polls.unshift({ at: round })
    const [first, second] = polls.sort((a, b) => a.at - b.at)
    if (first) {
      const at = Math.max(first.at, this.lastPollAt + this.policy.pollGapMs)
      if (at > now) consider(at)
      else {
        this.lastPollAt = now
        if (first.track) this.launch(this.ownRead(first.track, now))
        else this.launch(this.rounds.read())
        if (second) consider(Math.max(second.at, now + this.policy.pollGapMs))
      }
    }
    // A read never settles at once: the reads started are the ones added.
    return { started: this.inFlight.size > inFlight, nextAt }
  }

  /** A track's own read (due only while it is followed): its queue item, its build, its console, or giving up on the console. */
  private async ownRead(track: Track, now: number): Promise<void> {
    const { state } = track
    if (state.phase === 'done') return
    // In flight until it is reported.
    track.inFlight = true
    track.sentAt = now
    track.dueAt = undefined
    if (state.phase === 'queued') return this.queueItem(track, state.queueId)
    if (track.next === 'build') return this.build(track, state.ref, { full: track.wantFull })
    if (track.next === 'console') return this.console(track)
    return this.giveUp(track, state.ref)
  }

  private launch(read: Promise<void>): void {
    const work = read
      .catch(error => {
        // A read cut by the cancel is the cancel's business (run() throws it).
        if (this.options.signal.aborted) {
          if (!isTransient(error)) this.cut ??= error
          return
        }
        this.failure ??= error
      })
      .finally(() => {
        this.inFlight.delete(work)
        this.wakeUp?.()
      })
    this.inFlight.add(work)
  }

  /** A look at a running Pipeline's stages for a pending input (again INPUT_EVERY_MS later); one that fails is tried at the next look. */
  private async inputs(track: Track, ref: BuildRef): Promise<void> {
    const { api, logger, hooks } = this.options
    const run = await api.describeRun(ref).catch((error: unknown) => {
      if (error instanceof Interrupted) throw error
      logger.debug(`Could not look for a pending input: ${errorText(error)}`)
      return 'failed' as const
    })
    // undefined: Jenkins has no stages to look at.
    track.inputsAt = run !== undefined && isRunning(track) ? Date.now() + INPUT_EVERY_MS : undefined
    if (run && run !== 'failed') hooks.inputs(track.id, run)
  }

  /**
   * What a track's own read gives; undefined when it failed: for good (the
   * track fails), or on the way (`said` in the debug log: Track.retry).
   */
  private attempt<T>(track: Track, read: Promise<T>, said?: string): Promise<T | undefined> {
    return read.catch((error: unknown) => {
      if (!isTransient(error)) return this.fail(track, error)
      if (said) this.options.logger.debug(`${said}, trying again: ${errorText(error)}`)
      track.retry(Date.now(), this.policy, errorText(error))
      return undefined
    })
  }

  /** Its own queue item (or, once it left, the build of its queue id), and what it showed. */
  private async queueItem(track: Track, queueId: number): Promise<void> {
    const askedAt = Date.now()
    const { api } = this.options
    const { job } = track
    const read = unlessNotFound(api.getQueueItem(queueId), null)
    let item = await this.attempt(track, read, 'Queue poll failed')
    const name = fullName(job)
    if (item === null) {
      // A left item is kept for 5 minutes, and none survive a restart
      // (jenkins-api.md 4): the build is found by its queue id instead.
      const byQueueId = buildNumberByQueueId(api, job, queueId).then(found => found ?? null)
      const number = await this.attempt(track, byQueueId)
      if (number === null) return this.fail(track, new QueueItemEnded('gone', queueId, name))
      item = number === undefined ? undefined : { id: queueId, executable: { number } }
    }
    if (!item) return
    const now = Date.now()
    track.inFlight = false
    if (track.state.phase !== 'queued') return
    const previous = track.askedAt ?? askedAt
    track.askedAt = askedAt
    const number = item.executable?.number
    if (number !== undefined) {
      const startSlackMs = Math.max(0, askedAt - previous)
      const seen = { seenAt: askedAt, startSlackMs, inQueueSince: item.inQueueSince }
      return this.startTrack(track, buildRef(api, job, number), now, { seen })
    }
    if (item.cancelled) return this.fail(track, new QueueItemEnded('cancelled', queueId, name))
    if (track.tell(item.why, now)) this.options.hooks.waiting(track.id, item.why)
    if (item._class?.endsWith('$LeftItem') || (item.why == null && item.executable === null)) {
      // The run is being created (briefly), or never was (the job was
      // disabled after queuing): a bounded while.
      track.leftAt ??= now
      if (now - track.leftAt > this.policy.leftWithoutBuildMs) {
        const left = `Queue item ${queueId} of ${name} left the queue without starting a build.`
        return this.fail(track, new JenkinsError('protocol', left))
      }
    }
    if (this.rounds.covers(track)) {
      const at = track.leftAt === undefined ? undefined : now + this.policy.poll.nearMs
      track.readAt(at, { poll: false })
    } else
      track.readAt(now + nextQueueDelay(track.queueAttempt++, this.policy.poll), { poll: true })
  }

  /** A build read on its own (`full`: its whole JSON), and what it showed. */
  private async build(track: Track, ref: BuildRef, { full }: { full: boolean }): Promise<void> {
    const read = this.options.api.getBuild(ref.job, ref.number, full ? {} : { tree: POLL_TREE })
    const build = await this.attempt(track, read, 'Build poll failed')
    if (!build) return
    const now = Date.now()
    track.inFlight = false
    if (!isRunning(track)) return
    // The end: a full read says it (after a failed console read, a read checks it first).
    if (track.next === 'give-up' || (full && !build.building && !track.checking)) {
      track.finish()
      return this.options.hooks.ended(track.id, build)
    }
    if (track.state.watch.console) {
      const seen = sawBuild(track.state.watch, now, build)
      if (track.checking) {
        // After a failed console read: whether the build is over.
        track.checking = false
        track.state.watch = build.building ? seen : { ...seen, endSeenAt: now, endConfirmed: true }
        return track.pace(this.policy.poll, this.policy.poll.nearMs)
      }
      // Still building with its console complete (never on Jenkins; handled anyway): its full JSON tells the end.
      track.state.watch = full ? { ...seen, logComplete: true } : seen
      return track.pace(this.policy.poll)
    }
    if (!build.building) {
      track.readAt(now, { poll: false })
      track.wantFull = true
      return
    }
    track.state.watch = sawBuild(track.state.watch, now, build)
    if (track.stopping) return track.readAt(now + STOPPING_MS, { poll: true })
    if (!track.direct) {
      // The list did not show a running build: followed on its own from now on.
      track.direct = true
      this.rounds.hides(now)
    }
    track.pace(this.policy.poll)
  }

  /**
   * A console read, and its news. `moreData` false: the log is complete, so
   * the build is over; one full read says so, never `result` alone, which a
   * Pipeline sets while it still runs (a drain knew it was over: it is done).
   */
  private async console(track: Track): Promise<void> {
    // A console read is due only for a build followed with its console.
    const { console } = track
    if (!console) return
    const poll = await this.attempt(track, console.poll(), 'Build poll failed')
    if (!poll) return
    track.consoleError = undefined
    track.inFlight = false
    const now = Date.now()
    if (!isRunning(track)) return
    const { drained } = track
    if (!poll.moreData && drained) {
      track.finish()
      return drained.resolve()
    }
    if (!poll.moreData) return track.readAtOnce(now, { full: true })
    track.state.watch = sawConsole(track.state.watch, now, poll, this.policy.poll)
    track.pace(this.policy.poll)
  }

  /** Jenkins has not closed the console of the finished build in time: said in it, then the build's final JSON (a drain: nothing more). */
  private async giveUp(track: Track, ref: BuildRef): Promise<void> {
    const { console, consoleError, drained } = track
    const after = `${formatDuration(this.policy.poll.followUpForMs)} after the build finished`
    console?.notice(
      consoleError === undefined
        ? `Jenkins has not closed the console of #${ref.number} ${after}; the rest is at ${ref.url}console`
        : `Could not read the rest of the console of #${ref.number} ${after} (${consoleError}); it is at ${ref.url}console`
    )
    if (!drained) return this.build(track, ref, { full: true })
    track.finish()
    drained.resolve()
  }

  /**
   * The track runs: its watch starts from what is known of its start
   * (`listed`: as a list or a read showed it; `seen`: when the step saw it
   * start, else now). A queued track's start is told to the hook, then its
   * console made (the hook says the start before the console opens).
   */
  private startTrack(
    track: Track,
    ref: BuildRef,
    now: number,
    { listed, seen }: { listed?: FollowedParts['build']; seen?: StartSeen }
  ): void {
    const queued = track.state.phase === 'queued'
    const console = (track.parts.console ?? track.parts.consoleOf) !== undefined
    track.runningSince = now
    track.leftAt = undefined
    track.next = console ? 'console' : 'build'
    if (track.parts.inputs) track.inputsAt = now + INPUT_FIRST_MS
    const start = seen ?? { seenAt: now, startSlackMs: 0 }
    let w = watch({
      console,
      startedAt: start.seenAt,
      startSlackMs: start.startSlackMs,
      expect: track.parts.expect ?? expectationFromEstimate(listed?.estimatedDuration)
    })
    if (listed) w = sawBuild(w, now, { building: true, ...listed })
    track.state = { phase: 'running', ref, watch: w }
    track.wantFull = false
    // Without the running list it is read on its own: a console from its start,
    // and a build the step did not start, at once.
    track.direct = !this.rounds.runningList
    const at = console || !queued ? now : now + nextPoll(w, now, this.policy.poll).delayMs
    track.readAt(track.direct ? at : undefined, { poll: true })
    if (!queued) return
    this.options.hooks.started(track.id, ref, start)
    if (this.active) track.console ??= track.parts.consoleOf?.(ref)
  }

  /** The track cannot be followed further: told to the drain or the hook. */
  private fail(track: Track, error: unknown): undefined {
    if (error instanceof Interrupted) throw error
    track.finish()
    const lost = error instanceof Error ? error : new Error(String(error))
    if (track.drained) track.drained.reject(lost)
    else this.options.hooks.failed(track.id, lost)
  }
}
