/**
 * The causes a run or queue item records, exported as Stapler writes them
 * (properties sorted by name after `_class`).
 */
import type { Identity } from './security.js'
import type { Cause } from './state.js'

/** Cause.UserIdCause: "Started by user NAME"; anonymous has userId null (jenkins-api.md 3.6). */
export function userIdCause(identity: Identity): Cause {
  return {
    _class: 'hudson.model.Cause$UserIdCause',
    shortDescription: `Started by user ${identity.name}`,
    userId: identity.anonymous ? null : identity.name,
    userName: identity.name
  }
}

/**
 * Cause.RemoteCause, recorded by ParameterizedJobMixIn.getBuildCause when the
 * job has a "Trigger builds remotely" token and the request has `token`: the
 * request's remote address (after ForwardedRequestCustomizer) and the
 * optional `cause` parameter as its note (core Cause.java, Messages.properties).
 */
export function remoteCause(addr: string, note: string | null): Cause {
  return {
    _class: 'hudson.model.Cause$RemoteCause',
    addr,
    note,
    shortDescription:
      note === null
        ? `Started by remote host ${addr}`
        : `Started by remote host ${addr} with note: ${note}`
  }
}

/**
 * TimerTrigger.TimerTriggerCause: what a job's cron trigger records
 * (TimerTrigger.run → job.scheduleBuild(0, new TimerTriggerCause()), core
 * TimerTrigger.java); it exports only its short description.
 */
export function timerTriggerCause(): Cause {
  return {
    _class: 'hudson.triggers.TimerTrigger$TimerTriggerCause',
    shortDescription: 'Started by timer'
  }
}

/**
 * branch-api's BranchIndexingCause: the cause of the build a scan schedules
 * for a branch it discovered or saw change (MultiBranchProject
 * SCMHeadObserverImpl.doAutomaticBuilds, IndexingCauseFactory). It exports
 * only its short description.
 */
export function branchIndexingCause(): Cause {
  return { _class: 'jenkins.branch.BranchIndexingCause', shortDescription: 'Branch indexing' }
}

/** The line Cause.print writes at the top of a log (UserIdCause's carries a hyperlink note). */
export function causeLine(cause: Cause, note: (text: string) => string = () => ''): string {
  if (cause._class === 'hudson.model.Cause$UserIdCause') {
    const name = cause.userName ?? 'anonymous'
    return `Started by user ${note(`user:${name}`)}${name}`
  }
  return cause.shortDescription
}

/**
 * CauseAction's cause bag, kept as the list getCauses() exports: a
 * LinkedHashMap from cause to count, written as each cause repeated `count`
 * times in first-seen order (Collections.nCopies). Causes are equal as
 * their equals says: a UserIdCause by userId (null for anonymous), a
 * RemoteCause by address and note (core Cause.java), a TimerTriggerCause
 * equal to every other (TimerTrigger.java); a cause without an
 * equals of its own, such as BranchIndexingCause, only to itself.
 */
export function foldCause(bag: Cause[], cause: Cause): void {
  const same = (c: Cause): boolean => {
    if (c._class !== cause._class) return false
    if (c._class === 'hudson.model.Cause$UserIdCause') return c.userId === cause.userId
    if (c._class === 'hudson.model.Cause$RemoteCause') {
      return c.addr === cause.addr && c.note === cause.note
    }
    if (c._class === 'hudson.triggers.TimerTrigger$TimerTriggerCause') return true
    return c === cause
  }
  let last = -1
  bag.forEach((c, i) => {
    if (same(c)) last = i
  })
  if (last < 0) bag.push(cause)
  else bag.splice(last + 1, 0, bag[last] as Cause)
}
