/**
 * The routes of the GitHub stand-in, one table: each names a call of the
 * REST API (the name faults aim at), its method and path, and how GitHub
 * answers it (docs.github.com/rest: issues/comments, pulls, commits/statuses,
 * search/issues with `status:` (the head's combined state),
 * users, collaborators' permission, repository activity). A test file adds
 * its own routes with `GithubStandIn.route()`.
 */
import type { GithubIdentity, GithubModel } from './model.js'
import { userOf } from './model.js'

/** What a route is given. */
export interface RouteContext {
  /** The path's named groups (`owner`, `repo`, `number`, `id`, `sha`, …). */
  params: Record<string, string>
  query: URLSearchParams
  /** The JSON body, parsed (undefined without one). */
  body: unknown
  /** Who the token acts as; undefined: no or an unknown token (routes answer 401). */
  identity: GithubIdentity | undefined
  model: GithubModel
  /** The stand-in's base URL, for links. */
  url: string
  /** Whether a token may edit another user's comment (GitHub: yes, with write access). */
  editOthers: boolean
}

/** An answer, before faults spoil how it travels. */
export interface Answer {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

export interface GithubRoute {
  /** What faults aim at: `comments.list`, `statuses.create`, … */
  name: string
  method: string
  path: RegExp
  answer(context: RouteContext): Answer
}

const NOT_FOUND = {
  message: 'Not Found',
  documentation_url: 'https://docs.github.com/rest'
}
const BAD_CREDENTIALS = {
  message: 'Bad credentials',
  documentation_url: 'https://docs.github.com/rest'
}
/** GitHub's words when an installation token lacks a permission or an endpoint refuses it. */
export const NOT_ACCESSIBLE = 'Resource not accessible by integration'

function json(status: number, body: unknown, headers?: Record<string, string>): Answer {
  return { status, body, ...(headers ? { headers } : {}) }
}

function authenticated(context: RouteContext, then: (identity: GithubIdentity) => Answer): Answer {
  return context.identity ? then(context.identity) : json(401, BAD_CREDENTIALS)
}

const REPO = '(?<owner>[^/]+)/(?<repo>[^/]+)'

/** The legacy `permission` GitHub gives beside `role_name`. */
const LEGACY_PERMISSION: Record<string, string> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read'
}

/** The calls the action makes. */
export const ROUTES: GithubRoute[] = [
  {
    name: 'user.get',
    method: 'GET',
    path: /^\/user$/,
    answer: context =>
      authenticated(context, identity =>
        identity.installation
          ? json(403, {
              message: NOT_ACCESSIBLE,
              documentation_url:
                'https://docs.github.com/rest/users/users#get-the-authenticated-user',
              status: '403'
            })
          : json(200, userOf(identity.login))
      )
  },
  {
    name: 'pulls.get',
    method: 'GET',
    path: new RegExp(`^/repos/${REPO}/pulls/(?<number>\\d+)$`),
    answer: ({ params, model }) => {
      const number = Number(params.number)
      const sha = model.heads.get(number)
      if (!sha) return json(404, NOT_FOUND)
      const branch = model.pullBranches.get(number)
      const [owner, name] = branch?.repo?.split('/') ?? []
      const where = branch && {
        ref: branch.ref,
        repo: branch.repo === null ? null : { name, owner: { login: owner } }
      }
      return json(200, { number, state: 'open', head: { sha, ...where } })
    }
  },
  {
    name: 'collaborators.permission',
    method: 'GET',
    path: new RegExp(`^/repos/${REPO}/collaborators/(?<user>[^/]+)/permission$`),
    answer: ({ params, model }) => {
      const user = decodeURIComponent(params.user ?? '')
      const role = model.roles.get(user)
      return json(200, {
        permission: role === undefined ? 'none' : (LEGACY_PERMISSION[role] ?? 'read'),
        role_name: role ?? '',
        user: userOf(user)
      })
    }
  },
  {
    name: 'activity.list',
    method: 'GET',
    path: new RegExp(`^/repos/${REPO}/activity$`),
    answer: ({ params, query, model }) => {
      const where = `${params.owner}/${params.repo}`
      if (![...model.changes.keys()].some(key => key.startsWith(`${where}:`))) {
        return json(404, NOT_FOUND)
      }
      const branch = (query.get('ref') ?? '').replace(/^refs\/heads\//, '')
      const perPage = Number(query.get('per_page') ?? '30')
      const list = (model.changes.get(`${where}:${branch}`) ?? []).slice(0, perPage)
      return json(
        200,
        list.map((change, i) => ({
          id: i + 1,
          ref: `refs/heads/${branch}`,
          before: '0'.repeat(40),
          after: change.after,
          timestamp: change.timestamp,
          activity_type: 'push'
        }))
      )
    }
  },
  {
    name: 'comments.list',
    method: 'GET',
    path: new RegExp(`^/repos/${REPO}/issues/(?<number>\\d+)/comments$`),
    answer: ({ params, query, model, url }) => {
      const list = model.comments.get(Number(params.number)) ?? []
      const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 30) || 30))
      const page = Math.max(1, Number(query.get('page') ?? 1) || 1)
      const last = Math.max(1, Math.ceil(list.length / perPage))
      const at = (n: number) =>
        `<${url}/repos/${params.owner}/${params.repo}/issues/${params.number}/comments?per_page=${perPage}&page=${n}>`
      const links = [
        ...(page < last ? [`${at(page + 1)}; rel="next"`, `${at(last)}; rel="last"`] : []),
        ...(page > 1 ? [`${at(1)}; rel="first"`, `${at(page - 1)}; rel="prev"`] : [])
      ]
      return json(
        200,
        list.slice((page - 1) * perPage, page * perPage),
        links.length > 0 ? { link: links.join(', ') } : undefined
      )
    }
  },
  {
    name: 'comments.create',
    method: 'POST',
    path: new RegExp(`^/repos/${REPO}/issues/(?<number>\\d+)/comments$`),
    answer: context =>
      authenticated(context, identity => {
        const body = (context.body as { body?: unknown } | undefined)?.body
        if (typeof body !== 'string') return json(422, { message: 'Invalid request.' })
        return json(
          201,
          context.model.addComment(Number(context.params.number), identity.login, body)
        )
      })
  },
  {
    name: 'comments.update',
    method: 'PATCH',
    path: new RegExp(`^/repos/${REPO}/issues/comments/(?<id>\\d+)$`),
    answer: context =>
      authenticated(context, identity => {
        const comment = context.model.comment(Number(context.params.id))
        if (!comment) return json(404, NOT_FOUND)
        if (!context.editOthers && comment.user.login !== identity.login) {
          return json(403, { message: NOT_ACCESSIBLE })
        }
        const body = (context.body as { body?: unknown } | undefined)?.body
        if (typeof body !== 'string') return json(422, { message: 'Invalid request.' })
        context.model.editComment(comment, body)
        return json(200, comment)
      })
  },
  {
    name: 'comments.delete',
    method: 'DELETE',
    path: new RegExp(`^/repos/${REPO}/issues/comments/(?<id>\\d+)$`),
    answer: context =>
      authenticated(context, () =>
        context.model.deleteComment(Number(context.params.id))
          ? { status: 204 }
          : json(404, NOT_FOUND)
      )
  },
  {
    name: 'search.issues',
    method: 'GET',
    path: /^\/search\/issues$/,
    answer: ({ query, model, url }) => {
      // The qualifiers the action sends: repo:, is:pr, is:open, status: (the head's combined state).
      const terms = (query.get('q') ?? '').split(/\s+/).filter(Boolean)
      const repo = terms.find(t => t.startsWith('repo:'))?.slice(5)
      const state = terms.find(t => t.startsWith('status:'))?.slice(7)
      if (!repo || !terms.includes('is:pr')) {
        return json(422, { message: 'Validation Failed', errors: [{ code: 'invalid' }] })
      }
      const open = terms.includes('is:open')
      const order = query.get('order') === 'asc' ? 1 : -1
      const matches = [...model.heads.entries()]
        .filter(([number]) => !open || !model.closed.has(number))
        .filter(([, sha]) => !state || model.combinedState(sha) === state)
        .map(([number]) => number)
        .sort((a, b) => (a - b) * order)
      const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 30) || 30))
      const page = Math.max(1, Number(query.get('page') ?? 1) || 1)
      return json(200, {
        total_count: matches.length,
        incomplete_results: false,
        items: matches.slice((page - 1) * perPage, page * perPage).map(number => ({
          number,
          state: 'open',
          updated_at: '2026-01-01T00:00:00Z',
          pull_request: { url: `${url}/repos/${repo}/pulls/${number}` }
        }))
      })
    }
  },
  {
    name: 'statuses.list',
    method: 'GET',
    path: new RegExp(`^/repos/${REPO}/commits/(?<sha>[0-9a-f]+)/statuses$`),
    answer: ({ params, query, model }) => {
      const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 30) || 30))
      const page = Math.max(1, Number(query.get('page') ?? 1) || 1)
      return json(
        200,
        model.statusesOf(params.sha ?? '').slice((page - 1) * perPage, page * perPage)
      )
    }
  },
  {
    name: 'statuses.create',
    method: 'POST',
    path: new RegExp(`^/repos/${REPO}/statuses/(?<sha>[0-9a-f]+)$`),
    answer: context =>
      authenticated(context, identity => {
        const body = (context.body ?? {}) as Record<string, unknown>
        const text = (key: string): string | null =>
          typeof body[key] === 'string' ? (body[key] as string) : null
        const state = text('state')
        if (!state || !['error', 'failure', 'pending', 'success'].includes(state)) {
          return json(422, { message: 'Validation Failed' })
        }
        const status = context.model.addStatus(context.params.sha as string, identity.login, {
          state,
          context: text('context') ?? 'default',
          description: text('description'),
          target_url: text('target_url')
        })
        return json(201, status)
      })
  }
]
