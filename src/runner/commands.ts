/**
 * Whether the runner reads workflow commands right now. While Jenkins'
 * console is printed they are stopped (follow/log-stream.ts
 * withCommandsStopped), and a command of ours issued meanwhile (a warning, a
 * debug line, an annotation: a retry or a read of the build can say one)
 * would print as plain text. Those are held and issued, in order, once
 * commands resume.
 */

/** Commands waiting for the runner; undefined while it reads them. */
let held: Array<() => void> | undefined
/** Stopped regions open (a region inside another resumes with the outer one). */
let depth = 0

/** Issues a command of ours now, or as soon as commands resume. */
export function whenCommandsRun(issue: () => void): void {
  if (held) held.push(issue)
  else issue()
}

/** Marks commands stopped; the returned function marks them resumed and issues what was held. */
export function holdCommands(): () => void {
  depth++
  held ??= []
  let released = false
  return () => {
    if (released) return
    released = true
    if (--depth > 0) return
    const waiting = held ?? []
    held = undefined
    for (const issue of waiting) issue()
  }
}
