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

type Phase = 'queued' | 'running' | 'done'

/** One build the schedule follows: its queue item, then its build. */
export interface Track {
  id: number
  job: JobPath
  phase: Phase
  queueId?: number
  ref?: BuildRef
  /** Once running. */
  watch?: Watch
  /** What the job's history says, for when it starts. */
  expect?: Expectation
  /** The queue reason last told (queue-reason.ts). */
  toldWhy?: ToldReason
  /** Polled on its own: the running list is refused, or does not show this build. */
  direct: boolean
  /** When this track's own next read is due (epoch ms); undefined: the rounds cover it. */
  dueAt?: number
  /** Its own read is a poll (budgeted); else it follows from a round (urgent). */
  duePoll: boolean
  /** Its next own build read is the full JSON. */
  wantFull: boolean
  /** What its next own read of a running build is (the console, once followed with it). */
  next: NextPoll['read']
  /** When its last own read was sent: its watch's pace counts from there, so a slow answer does not stretch it. */
  sentAt?: number
  /** A read that follows at once from the last one counts the pace from that one's start. */
  pacedFrom?: number
  /** Its build read checks the end after a failed console read. */
  checking: boolean
  /** When the step learned it runs (a round judges only builds it knew of before it was sent). */
  runningSince?: number
  /** When its queue item was last read on its own (for the start's slack). */
  askedAt?: number
  queueAttempt: number
  /** When its queue item was first seen left without a build. */
  leftAt?: number
  /** When it was added (a round judges only tracks it was sent for). */
  addedAt: number
  /** The step told it to stop: read on its own until it ended. */
  stopping: boolean
  inFlight: boolean
}

/** Its own read, now: in flight until it is reported. */
export function ownRead(track: Track, now: number): ScheduledRead {
  track.inFlight = true
  track.sentAt = now
  track.dueAt = undefined
  if (track.phase === 'queued') {
    return { kind: 'queue-item', track: track.id, queueId: track.queueId as number }
  }
  const ref = track.ref as BuildRef
  if (track.next === 'build') return { kind: 'build', track: track.id, ref, full: track.wantFull }
  return { kind: track.next, track: track.id, ref }
}

/** Its next own read at its watch's pace, counted from the start of the read that set it (`floorMs`: at least, after a failure). */
export function pace(track: Track, policy: SchedulePolicy, floorMs = 0): void {
  const from = track.pacedFrom ?? (track.sentAt as number)
  track.pacedFrom = undefined
  const next = nextPoll(track.watch as Watch, from, policy.poll)
  track.next = next.read
  // Once the console is complete, only the full JSON tells the end.
  track.wantFull = track.watch?.logComplete ?? false
  track.duePoll = true
  track.dueAt = from + Math.max(next.delayMs, floorMs)
}

/** A build read that follows at once from the last read (its pace counts from that one's start). */
function readAtOnce(track: Track, now: number, full: boolean): void {
  track.pacedFrom = track.sentAt
  track.next = 'build'
  track.wantFull = full
  track.dueAt = now
  track.duePoll = false
}

/**
 * A console read's news. `moreData` false: the log is complete, so the
 * build is over; one full read says so, never `result` alone, which a
 * Pipeline sets while it still runs.
 */
export function consoleRead(track: Track, now: number, poll: ConsolePoll, p: SchedulePolicy): void {
  if (!poll.moreData) return readAtOnce(track, now, true)
  track.watch = sawConsole(track.watch as Watch, now, poll, p.poll)
  pace(track, p)
}

/**
 * A console read failed on the way. A console that keeps failing (a proxy
 * that stalls it) would hide the end until the timeout: before the end is
 * seen, the build's JSON says whether the build is over, and then the
 * end's follow-up applies (the rest of the console read promptly, given up
 * after followUpForMs).
 */
export function consoleFailed(track: Track, now: number, p: SchedulePolicy): void {
  if (track.watch?.endSeenAt !== undefined) return pace(track, p, p.poll.nearMs)
  track.checking = true
  readAtOnce(track, now, false)
}

/** A console-followed build's read: the end when the console is complete (`full`), else news for its watch. */
export function consoleBuildRead(
  track: Track,
  now: number,
  { build, full }: { build: Build; full: boolean },
  p: SchedulePolicy
): TrackEvent[] {
  const seen = sawBuild(track.watch as Watch, now, build)
  if (track.checking) {
    track.checking = false
    track.watch = build.building ? seen : { ...seen, endSeenAt: now, endConfirmed: true }
    pace(track, p, p.poll.nearMs)
    return []
  }
  if (full && !build.building) {
    track.phase = 'done'
    return [{ kind: 'ended', track: track.id, build }]
  }
  // Still building with its console complete (never on Jenkins; handled anyway): its full JSON tells the end.
  track.watch = full ? { ...seen, logComplete: true } : seen
  pace(track, p)
  return []
}
