import { Interrupted } from '../jenkins/transport/errors.js'
import { fullName } from '../jenkins/model/job-path.js'
import type { BuildRef, JenkinsApi } from '../jenkins/model/types.js'
import { ConsoleStreamer, withCommandsStopped } from '../follow/log-stream.js'
import { DEFAULT_POLL_POLICY, type PollPolicy } from '../follow/poll-policy.js'
import { consoleLeftOpen } from '../follow/follow-builds.js'
import { sleep } from '../util/wait.js'
import type { Printer } from './printer.js'
import { errorText } from '../util/error-text.js'

/**
 * Prints a build that ended: its whole console in a group of its own, with
 * workflow commands stopped (log-stream.ts: the console is Jenkins text),
 * after the groups already asked for. A build seen ended by the running list
 * has its log closed (its executor is freed last), so one read is the rule;
 * a build seen ended by its own read may still be closing its log: what is
 * new is fetched every followUpMs, for at most followUpForMs. A console that
 * cannot be read is said in the group: the build's result stands. Returns
 * the console's last lines (for the failure message).
 */
export async function printConsole(
  api: Pick<JenkinsApi, 'progressiveText'>,
  ref: BuildRef,
  printer: Printer,
  signal: AbortSignal,
  policy: PollPolicy = DEFAULT_POLL_POLICY
): Promise<string[]> {
  return printer.group(`Console of Jenkins ${fullName(ref.job)} #${ref.number}`, async sink => {
    const streamer = new ConsoleStreamer(api, ref, sink)
    return withCommandsStopped(
      text => sink.write(text),
      async () => {
        try {
          const until = Date.now() + policy.followUpForMs
          for (;;) {
            const poll = await streamer.poll()
            if (!poll.moreData) break
            if (Date.now() > until) {
              streamer.notice(consoleLeftOpen(ref, policy.followUpForMs))
              break
            }
            await sleep(policy.followUpMs, signal)
          }
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
