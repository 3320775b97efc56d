import * as core from '@actions/core'
import { inertLine } from '../util/inert-text.js'
import type { Logger } from '../util/logger.js'

/**
 * The step log, for every module (they never call @actions/core's printing
 * themselves; ESLint enforces it). Info lines go through inertLine, since
 * they quote Jenkins; debug and warning are safe as they are: @actions/core
 * escapes their data and starts the line with its own `::debug::` or
 * `::warning::`, which the runner parses first.
 */
export const coreLogger: Logger = {
  debug: message => core.debug(message),
  info: message => core.info(inertLine(message)),
  warning: message => core.warning(message)
}
