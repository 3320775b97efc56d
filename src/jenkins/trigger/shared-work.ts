/**
 * Whether a queue item or build stands for more than one trigger request,
 * so that cancelling or stopping it would cancel someone else's work too:
 * Jenkins folds a request into an item already queued with the same
 * parameters and adds its cause, and every trigger by this action brings
 * exactly one cause, so more than one means another request shares it.
 * From Jenkins' source: docs/internals.md, "Work shared with another request".
 */

import { entriesOf } from '../reads/decode.js'
import type { QueuedTask } from '../model/types.js'

/** The `tree` that makes a build GET export its causes (one entry per cause). */
export const CAUSES_TREE = 'actions[causes[shortDescription]]'

/**
 * True when the item or build answers for more requests than `own`, the
 * number of this step's own requests folded into it (more than one when a
 * step listed the same job twice with the same parameters): by the causes
 * exported in its `actions` array (CauseAction's `causes`, none when none
 * is exported).
 */
export function isShared(actions: unknown, own = 1): boolean {
  return (entriesOf(actions, 'causes')?.length ?? 0) > Math.max(1, own)
}

/**
 * The cause a request by a signed-in (or anonymous) user records (ParameterizedJobMixIn.getBuildCause).
 * @internal
 */
export const USER_ID_CAUSE = 'hudson.model.Cause$UserIdCause'

/** An item's or build's causes as decoded where they arrive: each exported cause's `_class`, and the UserIdCauses' userIds. */
export type ExportedCauses = Partial<Pick<QueuedTask, 'causes' | 'userIds'>>

/**
 * True only when the work is one request of `user`'s and nothing else: one
 * exported cause (the shared-work rule above, for one request of ours), a
 * UserIdCause of that user. Work found by its shape rather than by the id
 * Jenkins gave us (a lost answer) may be cancelled or stopped only then:
 * another user's request, or a timer's that ours was folded into, has the
 * same shape. Without a user (anonymous, a job token) nothing is ours alone.
 */
export function isOwnAlone(found: ExportedCauses, user: string | undefined): boolean {
  const causes = found.causes ?? []
  if (user === undefined || causes.length !== 1) return false
  const id = found.userIds?.length === 1 ? found.userIds[0] : undefined
  return causes[0] === USER_ID_CAUSE && sameUser(id, user)
}

/** Whether a cause's userId is `user`'s: Jenkins' default IdStrategy compares user ids case-insensitively. */
export function sameUser(id: string | null | undefined, user: string): boolean {
  return typeof id === 'string' && id.toLowerCase() === user.toLowerCase()
}
