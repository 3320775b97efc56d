/**
 * Starting builds: `build` (with the `json` form on parameterized jobs) and
 * `buildWithParameters` (jenkins-api.md 3).
 */
import { remoteCause, userIdCause } from '../causes.js'
import type { Exchange } from '../exchange.js'
import { itemPath } from '../json.js'
import { defaultValue } from '../parameters.js'
import { parametersFormPage } from '../pages.js'
import { sameSecret } from '../security.js'
import type { Cause, JobState, ParameterValueState } from '../state.js'
import {
  accessDenied,
  can,
  deny,
  Oops,
  redirect,
  requestBase,
  requirePost,
  sendLayout
} from './respond.js'

/**
 * ParameterizedJobMixIn.getBuildCause: a RemoteCause when the job has a
 * token and the request carries `token` (the caller's address, and the
 * `cause` parameter as the note), else the caller's UserIdCause.
 */
function buildCause(ex: Exchange, job: JobState): Cause {
  if (job.authToken !== undefined && ex.params.has('token')) {
    return remoteCause(ex.forwarded.remoteAddr, ex.params.get('cause') ?? null)
  }
  return userIdCause(ex.identity)
}

/**
 * BuildAuthorizationToken.checkPermission: a `token` equal to the job's
 * skips every other check (even the POST one); a different one is an
 * AccessDeniedException "Invalid token provided." (the login page for
 * anonymous callers, as for any denial); without one, Job/Build and then
 * POST (405). Returns false when it has answered.
 */
function checkPermission(ex: Exchange, job: JobState): boolean {
  const provided = ex.params.get('token')
  if (job.authToken !== undefined && provided !== undefined) {
    if (sameSecret(provided, job.authToken)) return true
    accessDenied(ex, 'Invalid token provided.')
    return false
  }
  if (!can(ex, 'build')) {
    deny(ex, 'build')
    return false
  }
  return requirePost(ex)
}

/** TimeDuration.fromString: a bare number is ms, `N sec(s)` is seconds; else an exception. */
export function quietPeriod(ex: Exchange, job: JobState): number {
  const delay = ex.params.get('delay')
  if (delay === undefined) return ex.ctx.model.quietPeriodSec(job)
  let text = delay.trim()
  let unit = 1
  if (text.endsWith('sec') || text.endsWith('secs')) {
    text = text.slice(0, text.lastIndexOf('sec')).trim()
    unit = 1000
  }
  if (!/^[+-]?\d+$/.test(text)) throw new Oops(500, `Invalid time duration value: ${delay}`)
  return Math.trunc((Number(text) * unit) / 1000)
}

function queueLocation(ex: Exchange, id: number): string {
  return `${requestBase(ex)}/queue/item/${id}/`
}

function notBuildable(ex: Exchange, job: JobState): void {
  ex.jetty(409, `${job.fullName} is not buildable`)
}

/** `job/<name>/build`. */
export function triggerBuild(ex: Exchange, job: JobState): void {
  const model = ex.ctx.model
  // 409 comes first, even for GET (ParameterizedJobMixInTest).
  if (!model.isBuildable(job)) return notBuildable(ex, job)
  const parameterized = job.parameters.length > 0
  if (parameterized && ex.method !== 'POST') {
    return sendLayout(ex, 405, parametersFormPage(job.fullName))
  }
  if (!checkPermission(ex, job)) return
  if (parameterized) return triggerWithJsonForm(ex, job)
  const { item } = model.schedule(job, [], [buildCause(ex, job)], quietPeriod(ex, job))
  // A merged /build answers the same 201 and Location as a new one (JENKINS-66105 TODO).
  redirect(ex, 201, queueLocation(ex, item.id))
}

/** The `json` form of /build on a parameterized job (jenkins-api.md 3.3, 3.4). */
function triggerWithJsonForm(ex: Exchange, job: JobState): void {
  const json = ex.params.get('json')
  if (json === undefined) {
    return ex.jetty(
      400,
      ex.params.size === 0 ? 'Nothing is submitted' : 'This page expects a form submission'
    )
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(json)
  } catch {
    throw new Oops(500, `Malformed JSON: ${json}`)
  }
  const raw = (parsed as { parameter?: unknown })?.parameter
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]
  const values: ParameterValueState[] = []
  for (const entry of list as Array<{ name?: unknown; value?: unknown }>) {
    const name = String(entry?.name ?? '')
    const def = job.parameters.find(d => d.name === name)
    if (!def) throw new Oops(500, `No such parameter definition: ${name}`)
    values.push(parameterValue(def, [String(entry.value ?? '')]))
  }
  const { item, merged } = ex.ctx.model.schedule(
    job,
    values,
    [buildCause(ex, job)],
    quietPeriod(ex, job)
  )
  const jobUrl = `${requestBase(ex)}/${itemPath(job)}`
  // Queue.schedule returns null when merged: 302 to the job. Otherwise the 201 Location
  // appears to be the job URL on this path (jenkins-api.md 3.4, UNSURE upstream).
  void item
  redirect(ex, merged ? 302 : 201, jobUrl)
}

function parameterValue(
  def: JobState['parameters'][number],
  values: string[]
): ParameterValueState {
  const type = def.type ?? 'string'
  if (values.length === 0) return { name: def.name, type, value: defaultValue(def) }
  if (values.length !== 1) {
    throw new Oops(500, `Illegal number of parameter values for ${def.name}: ${values.length}`)
  }
  const value = values[0] ?? ''
  if (type === 'boolean') return { name: def.name, type, value: value.toLowerCase() === 'true' }
  if (type === 'choice' && !(def.choices ?? []).includes(value)) {
    throw new Oops(500, `Illegal choice for parameter ${def.name}: ${value}`)
  }
  return { name: def.name, type, value }
}

/** `job/<name>/buildWithParameters`. */
export function triggerWithParameters(ex: Exchange, job: JobState): void {
  const model = ex.ctx.model
  if (!checkPermission(ex, job)) return
  if (!model.isBuildable(job)) return notBuildable(ex, job)
  if (job.parameters.length === 0) return ex.jetty(400, `${job.fullName} is not parameterized`)
  // Defined parameters only, by exact name; missing ones get their default.
  const values = job.parameters.map(def => parameterValue(def, ex.params.all(def.name)))
  const { item, merged } = model.schedule(job, values, [buildCause(ex, job)], quietPeriod(ex, job))
  redirect(ex, merged ? 303 : 201, queueLocation(ex, item.id))
}
