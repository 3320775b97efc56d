import { cut } from '../../util/shorten.js'
import { checkParameterValues } from './parameter-values.js'
import { Interrupted, JenkinsError } from '../transport/errors.js'
import { countOf } from '../model/counts.js'
import type { HttpResponse } from '../transport/http.js'
import { fullName, jobUrl, queueItemUrl } from '../model/job-path.js'
import { SETTLE_MS, SLOW_SETTLE_MS, expectedParameters, reconcile } from './reconcile.js'
import type { UploadBody } from '../transport/multipart.js'
import { jobNotFound } from '../reads/reads.js'
import type { Requester } from '../transport/requester.js'
import { errorForResponse } from '../transport/responses.js'
import type { BuildParameters, JobInfo, JobPath, TriggerResult } from '../model/types.js'
import type { LostTrigger } from '../transport/errors.js'
import { errorText } from '../../util/error-text.js'
import { decodeHTML } from 'entities'

/** Trigger POSTs whose answer may be lost before the step gives up (each one reconciled first). */
const TRIGGER_SENDS = 4
/** Answers to a trigger that say it was refused without acting, so it may be sent again. */
const TRIGGER_REFUSALS: ReadonlySet<number> = new Set([429, 503])
/** Answers to a trigger from a proxy that may have passed it on before failing. */
const AMBIGUOUS_STATUSES: ReadonlySet<number> = new Set([500, 502, 504])

export interface LostAnswer {
  /** What went wrong, for the message if we give up. */
  error: JenkinsError
  /** Short reason for the log, e.g. '502' or 'ECONNRESET'. */
  reason: string
  /** Jenkins may still be working (a gateway or request timeout): settle longer. */
  slow: boolean
}

export interface TriggerOptions {
  /** How long a lost trigger answer (or a broken upload) is given before looking (default: reconcile.ts). */
  settleMs?: number
  /** With a job token: the note of the RemoteCause Jenkins records (the `cause` parameter). */
  cause?: string
}

/**
 * Queues one build of `job` and returns its queue item. When the answer to
 * the POST is lost, Jenkins is asked what it did before the POST is sent again.
 *
 * Once the client's signal fired (cancel, timeout) nothing more is sent: no
 * crumb, no POST, no resend. If a POST may have reached Jenkins (cut in
 * flight, or its answer lost and being reconciled), the Interrupted error
 * carries the LostTrigger, for the abort path to find and cancel what it
 * queued (findLostTrigger) with its own client.
 */
export async function trigger(
  http: Requester,
  info: JobInfo,
  job: JobPath,
  params: BuildParameters,
  options: TriggerOptions = {}
): Promise<TriggerResult> {
  const name = fullName(job)
  const { fields, undefinedNames } = triggerFields(http, info, name, params, options)
  const parameterized = info.parameterDefinitions.length > 0
  // Multi-value parameters are repeated fields.
  const form = new URLSearchParams(
    fields.flatMap(([key, value]) => [value].flat().map((item): [string, string] => [key, item]))
  )
  // /build on a parameterized job wants a `json` form and skips defaults;
  // /buildWithParameters fills in defaults (jenkins-api.md 3.2, 3.3).
  const post = parameterized
    ? {
        endpoint: 'buildWithParameters',
        serverHint: `Jenkins also answers 500 to ${REFUSED_VALUE}.`
      }
    : { endpoint: 'build' }
  const expectation: LostTrigger = {
    job,
    parameters: expectedParameters(info.parameterDefinitions, params),
    user: http.user,
    firstBuildNumber: info.nextBuildNumber
  }
  const jobPage = jobUrl(http.baseUrl, job)
  let answerLost = false
  const interrupted = (error: Interrupted): Interrupted =>
    answerLost || error.sent
      ? mayHaveQueued(error, `a trigger of '${name}' may have queued a build`, expectation)
      : error
  for (let send = 1; ; send++) {
    const outcome = await triggerOnce(http, job, { form: form.toString() }, post).catch(
      (error: unknown) => {
        throw error instanceof Interrupted ? interrupted(error) : error
      }
    )
    if ('queueId' in outcome) return { ...outcome, unknownParameters: undefinedNames }
    // The answer was lost: look for what Jenkins did before sending again
    // (reconcile.ts says why, and what risk remains).
    answerLost = true
    const lost = outcome.lost
    const settleMs = options.settleMs ?? (lost.slow ? SLOW_SETTLE_MS : SETTLE_MS)
    const unknown = (why: string): JenkinsError =>
      new JenkinsError(
        lost.error.kind === 'timeout' ? 'network' : lost.error.kind,
        `${lost.error.message} while triggering job '${name}' (${why}): the build may or may not have been queued. Check ${jobPage} before running again.`,
        lost.error.status
      )
    if (http.deadline !== undefined && Date.now() + settleMs > http.deadline) {
      throw unknown('no time left before the step timeout to check')
    }
    const adopted = await reconcile(http, expectation, settleMs).catch((error: unknown) => {
      if (error instanceof Interrupted) throw interrupted(error)
      http.logger.debug(`Could not look for the lost trigger: ${errorText(error)}`)
      throw unknown('and Jenkins could not be asked what it did')
    })
    if (adopted) {
      http.logger.info(
        adopted.from === 'queue'
          ? `Trigger answer lost (${lost.reason}); Jenkins shows queue item ${adopted.queueId} of '${name}' with these parameters: following it.`
          : `Trigger answer lost (${lost.reason}); Jenkins shows build #${adopted.buildNumber ?? '?'} of '${name}' with these parameters (queue item ${adopted.queueId}): following it.`
      )
      return {
        queueId: adopted.queueId,
        queueUrl: queueItemUrl(http.baseUrl, adopted.queueId),
        merged: false,
        unknownParameters: undefinedNames,
        adopted: adopted.from
      }
    }
    if (send >= TRIGGER_SENDS) {
      throw unknown(`${send} answers lost, and Jenkins showed no queued item or build for any`)
    }
    http.logger.info(
      `Trigger answer lost (${lost.reason}); Jenkins shows no such queued item or build; sending it again.`
    )
  }
}

/** A stop (cancel, timeout) once a trigger may have reached Jenkins: `note` says so, `lost` is for the abort path to find. */
export function mayHaveQueued(error: Interrupted, note: string, lost: LostTrigger): Interrupted {
  const { sent, lastFailure } = error
  return new Interrupted(`${error.message} (${note})`, { sent, lostTrigger: lost, lastFailure })
}

/**
 * Refuses what cannot be built before anything is sent (a folder, a disabled
 * job, a value Jenkins would refuse or change: parameter-values.ts), and says
 * what a trigger sends: the values of the parameters the job defines (a job
 * without parameters defines none: nothing is sent), but those in `skip`;
 * then the job token, in the body, never in the URL (where proxies and
 * access logs would keep it). A request with `token` is recorded as a
 * RemoteCause with `cause` as its note (ParameterizedJobMixIn.getBuildCause).
 * An anonymous POST still needs a crumb: the CrumbFilter exempts only API
 * tokens (ApiCrumbExclusion), and the crumb issuer needs Overall/Read.
 */
export function triggerFields(
  http: Requester,
  info: JobInfo,
  name: string,
  params: BuildParameters,
  options: TriggerOptions & { skip?: ReadonlySet<string> }
): { fields: Array<[string, string | readonly string[]]>; undefinedNames: string[] } {
  // Building a computed folder starts a scan, not a build (jenkins-api.md 3.8).
  if (info.isFolder) throw notAJob(info, name, http.baseUrl)
  if (info.disabled === true || info.buildable === false) {
    throw new JenkinsError('conflict', disabledMessage(http, name))
  }
  checkParameterValues(info, name, params)
  const undefinedNames = unknownParameters(info, params)
  const fields = Object.entries(params).filter(
    ([key]) => !undefinedNames.includes(key) && !options.skip?.has(key)
  )
  if (http.jobToken) {
    fields.push(['token', http.jobToken])
    if (options.cause) fields.push(['cause', options.cause])
  }
  return { fields, undefinedNames }
}

/** Names in `params` the job does not define: Jenkins drops them silently. */
export function unknownParameters(info: JobInfo, params: BuildParameters): string[] {
  const defined = new Set(info.parameterDefinitions.map(definition => definition.name))
  return Object.keys(params).filter(key => !defined.has(key))
}

/**
 * One trigger POST to `<job>/<endpoint>?delay=0sec` (`delay` is a request
 * parameter; 0sec skips the quiet period: jenkins-api.md 3.5); `serverHint`
 * says what Jenkins' own 500 may mean. A refusal that provably did nothing
 * (503, 429, connection refused) is retried inside; an answer that may hide
 * an action (reset, hang up, timeout, a proxy's 500/502/504) comes back as
 * `lost`. Its errors say the job's 404, its refusal as disabled, and the
 * permission it needs.
 */
export async function triggerOnce(
  http: Requester,
  job: JobPath,
  payload: { form: string } | { upload: UploadBody },
  { endpoint, serverHint }: { endpoint: string; serverHint?: string }
): Promise<Omit<TriggerResult, 'unknownParameters'> | { lost: LostAnswer }> {
  const name = fullName(job)
  const url = `${jobUrl(http.baseUrl, job)}${endpoint}?delay=0sec`
  const context = http.context(`the trigger of job '${name}'`, {
    notFound: jobNotFound(http, name),
    conflict: disabledMessage(http, name),
    permission: 'Job/Build',
    jobTokenSent: http.jobToken !== undefined,
    serverHint
  })
  let lost: LostAnswer | undefined
  let answer: { response: HttpResponse; body: string }
  try {
    answer = await http.post('trigger', url, context, {
      ...payload,
      // Only a refusal that did nothing is sent again here: a second POST
      // that reaches Jenkins queues a second build.
      retryStatuses: TRIGGER_REFUSALS,
      retryNetwork: failure => failure.notSent,
      onNetworkFailure: failure => {
        lost = {
          error: failure.error,
          reason: failure.reason,
          slow: failure.error.kind === 'timeout'
        }
        return failure.error
      }
    })
  } catch (error) {
    if (lost && error instanceof JenkinsError && error.kind !== 'aborted') return { lost }
    throw error
  }
  const { response, body } = answer
  // Jenkins' own 500 is its answer: it refused the request (a parameter
  // value it does not accept), and a second send would be refused again.
  const refusal = response.status === 500 ? jenkinsRefusal(response, body) : undefined
  if (refusal) {
    throw new JenkinsError(
      'bad-request',
      `Jenkins at ${http.baseUrl} refused to trigger job '${name}' (500): ${refusal}.`,
      500
    )
  }
  if (AMBIGUOUS_STATUSES.has(response.status) && !fromJenkins(response)) {
    // A proxy's error says nothing of whether Jenkins got the POST.
    return {
      lost: {
        error: errorForResponse(response, body, context),
        reason: String(response.status),
        slow: response.status === 504
      }
    }
  }
  if (response.status >= 400) throw errorForResponse(response, body, context)
  const queueId =
    response.status === 201 || response.status === 303 ? queueIdOf(response) : undefined
  if (queueId === undefined) {
    const location = response.header('location')
    throw new JenkinsError(
      'protocol',
      `Jenkins at ${http.baseUrl} did not queue a build of '${name}': it answered ${response.status}${location ? ` with a redirect to ${URL.parse(location, url)?.pathname ?? '(invalid location)'}` : ''} instead of a queue item. A plugin may have vetoed the build, or '${name}' is a computed folder whose build is a scan.`,
      response.status
    )
  }
  // Reverse proxies rewrite hosts, and the Location follows the request's
  // own host (jenkins-api.md 3.1): rebuild it on our base.
  return { queueId, queueUrl: queueItemUrl(http.baseUrl, queueId), merged: response.status === 303 }
}

function disabledMessage(http: Requester, name: string): string {
  return `Job '${name}' on Jenkins at ${http.baseUrl} is disabled (not buildable): enable it first`
}

/** The queue item id from a trigger's Location (`…/queue/item/<id>/`), or undefined. */
function queueIdOf(response: HttpResponse): number | undefined {
  const location = response.header('location')
  const path = location ? URL.parse(location, response.url)?.pathname : undefined
  return countOf(/\/queue\/item\/(\d+)\/?$/.exec(path ?? '')?.[1])
}

/**
 * Whether Jenkins itself produced an error answer rather than a proxy in
 * front of it: Jenkins' own pages (oops, layout) carry X-Jenkins (jenkins-api.md
 * 10). A 500 from Jenkins on a trigger is an exception while reading the
 * parameters (an illegal choice, 3.2), before anything was queued.
 */
function fromJenkins(response: HttpResponse): boolean {
  return response.header('x-jenkins') !== undefined
}

/** The exception a parameter definition throws for a value it refuses, as a stack trace shows it. */
const REFUSAL = /\bIllegalArgumentException: ([^\r\n<]+)/
/** Jenkins' error page (core jenkins/model/Jenkins/oops.jelly) and the id its log files the exception under. */
const OOPS_PAGE = /A problem occurred while processing the request/
const LOGGING_ID = /Logging ID=([0-9a-fA-F-]{1,64})/
/** Characters of Jenkins' reason quoted. */
const REASON_CHARS = 300

/**
 * Why Jenkins refused a request with its own 500, or undefined when the
 * 500 is not Jenkins' (a proxy's, which may hide a POST that reached Jenkins:
 * reconciled as a lost answer). Jenkins' is told by its headers (X-Jenkins,
 * which a proxy may strip) or by its body: its error page, or the
 * IllegalArgumentException a parameter definition throws ("Illegal choice
 * for parameter ENV: qa", jenkins-api.md 3.2), which no proxy writes. The
 * page quotes the exception only when Jenkins shows stack traces
 * (-Djenkins.model.Jenkins.SHOW_STACK_TRACE=true, or before 2.x); else its
 * Logging ID is what leads to the reason in Jenkins' log.
 */
function jenkinsRefusal(response: HttpResponse, body: string): string | undefined {
  const text = decodeHTML(body)
  const reason = REFUSAL.exec(text)?.[1]?.trim()
  if (reason) return cut(reason, REASON_CHARS)
  if (!fromJenkins(response) && !OOPS_PAGE.test(text)) return undefined
  const id = LOGGING_ID.exec(text)?.[1]
  return `its error page gives no reason${id ? `; its log has it under Logging ID ${id}` : ''} (${REFUSED_VALUE}, is the usual one)`
}

/** What Jenkins' 500 to a trigger usually means: the values core's parameters refuse are refused before sending (parameter-values.ts). */
const REFUSED_VALUE =
  "a parameter value it does not accept, such as several values for a plugin's parameter that takes one"

/** The error for building an item that is not a job: what it is, and which input names a job in it. */
export function notAJob(info: JobInfo, name: string, origin: string): JenkinsError {
  const where = `(${info._class ?? 'folder'}, on ${origin})`
  const messages: Record<NonNullable<JobInfo['folderKind']>, string> = {
    multibranch: `Jenkins item ${name} is a multibranch project ${where}: its jobs are its branches and pull requests. Set 'branch' to the one to build (for example \`branch: main\` or \`branch: PR-\${{ github.event.number }}\`).`,
    organization: `Jenkins item ${name} is an organization folder ${where}: name one of its repositories in 'job' (${name}/<repository>) and the branch or pull request in 'branch'.`,
    folder: `Jenkins item ${name} is a folder, not a job ${where}: name a job inside it, or list them with list-jobs`
  }
  return new JenkinsError('bad-request', messages[info.folderKind ?? 'folder'])
}
