/**
 * Starting builds: `build` (with the `json` form on parameterized jobs) and
 * `buildWithParameters` (jenkins-api.md 3).
 */
import { remoteCause, userIdCause } from '../model/causes.js'
import type { Exchange } from '../http/exchange.js'
import { itemPath } from '../http/json.js'
import { uploadCuts } from '../faults/aimed-faults.js'
import { defaultValue, isFileType } from '../model/parameters.js'
import { isMultipart, readMultipart, type MultipartForm } from '../http/uploads.js'
import { parametersFormPage } from '../http/pages.js'
import { sameSecret } from '../model/security.js'
import type { Cause, JobState, ParameterValueState } from '../model/state.js'
import type { TriggerEcho } from '../types.js'
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

/** What ParameterDefinition.createValue throws for a value it refuses (jenkins-api.md 3.2). */
const ILLEGAL_ARGUMENT = 'java.lang.IllegalArgumentException'

/**
 * ParameterizedJobMixIn.getBuildCause: a RemoteCause when the job has a
 * token and the request carries `token` (the caller's address, and the
 * `cause` parameter as the note), else the caller's UserIdCause.
 */
function buildCause(
  ex: Exchange,
  job: JobState,
  read: { token?: string; cause?: string } = {
    token: ex.params.get('token'),
    cause: ex.params.get('cause')
  }
): Cause {
  if (job.authToken !== undefined && read.token !== undefined) {
    return remoteCause(ex.forwarded.remoteAddr, read.cause ?? null)
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
function checkPermission(
  ex: Exchange,
  job: JobState,
  provided: string | undefined = ex.params.get('token')
): boolean {
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

/** Request headers Jenkins or HTTP itself uses (and fetch's `sec-` ones, Jetty's forwarding ones): the others (an auth proxy's) are echoed. */
const OWN_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-type',
  'content-length',
  'transfer-encoding',
  'accept',
  'accept-encoding',
  'accept-language',
  'user-agent',
  'authorization',
  'cookie',
  'expect'
])

/**
 * What a build of this trigger echoes (HostileSpec.echoTrigger): the
 * Authorization header's password or token, the cookies' values, the crumb
 * sent, the job token, the values of headers Jenkins does not use, and the
 * parameters' values; undefined when the server does not echo.
 */
function triggerEcho(
  ex: Exchange,
  token: string | undefined,
  values: readonly ParameterValueState[]
): TriggerEcho | undefined {
  const fields = ex.ctx.json.hostile?.echoTrigger
  if (!fields?.length) return undefined
  const headers = ex.req.headers
  const seen: string[] = []
  const [scheme, credentials] = (headers.authorization ?? '').split(' ')
  if (scheme === 'Basic' && credentials) {
    const pair = Buffer.from(credentials, 'base64').toString('utf8')
    seen.push(pair.slice(pair.indexOf(':') + 1))
  } else if (credentials) seen.push(credentials)
  for (const part of (headers.cookie ?? '').split(';')) {
    const value = part.slice(part.indexOf('=') + 1).trim()
    if (value) seen.push(value)
  }
  // The crumb header among them.
  for (const [name, value] of Object.entries(headers)) {
    if (OWN_HEADERS.has(name) || /^(sec-|x-forwarded-|forwarded$)/.test(name)) continue
    if (value === undefined) continue
    seen.push(...(Array.isArray(value) ? value : [value]))
  }
  if (token !== undefined) seen.push(token)
  // A password's value is left out: the step is not given it as a secret.
  for (const p of values) {
    if (p.type !== 'password' && typeof p.value === 'string' && p.value !== '') seen.push(p.value)
  }
  return { text: `echo: ${seen.join(' ')}`, fields }
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
  const { item } = model.schedule(
    job,
    [],
    [buildCause(ex, job)],
    quietPeriod(ex, job),
    triggerEcho(ex, ex.params.get('token'), [])
  )
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
    quietPeriod(ex, job),
    triggerEcho(ex, ex.params.get('token'), values)
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
    throw new Oops(
      500,
      `Illegal number of parameter values for ${def.name}: ${values.length}`,
      ILLEGAL_ARGUMENT
    )
  }
  const value = values[0] ?? ''
  if (type === 'boolean') return { name: def.name, type, value: value.toLowerCase() === 'true' }
  if (type === 'choice' && !(def.choices ?? []).includes(value)) {
    throw new Oops(500, `Illegal choice for parameter ${def.name}: ${value}`, ILLEGAL_ARGUMENT)
  }
  return { name: def.name, type, value }
}

/**
 * `job/<name>/buildWithParameters` (ParametersDefinitionProperty
 * `buildWithParameters`, jenkins-2.568.2 and jenkins-2.150.1 alike): each
 * definition, in order, makes its value from the request; one that makes
 * none (a file parameter without a file part) is left out, not defaulted.
 */
export async function triggerWithParameters(ex: Exchange, job: JobState): Promise<void> {
  const model = ex.ctx.model
  const form = isMultipart(ex.req) ? new StaplerForm(ex) : undefined
  // `token` and `cause` are read with req.getParameter, which on a multipart
  // request parses the body first (its fields, then the query string). The
  // token is read only when the job has one (BuildAuthorizationToken
  // .checkPermission, ParameterizedJobMixIn.getBuildCause, jenkins-2.568.2).
  const read = async (name: string): Promise<string | undefined> =>
    (await form?.field(name))?.[0] ?? ex.params.get(name)
  const token = job.authToken !== undefined ? await read('token') : undefined
  if (!checkPermission(ex, job, token)) return
  if (!model.isBuildable(job)) return notBuildable(ex, job)
  if (job.parameters.length === 0) return ex.jetty(400, `${job.fullName} is not parameterized`)
  const values: ParameterValueState[] = []
  for (const def of job.parameters) {
    const value = isFileType(def.type)
      ? await fileValue(def, form)
      : parameterValue(def, [...ex.params.all(def.name), ...((await form?.field(def.name)) ?? [])])
    if (value) values.push(value)
  }
  const cause = buildCause(ex, job, {
    token,
    cause: job.authToken !== undefined && token !== undefined ? await read('cause') : undefined
  })
  const { item, merged } = model.schedule(
    job,
    values,
    [cause],
    quietPeriod(ex, job),
    triggerEcho(ex, token, values)
  )
  redirect(ex, merged ? 303 : 201, queueLocation(ex, item.id))
}

/**
 * The multipart body as Stapler's RequestImpl holds it: parsed on first use,
 * the failure seen by that first caller only (uploads.ts).
 */
class StaplerForm {
  private parsed: Promise<MultipartForm> | undefined
  constructor(private readonly ex: Exchange) {}

  /** The form, and the parse failure when this is the call that parsed it. */
  async read(): Promise<{ form: MultipartForm; failure: Error | undefined }> {
    const first = this.parsed === undefined
    this.parsed ??= readMultipart(this.ex.req, this.ex.ctx.uploads, uploadCuts.get(this.ex.req))
    const form = await this.parsed
    return { form, failure: first ? form.failure : undefined }
  }

  /**
   * A form field's value (getParameterValues: the query's values, then the
   * field's). A file part is not a field; a parse failure is swallowed
   * (getFormDataFormFields).
   */
  async field(name: string): Promise<string[]> {
    const part = (await this.read()).form.parts.get(name)
    return part?.kind === 'field' ? [part.value] : []
  }
}

/**
 * A file parameter's value. Core (FileParameterDefinition.createValue,
 * jenkins-2.150.1 and jenkins-2.568.2): `getFileItem(name)`, null for no
 * part or a plain field (`isFormField`), null when parsing failed (the
 * ServletException/IOException is caught); the file name is the part's
 * filename after its last `/` and `\`. The plugin
 * (AbstractFileParameterDefinition.createValue, file-parameters-plugin
 * 59e1249): the same part, but a parse failure it is the first to see is
 * rethrown (a 500, nothing queued), and the name is `new File(filename).getName()`
 * (on a Linux controller: after the last `/` only).
 */
async function fileValue(
  def: JobState['parameters'][number],
  form: StaplerForm | undefined
): Promise<ParameterValueState | undefined> {
  if (!form) return undefined
  const { form: parsed, failure } = await form.read()
  const type = def.type ?? 'file'
  if (failure && type !== 'file')
    throw new Oops(500, `java.lang.RuntimeException: ${failure.message}`)
  const part = parsed.parts.get(def.name)
  if (part?.kind !== 'file') return undefined
  const base = part.filename.slice(part.filename.lastIndexOf('/') + 1)
  const fileName = type === 'file' ? base.slice(base.lastIndexOf('\\') + 1) : base
  return {
    name: def.name,
    type,
    value: fileName,
    file: { fileName, path: part.path, size: part.size }
  }
}
