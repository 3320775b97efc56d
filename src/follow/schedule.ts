/**
 * The polling engine's settings (one build: ONE_BUILD_POLICY, its own queue
 * item, then its console or build; several: rounds of two lists for all,
 * one shared budget of polls), and each build's Track: what is known of it,
 * when its own reads are due (its pace, a retry). Pure (no I/O, `now` is passed in);
 * follow-builds.ts decides, from its watch (poll-policy.ts), and carries
 * out the reads. What the reads buy: docs/performance.md, "One build: when the
 * follower looks again" and "Several builds: one schedule of rounds". And
 * when a queue item's `why` is worth a log line (newsOfReason, below).
 */
import type { Build, BuildRef, JobPath } from '../jenkins/model/types.js'
import { JenkinsError } from '../jenkins/transport/errors.js'
import { DEFAULT_POLL_POLICY, nextPoll, nextQueueDelay } from './poll-policy.js'
import type { Expectation, NextPoll, PollPolicy, Watch } from './poll-policy.js'
import type { ConsoleStreamer } from './log-stream.js'

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

/** How a build was seen to start. */
export interface StartSeen {
  /** When the step saw it started (epoch ms): it started at most startSlackMs before. */
  seenAt: number
  startSlackMs: number
  /** Its queue item's `inQueueSince` (Jenkins' clock), when its queue item showed the start. */
  inQueueSince?: number
}

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
  /** The queue reason last told (newsOfReason). */
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
  /** The follower's (follow-builds.ts): its console (made by parts.consoleOf once it starts). */
  console?: ConsoleFollower
  /** Why the last console read failed, while the following ones fail too. */
  consoleError?: string
  /** A drain's promise (BuildsFollower.drain: only the console of a build that ended is read, until Jenkins closes it): settled when the console was read to its end, or could not be. */
  drained?: { resolve(): void; reject(error: Error): void }

  constructor(
    readonly id: number,
    readonly job: JobPath,
    public state: TrackState,
    /** When it was added (a round judges only tracks it was sent for). */
    readonly addedAt: number,
    readonly parts: FollowedParts
  ) {
    this.sentAt = addedAt
    this.console = parts.console
  }

  /** Its own next read at `at`: a budgeted poll (`poll`), or urgent (it follows from what a read showed). */
  readAt(at: number | undefined, { poll }: { poll: boolean }): void {
    this.dueAt = at
    this.duePoll = poll
  }

  /** Whether its queue reason `why` (seen at `now`) is worth a line (newsOfReason): remembered as told if so. */
  tell(why: string | null | undefined, now: number): why is string {
    const told = why ? newsOfReason(this.toldWhy, why, now) : undefined
    if (told) this.toldWhy = told
    return told !== undefined
  }

  /**
   * Its own read failed on the way (`error`): tried again after retryMs (0:
   * at its own pace). A console that keeps failing (a proxy that stalls it)
   * would hide the end until the timeout: before the end is seen, the
   * build's JSON says whether the build is over, and then the end's
   * follow-up applies (the rest read promptly, given up after followUpForMs).
   */
  retry(now: number, policy: SchedulePolicy, error: string): void {
    this.inFlight = false
    if (this.state.phase === 'done') return
    if (isRunning(this) && this.next === 'console') {
      // Said if the console is given up (giveUp).
      this.consoleError = error
      if (this.state.watch.endSeenAt !== undefined) this.pace(policy.poll, policy.poll.nearMs)
      else {
        this.checking = true
        this.readAtOnce(now, { full: false })
      }
    } else if (policy.retryMs > 0) this.dueAt = now + policy.retryMs
    else if (isRunning(this)) {
      this.checking = false
      this.pace(policy.poll, policy.poll.nearMs)
    } else this.dueAt = now + nextQueueDelay(this.queueAttempt++, policy.poll)
  }

  /** Its next own read at its watch's pace, counted from the start of the read that set it (`floorMs`: at least, after a failure). */
  pace(this: RunningTrack, poll: PollPolicy, floorMs = 0): void {
    const from = this.pacedFrom ?? this.sentAt
    this.pacedFrom = undefined
    const { watch } = this.state
    const next = nextPoll(watch, from, poll)
    this.next = next.read
    // Once the console is complete, only the full JSON tells the end.
    this.wantFull = watch.logComplete
    // A drain is the end's follow-up of a build already over: never held back by the budget.
    this.duePoll = !this.drained
    this.dueAt = from + Math.max(next.delayMs, floorMs)
  }

  /** Nothing more to follow of the track (no read of it is awaited any more). */
  finish(): void {
    this.state = { phase: 'done' }
    this.inFlight = false
  }

  /** A build read that follows at once from the last read (its pace counts from that one's start). */
  readAtOnce(now: number, { full }: { full: boolean }): void {
    this.pacedFrom = this.sentAt
    this.next = 'build'
    this.wantFull = full
    this.readAt(now, { poll: false })
  }
}

/** A track that runs: its build and its watch are known. */
export type RunningTrack = Track & { state: Extract<TrackState, { phase: 'running' }> }

export function isRunning(track: Track | undefined): track is RunningTrack {
  return track?.state.phase === 'running'
}

/**
 * When a queue item's `why` is worth a log line: the one rule for one `job`
 * and each item of `jobs` (the schedule applies it to every build it
 * follows). Jenkins counts its reasons down (`Build #2 is already in
 * progress (ETA: 38 sec)`, `In the quiet period. Expires in 4.3 sec`), so
 * the text changes at every poll while the reason stays the same: a reason
 * is told when its words change, and a countdown at most once a minute.
 */

/**
 * Shortest time between two lines for the same reason whose numbers changed (ms).
 * @internal
 */
export const SAME_REASON_EVERY_MS = 60_000

/**
 * A number, Jenkins' "N/A" for an unknown time (Executor.getEstimatedRemainingTime),
 * each with the unit hudson.Util.getTimeSpanString may put after it.
 */
const QUANTITY =
  /(?:\d+(?:[.,]\d+)?|N\/A)(?:\s*(?:ms|sec|secs|seconds?|min|mins|minutes?|hr|hrs|hours?|days?|mo|months?|yr|years?)\b)?/gi

/**
 * A reason's words: its numbers and time units left out, so that `38 sec`
 * and `1 min 5 sec` (or build #2 and #3) are the same reason.
 * @internal
 */
export function reasonWords(why: string): string {
  return why
    .replace(QUANTITY, '\uE000')
    .replace(/\uE000(?:\s*\uE000)*/g, '#')
    .replace(/\s+/g, ' ')
    .trim()
}

/** The reason last told for a queue item, and when. */
export interface ToldReason {
  words: string
  text: string
  at: number
}

/**
 * What to remember when `why` (seen at `now`) is worth a line after `told`;
 * undefined when it is not: the same text, or the same words within a minute.
 * @internal
 */
export function newsOfReason(
  told: ToldReason | undefined,
  why: string,
  now: number
): ToldReason | undefined {
  const words = reasonWords(why)
  const same = told?.words === words && (told.text === why || now - told.at < SAME_REASON_EVERY_MS)
  return same ? undefined : { words, text: why, at: now }
}

/** Failures worth riding out (the client already retried them): tried again, at a round's or the track's pace. */
export function isTransient(error: unknown): boolean {
  return error instanceof JenkinsError && ['network', 'server', 'timeout'].includes(error.kind)
}
