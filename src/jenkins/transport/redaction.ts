import type { Logger } from '../../util/logger.js'

/**
 * The one redaction list of the client: credentials written into URLs, and
 * every secret the transport knows (the token, the Authorization value and
 * its base64 part, every crumb and session cookie it was given), as sent and
 * URL-encoded. Every message the client throws or logs passes it
 * (requester.ts).
 */
export function redactor(secrets: () => string[]): (text: string) => string {
  return text => {
    let result = text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1***@')
    const variants = secrets().flatMap(secret => [secret, encodeURIComponent(secret)])
    // Longest first: the Authorization value goes before the base64 part of it.
    for (const secret of [...new Set(variants)].sort((a, b) => b.length - a.length)) {
      // Shorter values would mangle ordinary words; real tokens are long.
      if (secret.length >= 4) result = result.split(secret).join('***')
    }
    return result
  }
}

/** `logger` with every line redacted first. */
export function redactingLogger(logger: Logger, redact: (text: string) => string): Logger {
  return {
    debug: message => logger.debug(redact(message)),
    info: message => logger.info(redact(message)),
    warning: message => logger.warning(redact(message))
  }
}
