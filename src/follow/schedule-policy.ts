/**
 * The schedule's settings, and what it asks for and reports (schedule.ts is
 * the schedule itself).
 */
import type { Build, BuildRef } from '../jenkins/model/types.js'
import { DEFAULT_POLL_POLICY } from './poll-policy.js'

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
  /** The console of a build that ended was read to its end (schedule.ts addDrain). */
  | { kind: 'drained'; track: number }
  | { kind: 'left-without-build'; track: number; queueId: number; cancelled: boolean }
