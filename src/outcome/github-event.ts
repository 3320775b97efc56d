/**
 * The event that started the run, as the runner gives it: GITHUB_EVENT_NAME,
 * the payload at GITHUB_EVENT_PATH, GITHUB_SHA and GITHUB_REPOSITORY. Read
 * here, once per use, and never by @actions/github's context, which parses
 * the file when its module loads and throws there on a file that is not
 * JSON or is a folder: a broken event file is said, not thrown.
 */
import { readFileSync } from 'node:fs'
import type { EventContext } from './commit-under-test.js'
import { errorCode } from '../util/error-text.js'
import { isRecord, REPO_NAME } from './github-values.js'

/** What the runner gave: no repository (outside a workflow), an event file that cannot be read, or the event. */
export type RunnerEvent =
  | { kind: 'outside' }
  | { kind: 'broken'; eventName: string; why: string }
  | { kind: 'read'; context: EventContext }

/** GITHUB_REPOSITORY as owner and name; undefined outside a workflow (or not a repository's name). */
export function repositoryOf(env: NodeJS.ProcessEnv): EventContext['repo'] | undefined {
  const parts = (env.GITHUB_REPOSITORY ?? '').split('/').map(part => REPO_NAME.decode(part))
  const [owner, repo, ...rest] = parts
  return owner && repo && rest.length === 0 ? { owner, repo } : undefined
}

/** The event of the run, from the runner's environment. */
export function readEvent(env: NodeJS.ProcessEnv): RunnerEvent {
  const repo = repositoryOf(env)
  if (!repo) return { kind: 'outside' }
  const eventName = env.GITHUB_EVENT_NAME ?? ''
  const broken = (why: string): RunnerEvent => ({ kind: 'broken', eventName, why })
  let payload: unknown = {}
  try {
    if (env.GITHUB_EVENT_PATH) payload = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8'))
  } catch (error) {
    const code = errorCode(error)
    if (error instanceof SyntaxError) return broken('is not JSON')
    // No event file (a terminal run): GITHUB_SHA is the commit, as for push.
    if (code !== 'ENOENT') {
      return broken(code === 'EISDIR' ? 'is a folder' : `cannot be read (${code ?? 'error'})`)
    }
  }
  if (!isRecord(payload)) return broken('holds no JSON object')
  return { kind: 'read', context: { eventName, payload, sha: env.GITHUB_SHA ?? '', repo } }
}

/** The sentence that names a broken event file: `the event file (GITHUB_EVENT_PATH) is not JSON`. */
export function brokenEvent(why: string): string {
  return `the event file (GITHUB_EVENT_PATH) ${why}`
}
