import * as core from '@actions/core'
import { abortRemote } from './follow/cancel.js'
import { State } from './util/constants.js'
import { coreLogger } from './step/core-logger.js'
import { budgetClient } from './step/create-client.js'
import { getSettings } from './inputs/inputs.js'
import { namedLogger } from './util/logger.js'
import { savedTargets } from './multi/ledger.js'
import { savedTarget } from './step/progress.js'
import { errorText } from './util/error-text.js'

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
  let timer: NodeJS.Timeout | undefined
  const bound = new Promise<'gave up'>(resolve => {
    timer = setTimeout(() => resolve('gave up'), POST_BOUND_MS)
  })
  try {
    if ((await Promise.race([postStep(), bound])) === 'gave up') {
      core.warning(
        `Post step: gave up on the Jenkins build after ${POST_BOUND_MS / 1000} s; it may still be running.`
      )
    }
  } finally {
    clearTimeout(timer)
  }
}

async function postStep(): Promise<void> {
  try {
    if (core.getState(State.Done) !== 'false') {
      const left = core.getState(State.LeftRunning)
      const ended = core.getState(State.Ended)
      const returned = core.getState(State.Returned)
      if (left) {
        coreLogger.info(
          `Post step: the main step failed for another reason than cancel or timeout and left the Jenkins work running: ${left}`
        )
      } else if (ended) {
        coreLogger.info(`Post step: nothing to stop in Jenkins (${ended}).`)
      } else if (returned) {
        coreLogger.info(
          `Post step: nothing to stop; the main step returned without waiting, as asked: ${returned}.`
        )
      } else {
        // Said, so that a post step that ran is told from one that did not (@github/local-action, jenkins-build).
        coreLogger.info(
          'Post step: nothing to stop; the main step finished and left nothing for it.'
        )
      }
      return
    }
    const settings = getSettings()
    if (!settings.abortOnCancel) {
      coreLogger.info('Post step: left the Jenkins work running (abort-on-cancel: false).')
      return
    }
    const until = Date.now() + POST_BUDGET_MS
    const api = budgetClient(settings, until)
    if (settings.jobs) {
      // Every build the several-jobs step started, at once, within the one budget.
      const targets = savedTargets(core.getState(State.Builds), api)
      const done = await Promise.all(
        targets.map(async target => {
          const logger = namedLogger(coreLogger, target.name)
          return `${target.name}: ${await abortRemote(api, target, logger, undefined, until)}`
        })
      )
      for (const line of done) coreLogger.info(`Post step: ${line}.`)
      return
    }
    const target = savedTarget(settings.job, api)
    if (!target) {
      coreLogger.info('Post step: nothing to stop; the main step had started no Jenkins work.')
      return
    }
    const done = await abortRemote(api, target, coreLogger, undefined, until)
    coreLogger.info(`Post step: ${done}.`)
  } catch (error) {
    core.warning(`Post step could not check the Jenkins build: ${errorText(error)}`)
  }
}
