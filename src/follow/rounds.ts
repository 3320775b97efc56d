/**
 * The rounds of the two lists that watch several builds at once (the queue,
 * `queue/api/json`, then the running builds, `computer/api/json`): when the
 * next round is due, its reads, and each track judged from what they
 * showed. A list Jenkins refuses, or that hides our builds, is not read
 * again: the builds it watched are read on their own. The engine
 * (follow-builds.ts) launches a round within its budget of polls; with
 * ONE_BUILD_POLICY there are none.
 */
import { Interrupted } from '../jenkins/transport/errors.js'
import { sameJob } from '../jenkins/model/job-path.js'
import type { QueuedTask } from '../jenkins/model/types.js'
import { runningKey, type RunningBuild } from '../jenkins/reads/executors.js'
import { errorText } from '../util/error-text.js'
import { nextPoll, nextQueueDelay, sawBuild } from './poll-policy.js'
import { isRunning, isTransient, type SchedulePolicy, type Track } from './schedule.js'
import type { JenkinsApi } from '../jenkins/client.js'
import type { Logger } from '../util/logger.js'

/** How long a list read may retry before the round gives up on it (ms): the next round is better. */
const LIST_READ_MS = 10_000

/** What the rounds use of the engine's options (follow-builds.ts). */
interface RoundsOptions {
  api: Pick<JenkinsApi, 'getQueue' | 'runningBuilds'>
  logger: Logger
  hooks: { waiting(track: number, why: string): void }
}

/** The rounds of the engine's tracks (the same array), and which lists they may still read. */
export class Rounds {
  /** Whether `queue/api/json` may be read (refused: never again). */
  private queueList: boolean
  /** Whether `computer/api/json` may be read. */
  runningList: boolean
  /** Some build was ever seen in the running list: it shows ours. */
  private runningListShowed = false
  /** When the last round was sent (its pace counts from there); undefined: none is needed yet. */
  at: number | undefined
  private attempt = 0
  private inFlight = false
  private failedAt: number | undefined

  constructor(
    private readonly tracks: readonly Track[],
    private readonly policy: SchedulePolicy,
    private readonly options: RoundsOptions,
    /** A queued track's build started, as the running list showed it: the engine runs it. */
    private readonly started: (track: Track, now: number, listed: RunningBuild) => void
  ) {
    this.queueList = policy.rounds
    this.runningList = policy.rounds
  }

  /** A queue item was added: the first round comes at the queue's first pace from now. */
  queued(now: number): void {
    if (this.at === undefined || this.tracks.filter(t => t.state.phase === 'queued').length === 1) {
      this.at = now
      this.attempt = 0
    }
  }

  /** Whether rounds watch a queued track (else its queue item is read on its own). */
  covers(track: Track): boolean {
    return (this.runningList || this.queueList) && track.state.phase === 'queued'
  }

  /** When the next round is due; undefined when no round is needed or one is in flight. */
  due(): number | undefined {
    if (this.inFlight || this.at === undefined) return undefined
    if (this.failedAt !== undefined) return this.failedAt + this.policy.retryMs
    let at: number | undefined
    if (this.tracks.some(t => !t.inFlight && this.covers(t)))
      at = this.at + nextQueueDelay(this.attempt, this.policy.poll)
    // Without the running list every running track is read on its own (direct).
    for (const track of this.tracks) {
      if (!isRunning(track) || track.direct || track.inFlight || track.dueAt !== undefined) continue
      const when = this.at + nextPoll(track.state.watch, this.at, this.policy.poll).delayMs
      at = Math.min(at ?? when, when)
    }
    return at
  }

  /** A round: the queue first (while a queued track's own read is not in flight), then the running builds, each list while Jenkins gives it; then each track judged from what they showed. */
  async read(): Promise<void> {
    const { api, logger } = this.options
    const sentAt = Date.now()
    this.inFlight = true
    const readQueue =
      this.queueList && this.tracks.some(t => t.state.phase === 'queued' && !t.inFlight)
    const readRunning = this.runningList
    let queue: QueuedTask[] | 'refused' | undefined
    let list: RunningBuild[] | 'refused' | undefined
    try {
      // The queue first: an item that leaves it meanwhile is on its executor by the second read.
      if (readQueue) queue = await this.list('the queue (queue/api/json)', api.getQueue())
      if (readRunning) {
        const listed = api.runningBuilds({ deadline: Date.now() + LIST_READ_MS })
        list = await this.list('the running builds (computer/api/json)', listed)
      }
    } catch (error) {
      if (!isTransient(error)) throw error
      logger.debug(`A look at the builds failed, trying again: ${errorText(error)}`)
      // Tried again after retryMs.
      this.inFlight = false
      this.failedAt = Date.now()
      return
    }
    // What each list showed (undefined: not read).
    const now = Date.now()
    this.inFlight = false
    this.failedAt = undefined
    this.at = sentAt
    if (this.tracks.some(t => t.state.phase === 'queued')) this.attempt++
    if (queue === 'refused') this.refuse('queueList', now)
    if (list === 'refused') this.refuse('runningList', now)
    const queued = Array.isArray(queue) ? new Map(queue.map(item => [item.id, item])) : undefined
    const running = Array.isArray(list)
      ? {
          byKey: new Map(list.map(build => [runningKey(build.job, build.number), build])),
          // A build without a queue id is under the key no queue item looks up.
          byQueueId: new Map(list.map(build => [build.queueId, build]))
        }
      : undefined
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
          this.started(track, now, started)
        } else if (waiting) {
          if (track.tell(waiting.why, now)) this.options.hooks.waiting(track.id, waiting.why)
        }
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
  }

  /** A running build its own read found the running list did not show: the list hides it (a plugin's ComputerSource, permissions), and is dropped when it never showed any of ours. */
  hides(now: number): void {
    if (!this.runningListShowed) this.refuse('runningList', now)
  }

  /** Said at the end when the builds were followed without the running list. */
  end(): void {
    if (!this.policy.rounds || this.runningList) return
    const why = 'Jenkins did not show them in computer/api/json'
    this.options.logger.debug(`Followed the builds one by one: ${why}.`)
  }

  /** A list, or 'refused' when Jenkins will not give it (the builds are then read one by one). */
  private list<T>(what: string, read: Promise<T>): Promise<T | 'refused'> {
    return read.catch((error: unknown) => {
      if (error instanceof Interrupted || isTransient(error)) throw error
      this.options.logger.debug(
        `Jenkins refused ${what}: reading each build on its own instead (${errorText(error)})`
      )
      return 'refused' as const
    })
  }

  /**
   * A list Jenkins refused, or that hides our builds, is not read again:
   * the builds it watched, and the queue items no round watches any more,
   * are read on their own (budgeted).
   */
  private refuse(list: 'queueList' | 'runningList', now: number): void {
    if (!this[list]) return
    this[list] = false
    for (const track of this.tracks) {
      const { phase } = track.state
      const own =
        phase === 'running'
          ? !track.direct && !this.runningList
          : phase === 'queued' && !this.covers(track) && track.dueAt === undefined
      if (!own) continue
      track.direct = true
      track.duePoll = true
      track.dueAt ??= now
    }
  }
}
