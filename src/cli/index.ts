#!/usr/bin/env node
import { exitWith, run } from './main.js'

exitWith(await run(process.argv.slice(2)))
