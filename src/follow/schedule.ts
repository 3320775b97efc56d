/**
 * When to read what while builds are followed: the one polling engine, for
 * one build (`job`, ONE_BUILD_POLICY: its own queue item, then its console
 * or build) and for several (`jobs`: rounds of two lists for all, one
 * shared budget of polls). A pure schedule (no I/O, no clock of its own;
 * `now` is passed in), tested in virtual time: its settings, each build's
 * Track (its own reads and their pace), what it asks for and reports. One
 * watch per build (poll-policy.ts); follow-builds.ts carries out the reads.
 * What the reads buy: docs/performance.md, "One build: when the follower
 * looks again" and "Several builds: one schedule of rounds".
 */
import type {
  Build,
  BuildRef,
  JobPath,
  QueuedTask,
  QueueItem,
  RunningBuild
} from '../jenkins/model/types.js'
import { runningKey } from '../jenkins/reads/executors.js'
import { sameJob } from '../jenkins/model/job-path.js'
import {
  DEFAULT_POLL_POLICY,
  expectationFromEstimate,
  nextPoll,
  nextQueueDelay,
  sawBuild,
  sawConsole,
  watch,
  type Expectation,
  type NextPoll,
  type Watch
} from './poll-policy.js'
import type { ConsolePoll, ConsoleStreamer } from './log-stream.js'
import { newsOfReason, type ToldReason } from './queue-reason.js'

/**
 * A round serves every build, so its densest spacing is wider than one
 * build's (150 ms): in a simulation of twenty 1-minute builds whose lengths
 * (and histories) vary by ± 5 %, rounds at most every 400 ms near the
 * expected ends took 36 rounds a run (51 at 150 ms) for a median of 0.36 s
 * from an end (its log closed) to its report (0.28 s at 150 ms). Each
 * build's own requests (job, trigger, final read, console) make 4 a build
 * whatever the schedule: this keeps twenty 1-minute builds under 2
 * requests a second.
 */
export const DEFAULT_SCHEDULE_POLICY = {
  /** The watches' schedule (with rounds, its log-off part: rounds show no console). */
  poll: { ...DEFAULT_POLL_POLICY, nearMs: 400 },
  /** Shortest time between two polls of any kind (ms): the shared budget. At most 2.5 polls a second, whatever the number of builds. */
  pollGapMs: 400,
  /** Wait before a read that failed on the way (the client already retried it) is tried again (ms); 0: at the build's own pace, as one build has nothing to share its budget with. */
  retryMs: 1000,
  /** How long a queue item may stay left without a build before it is given up (ms). */
  leftWithoutBuildMs: 60_000,
  /** Whether rounds of the lists (`queue/api/json`, `computer/api/json`) watch the builds; without, each reads its own queue item and build, the first read at once. */
  rounds: true
}

/** The schedule's settings: DEFAULT_SCHEDULE_POLICY's fields. */
export type SchedulePolicy = typeof DEFAULT_SCHEDULE_POLICY

/**
 * One build (`job`): its own queue item and build, read at the watch's own
 * pace (densest 150 ms at the expected end), nothing to share a budget
 * with. A list would cost as much as the build's own read and show less.
 */
export const ONE_BUILD_POLICY: SchedulePolicy = {
  poll: DEFAULT_POLL_POLICY,
  pollGapMs: 0,
  retryMs: 0,
  leftWithoutBuildMs: 60_000,
  rounds: false
}

/** What to read now. */
export type ScheduledRead =
  /** The lists: the queue first when `queue`, then the running builds when `running`. */
  | { kind: 'round'; queue: boolean; running: boolean }
  /** One queue item (`queue/item/N/api/json`). */
  | { kind: 'queue-item'; track: number; queueId: number }
  /** One build: `full` for its final JSON, else the few fields a poll needs. */
  | { kind: 'build'; track: number; ref: BuildRef; full: boolean }
  /** What is new in a build's console (a build followed with its console). */
  | { kind: 'console'; track: number; ref: BuildRef }
  /** Jenkins kept the console of a finished build open too long: say so, then its full JSON, the end (a drain: just the end). */
  | { kind: 'give-up'; track: number; ref: BuildRef }
  /** A running Pipeline's stages, for a pending `input`. */
  | { kind: 'inputs'; track: number; ref: BuildRef }

/** How a build was seen to start. */
export interface StartSeen {
  /** When the step saw it started (epoch ms): it started at most startSlackMs before. */
  seenAt: number
  startSlackMs: number
  /** Its queue item's `inQueueSince` (Jenkins' clock), when its queue item showed the start. */
  inQueueSince?: number
}

/** What a read told about a build. */
export type TrackEvent =
  | { kind: 'waiting'; track: number; why: string }
  | ({ kind: 'started'; track: number; ref: BuildRef } & StartSeen)
  | { kind: 'ended'; track: number; build: Build }
  /** The console of a build that ended was read to its end (addDrain). */
  | { kind: 'drained'; track: number }
  | { kind: 'left-without-build'; track: number; queueId: number; cancelled: boolean }

/** Where a track is, with what that phase has: its queue item, then its build and the build's watch. */
type TrackState =
  | { phase: 'queued'; queueId: number }
  | { phase: 'running'; ref: BuildRef; watch: Watch }
  | { phase: 'done' }

/** Something that can stream the console: poll() shows what is new, notice() a line of ours among it. */
export type ConsoleFollower = Pick<ConsoleStreamer, 'poll' | 'notice'>

/** How a build is followed besides its end: its console (`console`: its reads tell the end), its pending inputs (`inputs`: a Pipeline). */
export interface FollowedParts {
  expect?: Expectation
  /** A build known to run, as read (build: last): its `timestamp` and Jenkins' estimate. */
  build?: Pick<Build, 'timestamp' | 'estimatedDuration'>
  /** Its console (a running build's), or how to make it once it starts (a queued build's): read by the follower (follow-builds.ts). */
  console?: ConsoleFollower
  consoleOf?: (ref: BuildRef) => ConsoleFollower
  inputs?: boolean
}

/** One build the schedule follows: its queue item, then its build. */
export class Track {
  /** The queue reason last told (queue-reason.ts). */
  toldWhy?: ToldReason
  /** Polled on its own: the running list is refused, or does not show this build. */
  direct = false
  /** When this track's own next read is due (epoch ms); undefined: the rounds cover it. */
  dueAt?: number
  /** Its own read is a poll (budgeted); else it follows from a round (urgent). */
  duePoll = true
  /** Its next own build read is the full JSON. */
  wantFull = false
  /** What its next own read of a running build is (the console, once followed with it). */
  next: NextPoll['read'] = 'build'
  /** When its last own read was sent: its watch's pace counts from there, so a slow answer does not stretch it. */
  sentAt: number
  /** A read that follows at once from the last one counts the pace from that one's start. */
  pacedFrom?: number
  /** Its build read checks the end after a failed console read. */
  checking = false
  /** When the step learned it runs (a round judges only builds it knew of before it was sent). */
  runningSince?: number
  /** When its queue item was last read on its own (for the start's slack). */
  askedAt?: number
  queueAttempt = 0
  /** When its queue item was first seen left without a build. */
  leftAt?: number
  /** The step told it to stop: read on its own until it ended. */
  stopping = false
  inFlight = false
  /** A Pipeline's pending inputs are looked at while it runs, when inputsAt comes. */
  inputsAt?: number
  inputsInFlight = false
  /** The follower's (follow-builds.ts): its console (made by parts.consoleOf once it starts). */
  console?: ConsoleFollower
  /** Why the last console read failed, while the following ones fail too. */
  consoleError?: string
  /** A drain's promise (BuildsFollower.drain): settled when the console was read to its end, or could not be. */
  drained?: { resolve(): void; reject(error: Error): void }

  constructor(
    readonly id: number,
    readonly job: JobPath,
    public state: TrackState,
    /** When it was added (a round judges only tracks it was sent for). */
    readonly addedAt: number,
    /** `drain`: only the console of a build that ended is read, until Jenkins closes it (addDrain). */
    readonly parts: FollowedParts & { drain?: boolean },
    private readonly policy: SchedulePolicy
  ) {
    this.sentAt = addedAt
    this.console = parts.console
  }

  /** Its own next read at `at`: a budgeted poll (`poll`), or urgent (it follows from what a read showed). */
  readAt(at: number | undefined, { poll }: { poll: boolean }): void {
    this.dueAt = at
    this.duePoll = poll
  }

  /** Nothing more to follow of the track. */
  finish(): void {
    this.state = { phase: 'done' }
  }

  /** Its own read, now: in flight until it is reported (none for a track that is done). */
  ownRead(now: number): ScheduledRead[] {
    const { state } = this
    if (state.phase === 'done') return []
    this.inFlight = true
    this.sentAt = now
    this.dueAt = undefined
    if (state.phase === 'queued')
      return [{ kind: 'queue-item', track: this.id, queueId: state.queueId }]
    const { ref } = state
    if (this.next === 'build') return [{ kind: 'build', track: this.id, ref, full: this.wantFull }]
    return [{ kind: this.next, track: this.id, ref }]
  }

  /** Its next own read at its watch's pace, counted from the start of the read that set it (`floorMs`: at least, after a failure). */
  pace(this: RunningTrack, floorMs = 0): void {
    const from = this.pacedFrom ?? this.sentAt
    this.pacedFrom = undefined
    const { watch } = this.state
    const next = nextPoll(watch, from, this.policy.poll)
    this.next = next.read
    // Once the console is complete, only the full JSON tells the end.
    this.wantFull = watch.logComplete
    // A drain is the end's follow-up of a build already over: never held back by the budget.
    this.duePoll = !this.parts.drain
    this.dueAt = from + Math.max(next.delayMs, floorMs)
  }

  /** A build read that follows at once from the last read (its pace counts from that one's start). */
  private readAtOnce(now: number, { full }: { full: boolean }): void {
    this.pacedFrom = this.sentAt
    this.next = 'build'
    this.wantFull = full
    this.readAt(now, { poll: false })
  }

  /**
   * A console read's news. `moreData` false: the log is complete, so the
   * build is over; one full read says so, never `result` alone, which a
   * Pipeline sets while it still runs (a drain knew it was over: it is done).
   */
  consoleRead(this: RunningTrack, now: number, poll: ConsolePoll): TrackEvent[] {
    if (!poll.moreData && this.parts.drain) {
      this.finish()
      return [{ kind: 'drained', track: this.id }]
    }
    if (!poll.moreData) this.readAtOnce(now, { full: true })
    else {
      this.state.watch = sawConsole(this.state.watch, now, poll, this.policy.poll)
      this.pace()
    }
    return []
  }

  /**
   * A console read failed on the way. A console that keeps failing (a proxy
   * that stalls it) would hide the end until the timeout: before the end is
   * seen, the build's JSON says whether the build is over, and then the
   * end's follow-up applies (the rest of the console read promptly, given up
   * after followUpForMs).
   */
  consoleFailed(this: RunningTrack, now: number): void {
    if (this.state.watch.endSeenAt !== undefined) return this.pace(this.policy.poll.nearMs)
    this.checking = true
    this.readAtOnce(now, { full: false })
  }

  /** A console-followed build's read: the end when the console is complete (`full`), else news for its watch. */
  consoleBuildRead(
    this: RunningTrack,
    now: number,
    { build, full }: { build: Build; full: boolean }
  ): TrackEvent[] {
    const seen = sawBuild(this.state.watch, now, build)
    if (this.checking) {
      this.checking = false
      this.state.watch = build.building ? seen : { ...seen, endSeenAt: now, endConfirmed: true }
      this.pace(this.policy.poll.nearMs)
      return []
    }
    if (full && !build.building) {
      this.finish()
      return [{ kind: 'ended', track: this.id, build }]
    }
    // Still building with its console complete (never on Jenkins; handled anyway): its full JSON tells the end.
    this.state.watch = full ? { ...seen, logComplete: true } : seen
    this.pace()
    return []
  }
}

/** A track that runs: its build and its watch are known. */
type RunningTrack = Track & { state: Extract<TrackState, { phase: 'running' }> }

function isRunning(track: Track | undefined): track is RunningTrack {
  return track?.state.phase === 'running'
}

/** Between the reads of a build the step told to stop (ms). */
const STOPPING_MS = 500
/** A running Pipeline's first look for a pending `input`, and the pause between looks (ms): an input waits for a person. */
const INPUT_FIRST_MS = 5000
const INPUT_EVERY_MS = 10_000

/** One schedule for the builds of one step. */
export class SharedSchedule {
  private readonly tracks: Track[] = []
  /** Whether `queue/api/json` may be read (refused: never again). */
  private queueList: boolean
  /** Whether `computer/api/json` may be read. */
  private runningList: boolean
  /** Some build was ever seen in the running list: it shows ours. */
  private runningListShowed = false
  private roundAt: number | undefined
  private roundAttempt = 0
  private roundInFlight = false
  private roundFailedAt: number | undefined
  private lastPollAt = -Infinity

  /** `refOf` makes a build's reference (its URL on the configured base). */
  constructor(
    private readonly refOf: (job: JobPath, number: number) => BuildRef,
    private readonly policy: SchedulePolicy = DEFAULT_SCHEDULE_POLICY
  ) {
    this.queueList = policy.rounds
    this.runningList = policy.rounds
  }

  /** A build whose queue item was just created (or found). */
  addQueued(job: JobPath, queueId: number, now: number, parts: FollowedParts = {}): number {
    const track = this.add(job, { phase: 'queued', queueId }, now, parts)
    // The first round comes at the queue's first pace from now.
    if (
      this.roundAt === undefined ||
      this.tracks.filter(t => t.state.phase === 'queued').length === 1
    ) {
      this.roundAt = now
      this.roundAttempt = 0
    }
    if (!this.coveredByRound(track)) {
      // Its own queue item, at once (the build usually starts at once).
      track.readAt(now, { poll: true })
    }
    return track.id
  }

  /** A build known to run; `console`: its console is read, and tells its end. */
  addRunning(ref: BuildRef, now: number, { build, ...parts }: FollowedParts): number {
    const track = this.add(ref.job, { phase: 'done' }, now, parts)
    this.startTrack(track, ref, now, { listed: build })
    // No round watches it: its first read at once (a console from its start).
    if (track.direct) track.dueAt = now
    this.roundAt ??= now
    return track.id
  }

  /**
   * The console of a build that ended, read on its own (never budgeted) from
   * `now` until Jenkins closes it ('drained'), or given up after followUpForMs.
   */
  addDrain(ref: BuildRef, now: number, console: ConsoleFollower): number {
    const drained = watch({ console: true, startedAt: now, endSeenAt: now, endConfirmed: true })
    const state = { phase: 'running', ref, watch: drained } as const
    const track = this.add(ref.job, state, now, { console, drain: true })
    track.next = 'console'
    track.direct = true
    track.readAt(now, { poll: false })
    return track.id
  }

  /** A track added (every id the schedule reports is one). */
  track(id: number): Track {
    const track = this.tracks[id]
    if (!track) throw new Error(`SharedSchedule: no build ${id}`)
    return track
  }

  /** Whether any build is still followed. */
  get active(): boolean {
    return this.tracks.some(t => t.state.phase !== 'done')
  }

  /** Whether the running list is still read (false once Jenkins refused it or showed none of ours). */
  get usesRunningList(): boolean {
    return this.runningList
  }

  /** Stops following a build (its result is not wanted, it is left running, or its read failed for good). */
  drop(id: number): void {
    this.settled(id)?.finish()
  }

  /**
   * A build (or queue item) the step just told to stop: its own read now,
   * the full JSON of a build, then every STOPPING_MS until it ended.
   */
  expedite(id: number, now: number): void {
    const track = this.tracks[id]
    if (!track || track.state.phase === 'done') return
    if (track.state.phase === 'running') {
      track.stopping = true
      track.wantFull = true
    }
    track.readAt(now, { poll: false })
  }

  /**
   * The reads to start now (marked in flight until they are reported), and
   * when to ask again (epoch ms; undefined: only once a read in flight ends).
   */
  due(now: number): { reads: ScheduledRead[]; nextAt: number | undefined } {
    const reads: ScheduledRead[] = []
    const inputs: ScheduledRead[] = []
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
        else reads.push(...track.ownRead(now))
      }
      // A running Pipeline's pending inputs: a read of their own, beside the build's.
      if (state.phase !== 'running' || track.inputsAt === undefined || track.inputsInFlight)
        continue
      if (track.inputsAt > now) consider(track.inputsAt)
      else {
        track.inputsInFlight = true
        inputs.push({ kind: 'inputs', track: track.id, ref: state.ref })
      }
    }
    reads.push(...inputs)
    // Then one poll, if the budget allows: the round or the most overdue own poll.
    const round = this.roundDue()
    if (round !== undefined) polls.unshift({ at: round })
    const [first, second] = polls.sort((a, b) => a.at - b.at)
    if (first) {
      const at = Math.max(first.at, this.lastPollAt + this.policy.pollGapMs)
      if (at > now) consider(at)
      else {
        this.lastPollAt = now
        if (first.track) reads.push(...first.track.ownRead(now))
        else {
          this.roundInFlight = true
          const queue =
            this.queueList && this.tracks.some(t => t.state.phase === 'queued' && !t.inFlight)
          reads.push({ kind: 'round', queue, running: this.runningList })
        }
        if (second) consider(Math.max(second.at, now + this.policy.pollGapMs))
      }
    }
    return { reads, nextAt }
  }

  /** A round's answers: what each list showed (undefined: not read). */
  sawRound(
    sentAt: number,
    now: number,
    seen: { queue?: QueuedTask[] | 'refused'; running?: RunningBuild[] | 'refused' }
  ): TrackEvent[] {
    this.roundInFlight = false
    this.roundFailedAt = undefined
    this.roundAt = sentAt
    if (this.tracks.some(t => t.state.phase === 'queued')) this.roundAttempt++
    if (seen.queue === 'refused') {
      this.queueList = false
      this.uncoverQueued(now)
    }
    if (seen.running === 'refused') this.refuseRunningList(now)
    const events: TrackEvent[] = []
    const queued = Array.isArray(seen.queue)
      ? new Map(seen.queue.map(item => [item.id, item]))
      : undefined
    const list = Array.isArray(seen.running) ? seen.running : undefined
    const running = list && {
      byKey: new Map(list.map(build => [runningKey(build.job, build.number), build])),
      byQueueId: new Map(
        list.flatMap(build =>
          build.queueId === undefined ? [] : [[build.queueId, build] as const]
        )
      )
    }
    // Some build of ours ever seen there: the list shows ours.
    this.runningListShowed ||= this.tracks.some(({ state }) =>
      state.phase === 'running'
        ? running?.byKey.has(runningKey(state.ref.job, state.ref.number))
        : state.phase === 'queued' && running?.byQueueId.has(state.queueId)
    )
    for (const track of this.tracks) {
      const { state } = track
      if (state.phase === 'done' || track.inFlight || track.addedAt > sentAt) continue
      if (state.phase === 'queued') {
        const started = running?.byQueueId.get(state.queueId)
        const waiting = queued?.get(state.queueId)
        if (started && sameJob(started.job, track.job)) {
          const ref = this.refOf(track.job, started.number)
          events.push(this.startTrack(track, ref, now, { listed: started }))
        } else if (waiting) events.push(...waitingNews(track, waiting.why, now))
        // Neither list shows it: its own queue item says what became of it.
        else if (queued || running) track.readAt(now, { poll: false })
      } else if (!track.direct && running) {
        const listed = running.byKey.get(runningKey(state.ref.job, state.ref.number))
        if (listed) {
          state.watch = sawBuild(state.watch, now, { building: true, ...listed })
        } else if ((track.runningSince ?? 0) <= sentAt) {
          // Ended (or not shown to us): one full read says which.
          track.readAt(now, { poll: false })
          track.wantFull = true
        }
      }
    }
    return events
  }

  /** A round that failed on the way: tried again after retryMs. */
  roundFailed(now: number): void {
    this.roundInFlight = false
    this.roundFailedAt = now
  }

  /** A queue item read on its own, at `askedAt`. */
  sawQueueItem(id: number, askedAt: number, now: number, item: QueueItem): TrackEvent[] {
    const track = this.settled(id)
    if (track?.state.phase !== 'queued') return []
    const previous = track.askedAt ?? askedAt
    track.askedAt = askedAt
    const number = item.executable?.number
    if (number !== undefined) {
      const startSlackMs = Math.max(0, askedAt - previous)
      const seen = { seenAt: askedAt, startSlackMs, inQueueSince: item.inQueueSince }
      return [this.startTrack(track, this.refOf(track.job, number), now, { seen })]
    }
    const { queueId } = track.state
    if (item.cancelled) {
      track.finish()
      return [{ kind: 'left-without-build', track: id, queueId, cancelled: true }]
    }
    const events = waitingNews(track, item.why, now)
    if (item._class?.endsWith('$LeftItem') || (item.why == null && item.executable === null)) {
      // The run is being created (briefly), or never was (the job was
      // disabled after queuing): a bounded while.
      track.leftAt ??= now
      if (now - track.leftAt > this.policy.leftWithoutBuildMs) {
        track.finish()
        return [...events, { kind: 'left-without-build', track: id, queueId, cancelled: false }]
      }
    }
    if (this.coveredByRound(track)) {
      const at = track.leftAt === undefined ? undefined : now + this.policy.poll.nearMs
      track.readAt(at, { poll: false })
    } else
      track.readAt(now + nextQueueDelay(track.queueAttempt++, this.policy.poll), { poll: true })
    return events
  }

  /** A build read on its own (`full`: its whole JSON). */
  sawBuild(
    id: number,
    now: number,
    { build, full }: { build: Build; full: boolean }
  ): TrackEvent[] {
    const track = this.settled(id)
    if (!isRunning(track)) return []
    const { console } = track.state.watch
    if (track.next === 'give-up' || (!console && full && !build.building)) {
      track.finish()
      return [{ kind: 'ended', track: id, build }]
    }
    if (console) return track.consoleBuildRead(now, { build, full })
    if (!build.building) {
      track.readAt(now, { poll: false })
      track.wantFull = true
      return []
    }
    track.state.watch = sawBuild(track.state.watch, now, build)
    if (track.stopping) {
      track.readAt(now + STOPPING_MS, { poll: true })
      return []
    }
    if (!track.direct) {
      // The list did not show a running build: it hides it (a plugin's
      // ComputerSource, permissions). Followed on its own from now on; the
      // list is dropped when it never showed any of ours.
      track.direct = true
      if (!this.runningListShowed) this.refuseRunningList(now)
    }
    track.pace()
    return []
  }

  /** A console read's news (Track.consoleRead); a drained console ends its track. */
  sawConsole(id: number, now: number, poll: ConsolePoll): TrackEvent[] {
    const track = this.settled(id)
    return isRunning(track) ? track.consoleRead(now, poll) : []
  }

  /** A look at a running Pipeline's inputs (`more`: look again later; false: Jenkins has no stages to look at). */
  sawInputs(id: number, now: number, { more }: { more: boolean }): void {
    const track = this.tracks[id]
    if (!track) return
    track.inputsInFlight = false
    track.inputsAt = more && isRunning(track) ? now + INPUT_EVERY_MS : undefined
  }

  /** A track's own read failed on the way: a console's as Track.consoleFailed says, others tried again after retryMs (0: at its own pace). */
  readFailed(id: number, now: number): void {
    const track = this.settled(id)
    if (!track || track.state.phase === 'done') return
    if (isRunning(track) && track.next === 'console') {
      track.consoleFailed(now)
    } else if (this.policy.retryMs > 0) {
      track.dueAt = now + this.policy.retryMs
    } else if (isRunning(track)) {
      track.checking = false
      track.pace(this.policy.poll.nearMs)
    } else {
      track.dueAt = now + nextQueueDelay(track.queueAttempt++, this.policy.poll)
    }
  }

  // ---------------------------------------------------------------------------

  private add(job: JobPath, state: Track['state'], now: number, parts: Track['parts']): Track {
    const track = new Track(this.tracks.length, job, state, now, parts, this.policy)
    this.tracks.push(track)
    return track
  }

  /**
   * The track runs: its watch starts from what is known of its start
   * (`listed`: as a list or a read showed it; `seen`: when the step saw it
   * start, else now). Returns the event that says so.
   */
  private startTrack(
    track: Track,
    ref: BuildRef,
    now: number,
    {
      listed,
      seen
    }: { listed?: Pick<RunningBuild, 'timestamp' | 'estimatedDuration'>; seen?: StartSeen }
  ): TrackEvent {
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
    if (this.runningList) {
      track.direct = false
      track.dueAt = undefined
    } else {
      track.direct = true
      track.duePoll = true
      // A console from its start, at once.
      track.dueAt = console ? now : now + nextPoll(w, now, this.policy.poll).delayMs
    }
    return { kind: 'started', track: track.id, ref, ...start }
  }

  /** When the next round is due; undefined when no round is needed or one is in flight. */
  private roundDue(): number | undefined {
    if (this.roundInFlight || this.roundAt === undefined) return undefined
    if (this.roundFailedAt !== undefined) return this.roundFailedAt + this.policy.retryMs
    let at: number | undefined
    if (this.tracks.some(t => !t.inFlight && this.coveredByRound(t)))
      at = this.roundAt + nextQueueDelay(this.roundAttempt, this.policy.poll)
    if (!this.runningList) return at
    for (const track of this.tracks) {
      if (!isRunning(track) || track.direct || track.inFlight || track.dueAt !== undefined) continue
      const { watch } = track.state
      const when = this.roundAt + nextPoll(watch, this.roundAt, this.policy.poll).delayMs
      at = Math.min(at ?? when, when)
    }
    return at
  }

  /** Whether rounds watch a queued track (else its queue item is read on its own). */
  private coveredByRound(track: Track): boolean {
    return (this.runningList || this.queueList) && track.state.phase === 'queued'
  }

  /** Queued tracks no round watches any more read their queue items on their own. */
  private uncoverQueued(now: number): void {
    for (const track of this.tracks) {
      const own = track.state.phase === 'queued' && !this.coveredByRound(track)
      if (own && track.dueAt === undefined) track.readAt(now, { poll: true })
    }
  }

  private refuseRunningList(now: number): void {
    if (!this.runningList) return
    this.runningList = false
    for (const track of this.tracks) {
      if (!isRunning(track) || track.direct) continue
      track.direct = true
      track.duePoll = true
      track.dueAt ??= now
    }
    this.uncoverQueued(now)
  }

  /** The track a read was for, no longer in flight. */
  private settled(id: number): Track | undefined {
    const track = this.tracks[id]
    if (track) track.inFlight = false
    return track
  }
}

/** The track's queue reason, when it is worth a line (queue-reason.ts). */
function waitingNews(track: Track, why: string | null | undefined, now: number): TrackEvent[] {
  if (!why) return []
  const told = newsOfReason(track.toldWhy, why, now)
  if (!told) return []
  track.toldWhy = told
  return [{ kind: 'waiting', track: track.id, why }]
}
