/**
 * End to end: a Pipeline's stages (issue 11) — the `stages` output and the
 * summary table, the failure annotation naming the failed stage, the log
 * line (or notice) with the page where a paused `input` can be answered,
 * and a Jenkins without the Stage View plugin. Every request checked is
 * this run's own (job and build number).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation, startAction } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { ADMIN_TOKEN, auth, commands, describeRun, run, runnerView, RUNTIMES } from './helpers.js'

const ADMIN = `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`
const STAGES = [
  { name: 'Build', durationMs: 100 },
  { name: 'Approve', durationMs: 50, input: { message: 'Ship it?', id: 'Ship' } },
  { name: 'Test', durationMs: 100, result: 'FAILURE' as const },
  { name: 'Deploy', durationMs: 100 }
]

/** The build's stages as the `stages` output has them, durations left out. */
function stageStatuses(output: string | undefined): Array<[string, string]> {
  return (
    JSON.parse(output ?? 'null') as Array<{ name: string; status: string; durationMillis: unknown }>
  ).map(s => {
    expect(typeof s.durationMillis).toBe('number')
    return [s.name, s.status]
  })
}

describe.each(RUNTIMES)('Pipeline stages ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  let bare: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 4,
      jobs: {
        approve: { type: 'pipeline', script: { stages: STAGES } },
        'approve-quiet': {
          type: 'pipeline',
          script: { stages: STAGES.map(s => (s.input ? { ...s, name: '##[error]Approve' } : s)) }
        },
        'stage-names': {
          type: 'pipeline',
          script: {
            stages: [
              { name: '::error::stage', durationMs: 50 },
              { name: '<b>bold</b> | *x*', durationMs: 50, result: 'UNSTABLE' }
            ]
          }
        },
        freestyle: { script: { durationMs: 100 } }
      }
    })
    bare = await startJenkins({
      stageView: false,
      quietPeriodSec: 0,
      jobs: { pipe: { type: 'pipeline', script: { stages: STAGES.slice(0, 1) } } }
    })
  })
  afterAll(async () => {
    await jenkins.close()
    await bare.close()
  })

  /** POSTs proceedEmpty once the run says where to answer, and checks the page it names. */
  async function answerWhenAsked(
    running: ReturnType<typeof startAction>,
    line: RegExp
  ): Promise<string> {
    await running.waitForOutput(line, 40_000)
    // What the step printed so far is all a person would have to go on.
    const inputUrl = line.exec(running.stdout())?.[1] ?? ''
    expect((await fetch(inputUrl, { headers: { authorization: ADMIN } })).status).toBe(200)
    const proceed = await fetch(`${inputUrl}Ship/proceedEmpty`, {
      method: 'POST',
      headers: { authorization: ADMIN }
    })
    expect(proceed.status).toBe(200)
    return inputUrl
  }

  describe.concurrent('stages', () => {
    it('an input pause is logged once with its page; the failed stage is named; stages in output and summary', async () => {
      const running = startAction(
        { ...auth(jenkins), job: 'approve' },
        { node, killAfterMs: 60_000 }
      )
      const line = /is waiting for input in stage "Approve": answer it at (\S+)/
      const inputUrl = await answerWhenAsked(running, line)
      const r = await running.done
      expect(r.code, describeRun(r)).toBe(1)
      const n = r.outputs['build-number']
      expect(inputUrl).toBe(`${jenkins.url}/job/approve/${n}/input/`)
      // Once, inside the console group where commands are stopped.
      const said = runnerView(r.stdout).filter(l => line.test(l.text))
      expect(said).toHaveLength(1)
      expect(said[0]?.stopped).toBe(true)
      expect(stageStatuses(r.outputs.stages)).toEqual([
        ['Build', 'SUCCESS'],
        ['Approve', 'SUCCESS'],
        ['Test', 'FAILED']
      ])
      expect(errorAnnotation(r).split('\n')[0]).toBe(
        `Jenkins build approve #${n} finished FAILURE in stage 'Test' (accepted: SUCCESS) — ${jenkins.url}/job/approve/${n}/`
      )
      expect(r.summary).toContain('<h3>Stages</h3>')
      expect(r.summary).toMatch(/<tr><td>Build<\/td><td>✅ SUCCESS<\/td><td>[^<]+<\/td><\/tr>/)
      expect(r.summary).toMatch(/<tr><td>Test<\/td><td>❌ FAILED<\/td><td>[^<]+<\/td><\/tr>/)
      expect(r.summary).not.toContain('<td>Deploy</td>')
      // This run's describe requests: the watcher's while it ran, one at the end.
      const describes = jenkins.requests.filter(q => q.path === `/job/approve/${n}/wfapi/describe`)
      expect(describes.length).toBeGreaterThanOrEqual(2)
      expect(describes.every(q => q.status === 200)).toBe(true)
    })

    it('with log: false the pause is a plain line, its stage name made inert', async () => {
      const running = startAction(
        { ...auth(jenkins), job: 'approve-quiet', log: 'false' },
        { node, killAfterMs: 60_000 }
      )
      const line = /is waiting for input in stage "#\\#\[error\]Approve": answer it at (\S+)/
      await answerWhenAsked(running, line)
      const r = await running.done
      expect(r.code, describeRun(r)).toBe(1)
      const n = r.outputs['build-number']
      const said = runnerView(r.stdout).filter(l => line.test(l.text))
      expect(said.map(l => [l.text, l.stopped, l.command])).toEqual([
        [
          `Jenkins build #${n} is waiting for input in stage "#\\#[error]Approve": answer it at ${jenkins.url}/job/approve-quiet/${n}/input/`,
          false,
          undefined
        ]
      ])
      // The only error is the step's own failure.
      expect(commands(r.stdout, 'error').map(c => c.value.split('%0A')[0])).toEqual([
        expect.stringMatching(/^Jenkins build approve-quiet #\d+ finished FAILURE in stage 'Test'/)
      ])
    })

    it('stage names are Jenkins text: escaped in the summary, never a command', async () => {
      const r = await run(node, {
        ...auth(jenkins),
        job: 'stage-names',
        accept: 'SUCCESS,UNSTABLE'
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(stageStatuses(r.outputs.stages)).toEqual([
        ['::error::stage', 'SUCCESS'],
        ['<b>bold</b> | *x*', 'UNSTABLE']
      ])
      expect(r.summary).toContain('<td>&#60;b&#62;bold&#60;/b&#62; &#124; &#42;x&#42;</td>')
      expect(r.summary).not.toContain('<b>')
      expect(commands(r.stdout, 'error')).toEqual([])
    })

    it('a freestyle build has no stages: the output is not set and nothing is asked', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'freestyle' })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs.stages).toBeUndefined()
      const n = r.outputs['build-number']
      expect(jenkins.requests.filter(q => q.path.startsWith(`/job/freestyle/${n}/wfapi`))).toEqual(
        []
      )
    })

    it('a Jenkins without the Stage View plugin (404 on wfapi): stages is [] and the step passes', async () => {
      const r = await run(node, { ...auth(bare), job: 'pipe' })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs.stages).toBe('[]')
      expect(r.summary).not.toContain('<h3>Stages</h3>')
      const n = r.outputs['build-number']
      const asked = bare.requests.filter(q => q.path === `/job/pipe/${n}/wfapi/describe`)
      expect(asked.length).toBeGreaterThanOrEqual(1)
      expect(asked.every(q => q.status === 404)).toBe(true)
    })
  })
})
