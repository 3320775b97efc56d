/**
 * The `files` input: `NAME=path` lines, each a file of the workspace handed
 * to the job's file parameter NAME. Read in two steps, both before any
 * request: the text (parseFiles, with the other inputs), then the files on
 * disk (resolveUploads: there, a regular file, readable, not leaving the
 * workspace through a symbolic link). Whether NAME is a file parameter of the
 * job needs the job's definitions: jenkins/trigger/upload-trigger.ts checks it before
 * the trigger is sent.
 *
 * The path rules are those of the artifacts (workspace-paths.ts): relative,
 * `/`-separated, no `.`, `..` or empty segment, no backslash or drive letter.
 */
import { open, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { artifactSegments } from '../util/workspace-paths.js'
import { resolveWorkspaceFile, WorkspacePathError } from '../util/workspace-paths.js'
import { InputError } from '../util/input-error.js'
import { errorCode } from '../util/error-text.js'
import { nameValueLines } from './parameters.js'
import type { UploadFile } from '../jenkins/transport/multipart.js'

/** One `NAME=path` line, checked as text: the file parameter's name, and the path as written, relative to the workspace. */
export type FileRequest = { name: string; path: string }

const FORMS =
  'expected `NAME=path` lines, the path relative to the workspace (e.g. `PACKAGE=dist/app.zip`)'

/**
 * Parses `NAME=path` lines (blank lines skipped; name and path trimmed), or
 * an object of them (an item of `jobs`). `where` names the input in messages.
 */
export function parseFiles(value: string | Record<string, unknown>, where = "Input 'files'") {
  const entries: Array<[string, unknown, string]> = []
  if (typeof value === 'string') {
    for (const { name, value: path, line } of nameValueLines(value, where, FORMS)) {
      entries.push([name, path.trim(), `line ${line}`])
    }
  } else {
    for (const [name, path] of Object.entries(value)) entries.push([name.trim(), path, `'${name}'`])
  }
  const files: FileRequest[] = []
  for (const [name, path, at] of entries) {
    if (name === '') throw new InputError(`${where} ${at} has an empty NAME: ${FORMS}.`)
    if (typeof path !== 'string' || path === '') {
      throw new InputError(`${where} ${at} has no path for ${name}: ${FORMS}.`)
    }
    // Jenkins keeps one part per name (Stapler's last): a second would be lost.
    if (files.some(file => file.name === name)) {
      throw new InputError(`${where} names ${name} twice: a file parameter takes one file.`)
    }
    // The same lexical rules as artifacts-path; the disk is checked in resolveUploads.
    const segments = artifactSegments(path)
    if (!Array.isArray(segments)) {
      throw new InputError(
        `${where} ${at}: the path for ${name} ('${path}') ${segments.reason}: ${FORMS}, inside the workspace.`
      )
    }
    files.push({ name, path })
  }
  return files
}

/**
 * Each file checked on disk and measured, or a clear error: missing, a
 * folder, unreadable, or leaving the workspace through a symbolic link.
 */
export async function resolveUploads(
  files: readonly FileRequest[],
  workspace: string,
  where = "Input 'files'"
): Promise<UploadFile[]> {
  const uploads: UploadFile[] = []
  for (const file of files) {
    const refuse = (why: string): InputError =>
      new InputError(`${where}: ${file.name}=${file.path} ${why}. Nothing was sent to Jenkins.`)
    // Component by component: a link out of the workspace is refused and named.
    const real = await resolveWorkspaceFile(workspace, file.path).catch((error: unknown) => {
      const why = error instanceof WorkspacePathError ? error.reason : undefined
      throw refuse(why ?? `cannot be read (${errorCode(error) ?? String(error)})`)
    })
    const info = await stat(real)
    await open(real, 'r')
      .then(handle => handle.close())
      .catch((error: unknown) => {
        throw refuse(`cannot be read (${errorCode(error) ?? 'error'})`)
      })
    uploads.push({
      name: file.name,
      path: real,
      // Core keeps the name after the last / and \ (FileParameterDefinition.getFileName);
      // a quote or line break would end the part's header early.
      fileName: basename(file.path).replace(/["\\\r\n]/g, '_'),
      size: info.size
    })
  }
  return uploads
}
