import { JenkinsError } from '../jenkins/transport/errors.js'
import type { JobPath } from '../jenkins/model/types.js'
import type { QueueItem } from '../jenkins/reads/reads.js'
import type { JenkinsApi } from '../jenkins/client.js'
import { jobNamesFromUrl } from '../jenkins/reads/decode.js'

/**
 * The queue item this step queued ended in Jenkins without a build: it was
 * cancelled there (by a user, or the job was disabled), or Jenkins no longer
 * knows it and none of the job's recent builds came from it (a restart).
 * Nothing of it runs, so the step must not say it left work running, and the
 * post step has nothing to stop.
 */
export class QueueItemEnded extends JenkinsError {
  constructor(
    /** What Jenkins shows of the item. */
    readonly fate: 'cancelled' | 'gone',
    readonly queueId: number,
    /** The job's full name. */
    name: string
  ) {
    super(
      fate === 'cancelled' ? 'conflict' : 'not-found',
      fate === 'cancelled'
        ? `The queue item ${queueId} of ${name} was cancelled in Jenkins before it started (by a user, or because the job was disabled).`
        : `Queue item ${queueId} of ${name} is gone from Jenkins (it expires 5 minutes after leaving the queue, and on restart) and no recent build of ${name} has that queue id.`
    )
    this.name = 'QueueItemEnded'
  }

  /** What Jenkins shows, for the post step: "queue item 5 was cancelled in Jenkins". */
  get shown(): string {
    return this.fate === 'cancelled'
      ? `queue item ${this.queueId} was cancelled in Jenkins`
      : `queue item ${this.queueId} is gone from Jenkins, with no build`
  }
}

/**
 * The build a queue item Jenkins has forgotten became (404: 5 minutes after
 * it left the queue, and on restart, jenkins-api.md 4): the one of the job's
 * recent builds whose `queueId` is `queueId`; undefined when none is.
 */
export async function buildNumberByQueueId(
  api: Pick<JenkinsApi, 'recentBuilds'>,
  job: JobPath,
  queueId: number
): Promise<number | undefined> {
  return (await api.recentBuilds(job, RECENT_BY_QUEUE_ID)).find(b => b.queueId === queueId)?.number
}

/** How many of a job's builds are searched for a queue id: more than a queue item outlives. */
const RECENT_BY_QUEUE_ID = 100

/** The job a queue item builds, from its `task` URL (Jenkins' root URL); undefined when Jenkins did not say. */
export function queueItemJob(item: QueueItem): string[] | undefined {
  const url = item.task?.url
  return typeof url === 'string' ? jobNamesFromUrl(url) : undefined
}
