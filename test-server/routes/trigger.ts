/**
 * Starting builds: `build` (with the `json` form on parameterized jobs) and
 * `buildWithParameters` (jenkins-api.md 3).
 */
import type { Exchange } from '../exchange.js'
import { defaultValue, itemPath } from '../json.js'
import { parametersFormPage } from '../pages.js'
import type { Identity } from '../security.js'
import type { Cause, JobState, ParameterValueState } from '../types.js'
import { can, deny, Oops, redirect, requestBase, requirePost, sendLayout } from './respond.js'

function causeFor(identity: Identity): Cause {
  return {
    _class: 'hudson.model.Cause$UserIdCause',
    shortDescription: `Started by user ${identity.name}`,
    userId: identity.anonymous ? null : identity.name,
    userName: identity.name
  }
}

/** TimeDuration.fromString: a bare number is ms, `N sec(s)` is seconds; else an exception. */
function quietPeriod(ex: Exchange, job: JobState): number {
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
  if (!can(ex, 'build')) return deny(ex, 'build')
  if (!requirePost(ex)) return
  if (parameterized) return triggerWithJsonForm(ex, job)
  const { item } = model.schedule(job, [], [causeFor(ex.identity)], quietPeriod(ex, job))
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
    [causeFor(ex.identity)],
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
  if (!can(ex, 'build')) return deny(ex, 'build')
  if (!requirePost(ex)) return
  if (!model.isBuildable(job)) return notBuildable(ex, job)
  if (job.parameters.length === 0) return ex.jetty(400, `${job.fullName} is not parameterized`)
  // Defined parameters only, by exact name; missing ones get their default.
  const values = job.parameters.map(def => parameterValue(def, ex.params.all(def.name)))
  const { item, merged } = model.schedule(
    job,
    values,
    [causeFor(ex.identity)],
    quietPeriod(ex, job)
  )
  redirect(ex, merged ? 303 : 201, queueLocation(ex, item.id))
}
