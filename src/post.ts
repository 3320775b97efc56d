import * as core from '@actions/core'
import { coreStepIO, maskSecret } from './step/step-io.js'
import { budgetClient } from './step/create-client.js'
import { abortTargets } from './step/bounded-step.js'
import { getSettings } from './inputs/inputs.js'
import { savedWork } from './step/remote-work.js'
import { errorText } from './util/error-text.js'
import { settleBy } from './util/wait.js'

/** What the post step's requests and stop escalation may take, all told. */
const POST_BUDGET_MS = 15_000
/** The post step's overall bound: it returns by then whatever Jenkins does. */
const POST_BOUND_MS = 20_000

/**
 * The post step: a safety net for a main step that did not finish (the
 * runner killed it before it could stop its build). It stops a build that is
 * still running and otherwise does nothing: a main step that failed for any
 * other reason than cancel or timeout left its build running on purpose (as
 * `abort-on-cancel` promises), and that is said, with the link. Like any
 * cleanup, it only warns, never fails the job, and it is bounded (20 s).
 * Named `run`, like main.ts's, so that runners of a step's entry point
 * (@github/local-action's `--post src/post.ts`) find it.
 */
export async function run(): Promise<void> {
  if (!(await settleBy(postStep(), Date.now() + POST_BOUND_MS))) {
    coreStepIO.logger.warning(
      `Post step: gave up on the Jenkins build after ${POST_BOUND_MS / 1000} s; it may still be running.`
    )
  }
}

async function postStep(): Promise<void> {
  const log = coreStepIO.logger
  try {
    const saved = savedWork(key => core.getState(key))
    if (saved.dealt !== false) {
      log.info(
        {
          'left running': `Post step: the main step failed for another reason than cancel or timeout and left the Jenkins work running: ${saved.shown}`,
          ended: `Post step: nothing to stop in Jenkins (${saved.shown}).`,
          returned: `Post step: nothing to stop; the main step returned without waiting, as asked: ${saved.shown}.`,
          // Said, so that a post step that ran is told from one that did not (@github/local-action, jenkins-build).
          finished: 'Post step: nothing to stop; the main step finished and left nothing for it.'
        }[saved.dealt]
      )
      return
    }
    const settings = getSettings({ mask: maskSecret })
    if (!settings.abortOnCancel) {
      log.info('Post step: left the Jenkins work running (abort-on-cancel: false).')
      return
    }
    const until = Date.now() + POST_BUDGET_MS
    const api = budgetClient(settings, { until })
    // Every build the main step started, at once, within the one budget.
    const targets = saved.targets(api)
    if (targets.length === 0) {
      log.info('Post step: nothing to stop; the main step had started no Jenkins work.')
      return
    }
    // With `jobs`, each line names its job.
    const named = settings.jobs !== undefined
    const done = await abortTargets(api, targets, { log, until, named })
    for (const { line } of done) log.info(`Post step: ${line}.`)
  } catch (error) {
    coreStepIO.logger.warning(`Post step could not check the Jenkins build: ${errorText(error)}`)
  }
}
