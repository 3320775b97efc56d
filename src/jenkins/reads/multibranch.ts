/**
 * Multibranch projects: starting a scan (branch indexing) and reading its
 * log. Sources: cloudbees-folder's ComputedFolder.doBuild and
 * FolderComputation, branch-api's MultiBranchProject.getIndexing.
 */
import { fullName, jobUrl } from '../model/job-path.js'
import type { Requester } from '../transport/requester.js'
import { logOffsets } from './reads.js'
import { errorForResponse } from '../transport/responses.js'
import type { JobPath } from '../model/types.js'

/** A poll reads at most this much of the scan log; a scan that wrote more since is skipped ahead. */
const LOG_CHUNK_LIMIT = 1024 * 1024

/**
 * POST <project>/build?delay=0sec. ComputedFolder.doBuild checks Job/Build,
 * answers 500 when the project is disabled ("cannot be recomputed"), queues
 * the scan (merged into one already queued) and redirects back (302): there
 * is no queue Location to follow. A repeated POST only merges, so a request
 * whose answer was lost may be sent again.
 */
export async function scanMultibranch(http: Requester, project: JobPath): Promise<void> {
  const name = fullName(project)
  const context = http.context(`the scan of multibranch project '${name}'`, {
    notFound: `Multibranch project '${name}' was not found on Jenkins at ${http.baseUrl} (404)${http.anonymousHint()}`,
    permission: 'Job/Build',
    serverHint: 'Jenkins answers 500 when the project is disabled.',
    // A scan needs Job/Build on the project: a job token is no help there.
    jobTokenOnly: false
  })
  const { response, body } = await http.post(
    'scan',
    `${jobUrl(http.baseUrl, project)}build?delay=0sec`,
    context,
    {
      retryStatuses: new Set([429, 502, 503, 504])
    }
  )
  const status = response.status
  if ((status >= 200 && status < 300) || (status >= 301 && status <= 303)) return
  throw errorForResponse(response, body, context)
}

/**
 * GET <project>/indexing/logText/progressiveText?start=N: LargeText over
 * the scan's log file (FolderComputation.getLogText), X-More-Data while its
 * result is unset. Until a queued scan starts this is the previous scan's
 * log, complete (ComputedFolder.createExecutable replaces it then). A
 * stretch of it, with the offsets: its `text` from `start`, CRLF as Jenkins
 * sends it, notes included; `truncated` when the answer was longer than the
 * client reads at once (`text` holds its start only).
 */
export async function indexingLog(http: Requester, project: JobPath, start: number) {
  const name = fullName(project)
  const context = http.context(`the scan log of '${name}'`, {
    notFound: `Multibranch project '${name}' has no scan log on Jenkins at ${http.baseUrl} (404)`
  })
  return http.read(
    'scan-log',
    `${jobUrl(http.baseUrl, project)}indexing/logText/progressiveText?start=${start}`,
    context,
    async response => {
      const offsets = logOffsets(http, response, context)
      const text = await response.text(LOG_CHUNK_LIMIT)
      return { text, ...offsets, truncated: Buffer.byteLength(text) >= LOG_CHUNK_LIMIT }
    }
  )
}
