/**
 * What the Jenkins client and the follower need to say things. The action
 * passes an adapter over @actions/core; tests pass a recorder. Nothing below
 * src/main.ts imports @actions/core for logging.
 */
export interface Logger {
  debug(message: string): void
  info(message: string): void
  warning(message: string): void
}

/** A logger whose info lines start with `name: ` (several builds' lines that say "build #N" only). */
export function namedLogger(logger: Logger, name: string): Logger {
  return { ...logger, info: message => logger.info(`${name}: ${message}`) }
}

/**
 * Says that a part of a build's outcome (test report, stages, artifacts
 * list) could not be read: a warning in the log, and the same words in
 * `unread` for the summary. The build's result stands.
 */
export function warnUnread(message: string, logger: Logger, unread: string[]): void {
  logger.warning(message)
  unread.push(message)
}
