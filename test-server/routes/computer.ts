/**
 * `computer/…`: the ComputerSet (jenkinsci/jenkins core
 * hudson/model/ComputerSet.java, Computer.java, Executor.java). This server
 * has one computer, the built-in node, with `executors` executors:
 * - a freestyle build holds a regular executor until Executor.run returns,
 *   which is after `building` turned false, `Finished:` and the log closed
 *   (Run.execute, then Executor.finish2);
 * - a Pipeline's WorkflowRun holds a one-off (flyweight) executor until
 *   WorkflowRun.finish has closed its log (completeAsynchronousExecution is
 *   its last act), and its `node` block a regular executor, whose
 *   PlaceholderExecutable exports the run's `url` and `number` but no
 *   `queueId` (workflow-durable-task-step ExecutorStepExecution); here the
 *   block ends when the build stops building;
 * - `currentExecutable` is null for a caller without Item/Read on it
 *   (Executor.getCurrentExecutableForApi), and for an idle executor.
 * `/computer` needs Overall/Read like any page (routes/index.ts). With
 * ServerOptions.executorsHidden the list shows no build, as a ComputerSource
 * plugin that filters it (ComputerSet.ComputerSource) or a proxy rule would.
 */
import type { Build } from '../model/build.js'
import type { Exchange } from '../http/exchange.js'
import { buildJson, buildUrl, jenkinsTime } from '../http/json.js'
import { layoutPage } from '../http/pages.js'
import type { JobState } from '../model/state.js'
import { can, notFound, sendApiJson, sendLayout } from './respond.js'

type Json = Record<string, unknown>

const PLACEHOLDER =
  'org.jenkinsci.plugins.workflow.support.steps.ExecutorStepExecution$PlaceholderTask$PlaceholderExecutable'

export function computer(ex: Exchange, rest: string[]): void {
  if (rest.length === 0) return sendLayout(ex, 200, layoutPage('Nodes', '<h1>Nodes</h1>'))
  if (rest.length === 2 && rest[0] === 'api' && rest[1] === 'json') {
    return sendApiJson(ex, depth => computerSetJson(ex, depth))
  }
  notFound(ex)
}

/** The builds that hold an executor now, oldest first. */
function holding(ex: Exchange): Build[] {
  const builds: Build[] = []
  const walk = (items: Iterable<JobState>): void => {
    for (const item of items) {
      for (const build of item.builds as Build[]) if (build.logClosedAt === null) builds.push(build)
      walk(item.children.values())
    }
  }
  walk(ex.ctx.model.root.children.values())
  return builds.sort((a, b) => a.startedAt - b.startedAt)
}

function computerSetJson(ex: Exchange, depth: number): Json {
  const ctx = ex.ctx.json
  const builds = ex.ctx.executorsHidden ? [] : holding(ex)
  // Level 1 is a computer (inline), 2 an executor, 3 its executable.
  const executable = (build: Build, placeholder: boolean): Json | null => {
    if (!can(ex, 'read')) return null
    if (!placeholder) return buildJson(ctx, build, 3, depth)
    return {
      _class: PLACEHOLDER,
      displayName: `${build.job.displayName} #${build.number}`,
      estimatedDuration: ctx.model.estimatedDuration(build.job),
      number: build.number,
      timestamp: jenkinsTime(ctx, build.startedAt),
      url: buildUrl(ctx, build)
    }
  }
  const executorJson = (number: number, build: Build | undefined, placeholder: boolean): Json =>
    depth < 1
      ? { _class: 'hudson.model.Executor' }
      : {
          _class: 'hudson.model.Executor',
          currentExecutable: build ? executable(build, placeholder) : null,
          idle: build === undefined,
          likelyStuck: false,
          number,
          progress: build ? 50 : -1
        }
  const regular = builds.filter(b => b.job.type !== 'pipeline' || b.building)
  const executors: Json[] = []
  for (let i = 0; i < Math.max(ctx.executors, regular.length); i++) {
    const build = regular[i]
    executors.push(executorJson(i, build, build?.job.type === 'pipeline'))
  }
  const oneOff = builds.filter(b => b.job.type === 'pipeline').map(b => executorJson(-1, b, false))
  return {
    _class: 'hudson.model.ComputerSet',
    busyExecutors: Math.min(ctx.executors, regular.length),
    computer: [
      {
        _class: 'hudson.model.Hudson$MasterComputer',
        displayName: 'Built-In Node',
        executors,
        idle: builds.length === 0,
        numExecutors: ctx.executors,
        offline: false,
        oneOffExecutors: oneOff
      }
    ],
    displayName: 'Nodes',
    totalExecutors: ctx.executors
  }
}
