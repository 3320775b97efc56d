/**
 * The routes of the GitHub REST API a comment command reads (issue 32 §6),
 * as a table over a state the test sets: a user's role on the repository,
 * a pull request's head (with its branch and repository, as GitHub answers
 * them), and each branch's recorded changes, newest first. Written to be
 * folded into the shared GitHub stand-in (its own routes answer statuses
 * and comments): `handle` tries the table and says whether it answered.
 */
import type { ServerResponse } from 'node:http'
import type { RecordedRequest } from './helpers.js'

/** A pull request's head: the commit, and the branch of which repository it is. */
interface StandInHead {
  sha: string
  ref: string
  /** `owner/name` of the head repository; null: a deleted fork. */
  repo: string | null
}

/** A branch change as GitHub records it. */
interface StandInChange {
  after: string
  /** GitHub's time, `2026-03-01T12:00:09Z`. */
  timestamp: string
}

export interface CommentCommandState {
  /** `role_name` per login on the repository; a login not here is no collaborator. */
  roles: Map<string, string>
  /** Pull requests of the repository by number; one not here answers 404. */
  pulls: Map<number, StandInHead>
  /** Each branch's changes, newest first, by `owner/name:branch`; a repository not here answers 404. */
  changes: Map<string, StandInChange[]>
}

/** The legacy `permission` GitHub gives beside `role_name`. */
const LEGACY: Record<string, string> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read'
}

type Answer = { status: number; body: unknown }
interface Route {
  method: string
  path: RegExp
  answer(match: RegExpExecArray, url: URL): Answer
}

const notFound: Answer = { status: 404, body: { message: 'Not Found' } }

/** The routes of `state` for the repository `repository` (`owner/name`). */
export function commentCommandRoutes(state: CommentCommandState, repository: string): Route[] {
  const repo = repository.replace('/', '\\/')
  return [
    {
      method: 'GET',
      path: new RegExp(`^/repos/${repo}/collaborators/([^/]+)/permission$`),
      answer: ([, user = '']) => {
        const role = state.roles.get(decodeURIComponent(user))
        return {
          status: 200,
          body: {
            permission: role === undefined ? 'none' : (LEGACY[role] ?? 'read'),
            role_name: role ?? '',
            user: { login: decodeURIComponent(user) }
          }
        }
      }
    },
    {
      method: 'GET',
      path: new RegExp(`^/repos/${repo}/pulls/(\\d+)$`),
      answer: ([, number]) => {
        const head = state.pulls.get(Number(number))
        if (!head) return notFound
        const [owner, name] = head.repo?.split('/') ?? []
        return {
          status: 200,
          body: {
            number: Number(number),
            head: {
              sha: head.sha,
              ref: head.ref,
              repo: head.repo === null ? null : { name, owner: { login: owner } }
            }
          }
        }
      }
    },
    {
      method: 'GET',
      path: /^\/repos\/([^/]+\/[^/]+)\/activity$/,
      answer: ([, where = ''], url) => {
        const ref = url.searchParams.get('ref') ?? ''
        const branch = ref.replace(/^refs\/heads\//, '')
        const known = [...state.changes.keys()].some(key => key.startsWith(`${where}:`))
        if (!known) return notFound
        const perPage = Number(url.searchParams.get('per_page') ?? '30')
        const list = (state.changes.get(`${where}:${branch}`) ?? []).slice(0, perPage)
        return {
          status: 200,
          body: list.map((change, i) => ({
            id: i + 1,
            ref: `refs/heads/${branch}`,
            before: '0'.repeat(40),
            after: change.after,
            timestamp: change.timestamp,
            activity_type: 'push'
          }))
        }
      }
    }
  ]
}

/** Answers `req` from `routes`; false when none of them is its route. */
export function handle(
  routes: readonly Route[],
  req: RecordedRequest,
  res: ServerResponse
): boolean {
  const url = new URL(req.url, 'http://github.test')
  for (const route of routes) {
    const match = route.method === req.method ? route.path.exec(url.pathname) : null
    if (!match) continue
    const { status, body } = route.answer(match, url)
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
    return true
  }
  return false
}
