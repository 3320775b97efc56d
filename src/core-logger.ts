import * as core from '@actions/core'
import type { Logger } from './logger.js'

/** The step log, for the modules that take a Logger (they never import @actions/core themselves). */
export const coreLogger: Logger = {
  debug: message => core.debug(message),
  info: message => core.info(message),
  warning: message => core.warning(message)
}
