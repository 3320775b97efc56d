import * as core from '@actions/core'
import { inertLine } from '../util/inert-text.js'
import type { Logger } from '../util/logger.js'
import { whenCommandsRun } from '../runner/commands.js'
import { redactSecrets } from './secrets.js'

/**
 * The step log, for every module (they never call @actions/core's printing
 * themselves; ESLint enforces it). Info lines go through inertLine, since
 * they quote Jenkins; debug and warning are safe as they are: @actions/core
 * escapes their data and starts the line with its own `::debug::` or
 * `::warning::`, which the runner parses first. Those two are commands: while
 * the console prints (commands stopped) they wait for the resume. Every line
 * leaves without the step's secrets (secrets.ts): a warning is also an
 * annotation, which the runner shows as sent.
 */
export const coreLogger: Logger = {
  debug: message => whenCommandsRun(() => core.debug(redactSecrets(message))),
  info: message => core.info(inertLine(redactSecrets(message))),
  warning: message => whenCommandsRun(() => core.warning(redactSecrets(message)))
}
