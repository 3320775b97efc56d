import { keepYoungGenerationSmall } from './util/heap.js'
import { run } from './main.js'

keepYoungGenerationSmall()
await run()
// The outcome is known and written. Work still going on in the background
// (a crumb prefetch retrying against a server that refuses connections) must
// not hold the step open past it, or past its timeout: exit once stdout has
// flushed, with the exit code run() set.
process.stdout.write('', () => process.exit())
