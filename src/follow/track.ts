/**
 * One build of the schedule (schedule.ts): what is known of it, and its own
 * reads (its queue item, its console, its build) with their pace. Pure, as
 * the schedule: `now` is passed in.
 */
import type { Build, BuildRef, JobPath } from '../jenkins/model/types.js'
import {
  nextPoll,
  sawBuild,
  sawConsole,
  type Expectation,
  type NextPoll,
  type Watch
} from './poll-policy.js'
import type { ConsolePoll } from './log-stream.js'
import type { ToldReason } from './queue-reason.js'
import type { ScheduledRead, SchedulePolicy, TrackEvent } from './schedule-policy.js'

/** Where a track is, with what that phase has: its queue item, then its build and the build's watch. */
type TrackState =
  | { phase: 'queued'; queueId: number }
  | { phase: 'running'; ref: BuildRef; watch: Watch }
  | { phase: 'done' }

/** How a build is followed besides its end: its console (`console`: its reads tell the end), its pending inputs (`inputs`: a Pipeline). */
export interface FollowedParts {
  expect?: Expectation
  /** A build known to run, as read (build: last): its `timestamp` and Jenkins' estimate. */
  build?: Pick<Build, 'timestamp' | 'estimatedDuration'>
  console?: boolean
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

  constructor(
    readonly id: number,
    readonly job: JobPath,
    public state: TrackState,
    /** When it was added (a round judges only tracks it was sent for). */
    readonly addedAt: number,
    /** `drain`: only the console of a build that ended is read, until Jenkins closes it (schedule.ts addDrain). */
    readonly parts: FollowedParts & { drain?: boolean },
    private readonly policy: SchedulePolicy
  ) {
    this.sentAt = addedAt
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
export type RunningTrack = Track & { state: Extract<TrackState, { phase: 'running' }> }

export function isRunning(track: Track | undefined): track is RunningTrack {
  return track?.state.phase === 'running'
}
