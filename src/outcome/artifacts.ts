import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, realpath, rename, rm } from 'node:fs/promises'
import { basename, dirname, join, relative, sep } from 'node:path'
import { selectArtifacts } from '../inputs/artifact-patterns.js'
import { formatBytes } from '../util/bytes.js'
import { collectGarbage } from '../util/heap.js'
import type { Settings } from '../inputs/inputs.js'
import type { ArtifactSink, BuildRef } from '../jenkins/model/types.js'
import type { BuildOutputsApi } from '../jenkins/client.js'
import { JenkinsError } from '../jenkins/transport/errors.js'
import { warnUnread, type Logger } from '../util/logger.js'
import { throwIfAborted } from '../util/wait.js'
import { artifactTarget, walkCheckedInside, WorkspacePathError } from '../util/workspace-paths.js'
import { errorText } from '../util/error-text.js'

/** What the artifact download did, for outputs, the summary and the step's verdict. */
export interface ArtifactsOutcome {
  /** Files written, relative to the workspace, '/'-separated (the `artifacts` output). */
  written: string[]
  /** The folder they went to, relative to the workspace. */
  folder: string
  bytes: number
  /** Paths Jenkins sent that would not land inside the folder; never written. */
  refused: Array<Pick<WorkspacePathError, 'path' | 'reason'>>
  /** Why the step must fail although the build's result is accepted (a wanted file missing). */
  problems: string[]
}

/** Downloads at once: enough to hide latency on many small files, each in constant memory. */
const PARALLEL = 4
/**
 * Bytes received between scavenges that free the socket's read buffers
 * (heap.ts). Measured on 200 MB (npm run bench, outcome): every 16 MiB left
 * the step at 117 MB of RSS and slower; every 2 MiB, about 89 MB.
 */
const COLLECT_EVERY = 2 * 1024 * 1024
/**
 * The file's write buffer: with Node's 16 KiB each 64 KiB socket chunk waited
 * for its own write (0.52-0.59x curl's throughput); 1 MiB lets writes batch
 * while the socket is read (about 0.8x); 4 MiB held too many buffers (122 MB).
 */
const WRITE_BUFFER = 1024 * 1024
/** Names a warning lists of what the build does have. */
const SHOWN_NAMES = 5

/**
 * Downloads the build's artifacts that the `artifacts` patterns select into
 * `artifacts-path`, keeping their relative paths. Every `relativePath`
 * Jenkins sends is checked before anything is matched or written: one that
 * would leave the folder is refused and named. Each file is streamed to a
 * temporary name in its folder and renamed into place once whole.
 */
export async function downloadArtifacts(
  api: Pick<BuildOutputsApi, 'listArtifacts' | 'downloadArtifact'>,
  settings: Pick<Settings, 'artifacts' | 'artifactsPath' | 'workspace'>,
  build: BuildRef,
  logger: Logger,
  signal?: AbortSignal,
  unread: string[] = []
): Promise<ArtifactsOutcome> {
  const root = settings.artifactsPath
  const outcome: ArtifactsOutcome = {
    written: [],
    folder: posix(relative(settings.workspace, root)) || '.',
    bytes: 0,
    refused: [],
    problems: []
  }
  const list = await api.listArtifacts(build).catch((error: unknown) => {
    // An answer that cannot be read (malformed, nested too deep) is a part
    // of the outcome missing, not the build failing; no answer at all
    // (credentials, permission, network) still fails the step.
    if (!(error instanceof JenkinsError && error.kind === 'protocol')) throw error
    warnUnread(
      `The artifacts list of Jenkins build #${build.number} could not be read, so no artifact was downloaded: ${error.message}`,
      logger,
      unread
    )
  })
  if (!list) return outcome
  if (list.truncated) {
    logger.warning(
      `Jenkins build #${build.number} has more than ${list.paths.length} artifacts; only the first ${list.paths.length} were matched against 'artifacts'.`
    )
  }
  const safe = list.paths.filter(path => {
    const target = artifactTarget(root, path)
    if (typeof target === 'string') return true
    outcome.refused.push(target)
    logger.warning(
      `Refused artifact path ${JSON.stringify(path)} from Jenkins build #${build.number}: it ${target.reason}, so it could land outside '${outcome.folder}'. Not written.`
    )
    return false
  })
  // A refused file the patterns ask for is one the user will miss.
  const wantedRefused = selectArtifacts(
    settings.artifacts,
    outcome.refused.map(r => r.path)
  ).selected
  if (wantedRefused.length > 0) {
    outcome.problems.push(
      `The 'artifacts' patterns select ${wantedRefused.length} artifact path(s) that were refused because they would land outside '${outcome.folder}': ${wantedRefused.map(p => JSON.stringify(p)).join(', ')}. Exclude them with a '!' line if they are not needed.`
    )
  }
  const selection = selectArtifacts(settings.artifacts, safe)
  const more = safe.length > SHOWN_NAMES ? `, … (${safe.length} in all)` : ''
  const matched =
    safe.length === 0
      ? `nothing: Jenkins build #${build.number} archived no artifacts.`
      : `none of the artifacts of Jenkins build #${build.number}. It has: ${safe.slice(0, SHOWN_NAMES).join(', ')}${more}.`
  for (const pattern of selection.unmatched) {
    logger.warning(`Artifact pattern '${pattern.text}' matched ${matched}`)
  }
  if (selection.selected.length === 0) return outcome

  const rootReal = await prepareRoot(root, settings.workspace)
  // By the selection's index: workers finish out of order, the output lists files in Jenkins' order.
  const written: Array<string | undefined> = []
  const downloadOne = async (path: string, index: number): Promise<void> => {
    // A selected path passed artifactSegments already: '/' separates its names, none empty.
    const folders = path.split('/').slice(0, -1)
    try {
      // Folder by folder, each checked before the next is made in it: a
      // symbolic link in the way that leads out is refused before anything is
      // created through it. The file goes into the folder's real path.
      const folder = await walkCheckedInside(root, rootReal, folders, path).catch(
        (error: unknown) => {
          if (!leadsOut(error)) throw error
          outcome.refused.push({
            path,
            reason: `passes through the symbolic link '${error.link}', which leads out of it (to ${error.target})`
          })
          outcome.problems.push(
            `Artifact ${JSON.stringify(path)} was not written: the symbolic link '${posix(join(outcome.folder, error.link))}' leads out of '${outcome.folder}' (to ${error.target}).`
          )
        }
      )
      if (folder === undefined) return
      const target = join(folder, basename(path))
      const done = await api.downloadArtifact(build, path, () => openSink(target))
      outcome.bytes += done.bytes
      written[index] = posix(join(outcome.folder, path))
      logger.info(`Downloaded artifact ${JSON.stringify(path)} (${formatBytes(done.bytes)}).`)
    } catch (error) {
      throwIfAborted(signal)
      if (error instanceof JenkinsError && error.kind === 'aborted') throw error
      outcome.problems.push(
        `Artifact ${JSON.stringify(path)} was not downloaded: ${errorText(error)}`
      )
    }
  }
  // One queue the workers share: each takes the next path when it is free.
  const queue = selection.selected.entries()
  const worker = async (): Promise<void> => {
    for (const [index, path] of queue) await downloadOne(path, index)
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL, selection.selected.length) }, worker))
  outcome.written = written.filter(path => path !== undefined)
  logger.info(
    `Downloaded ${outcome.written.length} artifact(s) of Jenkins build #${build.number} (${formatBytes(outcome.bytes)}) into ${outcome.folder}.`
  )
  return outcome
}

/** A temporary file next to the target, renamed over it once the body is whole. */
async function openSink(target: string): Promise<ArtifactSink> {
  const temp = join(
    dirname(target),
    `.${basename(target).slice(0, 100)}.${randomBytes(6).toString('hex')}.part`
  )
  // 'wx': a fresh file, never one that exists (or a link planted in its place).
  const stream = createWriteStream(temp, { flags: 'wx', highWaterMark: WRITE_BUFFER })
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve())
    stream.once('error', reject)
  })
  let collectAt = COLLECT_EVERY
  return {
    stream,
    progress: bytes => {
      if (bytes < collectAt) return
      collectAt = bytes + COLLECT_EVERY
      collectGarbage('minor')
    },
    commit: () => rename(temp, target),
    discard: async () => {
      stream.destroy()
      await rm(temp, { force: true })
    }
  }
}

/**
 * Creates the folder one level at a time below the workspace, refusing a
 * symbolic link out of it before creating anything through it; returns where
 * the folder really is.
 */
async function prepareRoot(root: string, workspace: string): Promise<string> {
  // The workspace itself is the runner's (a test's may not exist yet): made as it is.
  await mkdir(workspace, { recursive: true })
  const workspaceReal = await realpath(workspace)
  const segments = relative(workspace, root)
    .split(sep)
    .filter(s => s !== '')
  try {
    return await walkCheckedInside(workspace, workspaceReal, segments, root)
  } catch (error) {
    if (leadsOut(error)) {
      throw new Error(
        `Input 'artifacts-path' (${root}) leads out of the workspace through a symbolic link: '${error.link}' leads to ${error.target}, outside ${workspaceReal}. Expected a folder inside the workspace; nothing was created through the link.`
      )
    }
    if (!(error instanceof WorkspacePathError)) throw error
    throw new Error(
      `Input 'artifacts-path' (${root}) ${error.reason}: expected a folder inside the workspace.`
    )
  }
}

/** The path went through a symbolic link that leads out of where it must stay (not one that leads nowhere). */
function leadsOut(error: unknown): error is WorkspacePathError & { link: string } {
  return error instanceof WorkspacePathError && error.link !== undefined && !error.dangling
}

function posix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/')
}
