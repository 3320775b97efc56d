import * as core from '@actions/core'
import { abortRemote } from './cancel.js'
import { State } from './constants.js'
import { coreLogger } from './core-logger.js'
import { createClient } from './create-client.js'
import { getSettings } from './inputs.js'
import { savedTarget } from './progress.js'

/**
 * The post step: a safety net for a main step that was killed before it could
 * stop its build. It stops a build that is still running and otherwise does
 * nothing; like any cleanup, it only warns, never fails the job.
 */
export async function runPost(): Promise<void> {
  try {
    if (core.getState(State.Done) !== 'false') return
    const settings = getSettings()
    if (!settings.abortOnCancel) return
    const api = createClient(settings)
    const target = savedTarget(settings.job, api)
    if (!target) return
    const done = await abortRemote(api, target, coreLogger)
    coreLogger.info(`Post step: ${done}.`)
  } catch (error) {
    core.warning(
      `Post step could not check the Jenkins build: ${error instanceof Error ? error.message : String(error)}`
    )
  }
}
