/**
 * A trigger that carries files: `buildWithParameters` as one streamed
 * `multipart/form-data` POST (multipart.ts), the crumb in its header. It is
 * never sent twice once it may have reached Jenkins: a body that broke off
 * can queue a build with every parameter at its default and no file, so a
 * lost answer is looked into (upload-recovery.ts). Why, from Jenkins' source:
 * docs/internals.md, "A trigger that carries files".
 */
import { formatBytes } from '../../util/bytes.js'
import { formatDuration } from '../../util/duration.js'
import { Interrupted, JenkinsError } from '../transport/errors.js'
import { fullName } from '../model/job-path.js'
import { multipartBody, type UploadBody, type UploadFile } from '../transport/multipart.js'
import { expectedParameters } from './reconcile.js'
import type { Requester } from '../transport/requester.js'
import { recoverUpload } from './upload-recovery.js'
import { mayHaveQueued, triggerFields, triggerOnce, type TriggerOptions } from './trigger.js'
import type { BuildParameters, JobInfo, JobPath, TriggerResult } from '../model/types.js'

/** Definition types whose value is an uploaded file: core's, and the file-parameters plugin's `base64File` and `stashedFile`. */
const FILE_PARAMETER_TYPES: ReadonlySet<string> = new Set([
  'FileParameterDefinition',
  'Base64FileParameterDefinition',
  'StashedFileParameterDefinition'
])

/** Characters a part's name cannot carry (commons-fileupload's ParameterParser has no escape). */
const UNSENDABLE = /["\r\n]/

/** The job's file parameters, by name. */
function fileParameters(info: JobInfo): string[] {
  return info.parameterDefinitions
    .filter(definition => FILE_PARAMETER_TYPES.has(definition.type ?? ''))
    .map(definition => definition.name)
}

/** Refuses files the job has no file parameter for, naming the ones it has; nothing is sent before. */
function checkUploads(info: JobInfo, name: string, files: readonly UploadFile[]): void {
  const accepted = fileParameters(info)
  const wrong = files.filter(file => !accepted.includes(file.name))
  if (wrong.length === 0) return
  const has =
    accepted.length === 0
      ? 'It has no file parameter (a File Parameter, or base64File/stashedFile from the File Parameters plugin)'
      : `Its file parameters are ${accepted.join(', ')}`
  const what = wrong
    .map(file => {
      const definition = info.parameterDefinitions.find(d => d.name === file.name)
      return definition
        ? `${file.name} is a ${(definition.type ?? '').replace(/ParameterDefinition$/, '') || 'plain'} parameter, not a file parameter`
        : `${file.name} is not a parameter of the job`
    })
    .join('; ')
  const given =
    wrong.length === 1 ? 'a file for a parameter that takes' : 'files for parameters that take'
  throw new JenkinsError(
    'bad-request',
    `Input 'files' gives job '${name}' ${given} none: ${what}. ${has}. Nothing was triggered.`
  )
}

/** Queues one build of `job` with `files` uploaded; see the file comment. */
export async function triggerUpload(
  http: Requester,
  info: JobInfo,
  job: JobPath,
  params: BuildParameters,
  files: readonly UploadFile[],
  options: TriggerOptions = {}
): Promise<TriggerResult> {
  const name = fullName(job)
  const uploaded = new Set(files.map(file => file.name))
  const { fields: given, undefinedNames } = triggerFields(http, info, name, params, {
    ...options,
    skip: uploaded
  })
  checkUploads(info, name, files)
  // Stapler keeps the last part of a name: several values go as one, comma-joined.
  const fields = given.map(([key, value]): [string, string] => [
    key,
    typeof value === 'string' ? value : value.join(',')
  ])
  const unsendable = [...fields.map(([key]) => key), ...files.map(file => file.name)].find(key =>
    UNSENDABLE.test(key)
  )
  if (unsendable !== undefined) {
    throw new JenkinsError(
      'bad-request',
      `Parameter name ${JSON.stringify(unsendable)} cannot be sent in a multipart body (it holds a quote or a line break). Nothing was triggered.`
    )
  }
  const body = multipartBody(fields, files)
  let sent = 0
  let finished = false
  const counted: UploadBody = {
    ...body,
    writeTo: async (out, onSent) => {
      sent = 0
      finished = false
      await body.writeTo(out, bytes => {
        sent += bytes
        onSent(bytes)
      })
      finished = true
    }
  }
  http.logger.info(
    `Uploading ${files.map(file => `${file.name} (${file.fileName}, ${formatBytes(file.size)})`).join(', ')} to '${name}': ${formatBytes(body.length)} in all.`
  )
  const base = { job, user: http.user, firstBuildNumber: info.nextBuildNumber }
  // What Jenkins stores from this request: our values, and each file parameter we upload (exported by name only).
  const complete = { ...base, parameters: expectedParameters(info.parameterDefinitions, params) }
  // What it stores from a body it could not parse: every default, no file at all.
  const broken = { ...base, parameters: expectedParameters(info.parameterDefinitions, {}) }
  for (const file of fileParameters(info)) {
    broken.parameters.delete(file)
    if (!uploaded.has(file)) complete.parameters.delete(file)
  }
  const started = Date.now()
  const outcome = await triggerOnce(
    http,
    job,
    { upload: counted },
    {
      endpoint: 'buildWithParameters',
      serverHint:
        'Jenkins also answers 500 to a parameter value it does not accept, and the File Parameters plugin to an upload it could not read.'
    }
  ).catch((error: unknown) => {
    if (error instanceof Interrupted && error.sent) {
      // A cancel mid-upload: the abort path looks for what this request queued.
      throw mayHaveQueued(
        error,
        `the upload to '${name}' was cut at ${formatBytes(sent)} of ${formatBytes(body.length)}: Jenkins may have queued a build ${finished ? 'with the files' : 'without them'}`,
        finished ? complete : broken
      )
    }
    throw error
  })
  if ('queueId' in outcome) {
    http.logger.info(uploadedLine(body, Date.now() - started))
    return { ...outcome, unknownParameters: undefinedNames }
  }
  const found = await recoverUpload(http, {
    name,
    job,
    lost: outcome.lost,
    cut: finished ? undefined : `${formatBytes(sent)} of ${formatBytes(body.length)} sent`,
    complete,
    broken,
    settleMs: options.settleMs
  })
  return { ...found, unknownParameters: undefinedNames }
}

/** Shortest upload whose rate is said (ms): under it the time is mostly Jenkins' answer, not the transfer. */
const MIN_RATE_MS = 1000

/**
 * What an upload that reached Jenkins took: the files' size, the time, and
 * the rate of the whole body when the time is long enough to tell one.
 * @internal
 */
export function uploadedLine(
  body: Pick<UploadBody, 'fileBytes' | 'length'>,
  elapsedMs: number
): string {
  const rate =
    elapsedMs >= MIN_RATE_MS ? ` (${formatBytes(body.length / (elapsedMs / 1000))}/s)` : ''
  return `Uploaded ${formatBytes(body.fileBytes)} of files in ${formatDuration(elapsedMs)}${rate}.`
}
