/**
 * `settle: true`: the hand-offs still pending (outcome/pending-hand-offs.ts)
 * whose Jenkins work ended are settled through the path a followed build
 * ends by (build-ended.ts: judged by `accept`, read, its final status),
 * then the pull request's comment and a summary row. A build still queued
 * or running gets nothing (a late pending status could undo another run's
 * final one); nothing in Jenkins is ever triggered or stopped. The step
 * fails only on its own errors. docs/hand-off.md.
 */
import { buildNumberByQueueId, queueItemJob } from '../follow/queue-ended.js'
import { buildRef } from '../follow/build-parts.js'
import { fullName, sameJob } from '../jenkins/model/job-path.js'
import type { Build, BuildRef } from '../jenkins/model/types.js'
import { unlessNotFound } from '../jenkins/transport/errors.js'
import { repositoryOf } from '../outcome/commit-under-test.js'
import { GithubReports } from '../outcome/github-reports.js'
import { failureEnd } from '../outcome/github-transport.js'
import {
  pendingHandOffs,
  stillPending,
  type LookOptions,
  type PendingHandOff
} from '../outcome/pending-hand-offs.js'
import { writeSummary, type BuildReport } from '../outcome/report.js'
import { Output } from '../util/constants.js'
import type { StepRun } from './bounded-step.js'
import { judgeEnd, reportEnded } from './build-ended.js'

/** Where a hand-off's Jenkins work is: still going, ended as a build, or ended without one. */
type Where =
  | { kind: 'going'; what: string }
  | { kind: 'ended'; build: Build; ref: BuildRef }
  | { kind: 'no-build'; why: string }

/** Settles the hand-offs whose builds ended; the `settled` output and a summary row for each. */
export async function settleHandOffs(step: StepRun): Promise<void> {
  const { settings, io } = step
  const log = io.logger
  const repository = repositoryOf(process.env)
  if (!repository) {
    throw new Error(
      `Input 'settle' needs the repository whose statuses to settle: GITHUB_REPOSITORY is not set (run it in a workflow).`
    )
  }
  // Octokit loads only in this mode (start-up cost); "eager" keeps it in the one bundle file.
  const github = await import(/* webpackMode: "eager" */ '../outcome/github-client.js')
  // One session for the step: its rate limits and what is said once hold across the hand-offs.
  const session = new github.GithubSession({
    token: settings.githubToken,
    logger: log,
    bounds: step.githubBounds
  })
  const where = { ...repository, session }
  let found: PendingHandOff[]
  try {
    found = await pendingHandOffs({ ...where, settings })
  } catch (error) {
    throw new Error(
      `Settle: could not read the pending statuses of ${repository.owner}/${repository.repo} from GitHub${failureEnd(error, io.redact)}. The github-token needs \`statuses: write\` and \`pull-requests: read\`.`
    )
  }
  const settled = []
  for (const handOff of found) {
    const done = await settleOne(step, handOff, where)
    if (done) settled.push(done)
  }
  io.setOutput(Output.Settled, JSON.stringify(settled.map(done => done.entry)))
  log.info(
    `Settle: ${settled.length} hand-off(s) settled, ${found.length - settled.length} still in Jenkins or left as they were, of ${found.length} pending.`
  )
  const reports = settled.map(done => done.report)
  if (reports.length > 0) await writeSummary(io.summary, reports, log, { several: true })
}

/** One hand-off: nothing while its work goes on; else its end reported as a followed build's. */
async function settleOne(step: StepRun, h: PendingHandOff, where: Omit<LookOptions, 'settings'>) {
  const { api, settings, io, signal } = step
  const log = io.logger
  const name = fullName(h.job)
  const at = await whereIs(step, h)
  if (at.kind === 'going') {
    log.info(`Settle: '${h.context}' on ${h.sha.slice(0, 12)}: ${at.what}; nothing written.`)
    return undefined
  }
  const reports = await GithubReports.start({
    settings: {
      ...settings,
      commitStatus: true,
      commit: h.sha,
      ...(h.pull === undefined ? {} : { pullRequest: h.pull })
    },
    logger: log,
    setOutput: () => undefined,
    redact: text => io.redact(text),
    reportName: h.context,
    session: where.session
  })
  const status = reports.status(h.context, { stillOurs: () => stillPending(where, h) })
  const report: BuildReport = { outcome: { jobName: name, jobUrl: api.jobUrl(h.job) }, tail: [] }
  const { outcome } = report
  if (at.kind === 'ended') {
    outcome.buildUrl = at.ref.url
    judgeEnd(outcome, at.build, { ref: at.ref, accept: settings.accept, logger: log })
    await reportEnded({
      api,
      settings,
      ref: at.ref,
      final: at.build,
      outcome,
      signal,
      out: { logger: log, annotate: (message, title, place) => io.annotate(message, title, place) },
      reports,
      owners: [{ status, report }]
    })
  } else {
    report.error = at.why
    log.info(`Settle: '${h.context}' on ${h.sha.slice(0, 12)}: ${at.why}.`)
    await status?.finish('error', at.why, { url: api.jobUrl(h.job) })
  }
  const state = status?.written
  if (state === undefined || state === 'pending') return undefined
  await reports.show([report], { final: true })
  return {
    entry: {
      commit: h.sha,
      context: h.context,
      job: name,
      'build-url': outcome.buildUrl ?? null,
      result: outcome.result ?? null,
      state
    },
    report
  }
}

/**
 * Where the hand-off's work is, in at most 2 reads while it goes on: its
 * build by number, or its queue item and then its build; a forgotten item
 * by its queue id among the job's recent builds (as `build:` finds it).
 * @internal
 */
export async function whereIs({ api }: StepRun, h: PendingHandOff): Promise<Where> {
  const name = fullName(h.job)
  const { queueId } = h.handOff
  let number = h.handOff.build
  if (number === undefined && queueId !== undefined) {
    const read = await unlessNotFound(api.getQueueItem(queueId), undefined)
    // Some restarts number the queue afresh: an item of another job is not this hand-off's.
    const named = read && queueItemJob(read)
    const item = named && !sameJob(named, h.job) ? undefined : read
    if (item?.cancelled) return { kind: 'no-build', why: 'cancelled in Jenkins' }
    if (item && !item.executable) {
      return { kind: 'going', what: `queue item ${queueId} of ${name} is still in the queue` }
    }
    number = item?.executable?.number ?? (await buildNumberByQueueId(api, h.job, queueId))
    if (number === undefined) {
      return {
        kind: 'no-build',
        why: `Jenkins no longer knows queue item ${queueId}, and no recent build of ${name} came from it`
      }
    }
  }
  if (number === undefined)
    return { kind: 'no-build', why: 'the hand-off names no queue item or build' }
  const build = await unlessNotFound(api.getBuild(h.job, number), undefined)
  if (!build) return { kind: 'no-build', why: `Jenkins no longer has build #${number} of ${name}` }
  const ref = buildRef(api, h.job, number)
  if (build.building)
    return { kind: 'going', what: `Jenkins build ${name} #${number} is still running` }
  return { kind: 'ended', build, ref }
}
