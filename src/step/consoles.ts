/**
 * The builds' consoles (log-stream.ts), workflow commands stopped while
 * they print: a lone build's streams live in its group as it runs
 * (liveConsole); each of several is printed whole in its own group once
 * its build ended (printConsole). The engine's reads feed both.
 */
import { ConsoleStreamer, stopCommands, withCommandsStopped } from '../follow/log-stream.js'
import type { ConsoleFollower } from '../follow/schedule.js'
import { fullName } from '../jenkins/model/job-path.js'
import type { BuildRef } from '../jenkins/model/types.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import { errorText } from '../util/error-text.js'
import type { StepRun } from './bounded-step.js'
import type { StepItem } from './build-begun.js'
import type { BuildsRun } from './run-builds.js'

/** An item whose build's console may stream live: `live` while it does. */
export interface Streamed extends Pick<StepItem, 'entry'> {
  live?: { streamer: ConsoleStreamer; close(): void }
}

/**
 * The lone build's console: a maker the engine calls at the build's start,
 * which opens its group with workflow commands stopped; the engine's
 * console reads tell its end.
 */
export function liveConsole(step: StepRun, item: Streamed): (ref: BuildRef) => ConsoleFollower {
  const { api, io } = step
  return ref => {
    const streamer = new ConsoleStreamer(api, ref, io)
    io.startGroup(`Console of Jenkins ${item.entry.jobName} #${ref.number}`)
    const resume = stopCommands(text => io.write(text))
    item.live = {
      streamer,
      close: () => {
        if (!item.live) return
        item.live = undefined
        // Before commands resume: its lines must stay in the stopped region.
        streamer.flush()
        resume()
        io.endGroup()
      }
    }
    return streamer
  }
}

/**
 * A build that ended, printed whole in a group of its own after the groups
 * already asked for; the engine reads it until Jenkins closes it. A console
 * that cannot be read is said in the group: the build's result stands. Its
 * last lines.
 */
export function printConsole(
  { step, printer, follower }: Pick<BuildsRun, 'step' | 'printer' | 'follower'>,
  ref: BuildRef
): Promise<string[]> {
  const { api, signal } = step
  return printer.group(`Console of Jenkins ${fullName(ref.job)} #${ref.number}`, sink => {
    const streamer = new ConsoleStreamer(api, ref, sink)
    return withCommandsStopped(
      text => sink.write(text),
      async () => {
        try {
          await follower.drain(ref, streamer)
        } catch (error) {
          if (error instanceof Interrupted || signal.aborted) throw error
          streamer.notice(`Could not read the console: ${errorText(error)}`)
        } finally {
          // Before commands resume: its lines must stay in the stopped region.
          streamer.flush()
        }
        return streamer.tail()
      }
    )
  })
}
