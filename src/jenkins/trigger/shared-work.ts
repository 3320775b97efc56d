/**
 * Whether a queue item or build stands for more than one trigger request,
 * so that cancelling or stopping it would cancel someone else's work too.
 *
 * Jenkins does not queue a task twice: a request for a task that already has
 * an item waiting, blocked or buildable with the same parameters is folded
 * into that item (Queue.scheduleInternal; ParametersAction.shouldSchedule
 * compares the parameter sets, and a job without parameters always folds).
 * `/build` then answers 201 with the existing item, as for a new one
 * (ParameterizedJobMixIn.doBuild, JENKINS-66105); `buildWithParameters`
 * answers 303 (ParametersDefinitionProperty, since 2.308).
 *
 * What the fold leaves behind: CauseAction.foldIntoExisting adds the request's
 * cause to the item's cause bag, and CauseAction.getCauses() exports every
 * cause once per count (Collections.nCopies), also for the same user twice.
 * The build gets the item's actions (Executor.run). Every trigger by this
 * action brings exactly one cause (ParameterizedJobMixIn.getBuildCause), so
 * more than one exported cause means another request shares the work: one
 * that we folded into, or one that folded into ours after we queued it.
 */

/** The `tree` that makes a build GET export its causes (one entry per cause). */
export const CAUSES_TREE = 'actions[causes[shortDescription]]'

/** Causes exported in an `actions` array (CauseAction's `causes`); undefined when none is exported. */
export function causeCount(actions: unknown): number | undefined {
  if (!Array.isArray(actions)) return undefined
  let count: number | undefined
  for (const action of actions) {
    const causes = (action as { causes?: unknown } | null)?.causes
    if (Array.isArray(causes)) count = (count ?? 0) + causes.length
  }
  return count
}

/**
 * True when the item or build answers for more requests than `own`, the
 * number of this step's own requests folded into it (more than one when a
 * step listed the same job twice with the same parameters).
 */
export function isShared(actions: unknown, own = 1): boolean {
  return (causeCount(actions) ?? 0) > Math.max(1, own)
}
