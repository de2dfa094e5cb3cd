/**
 * The `queue` group: payouts per minute on two workers vs one in n8n's queue mode
 * (scripts/queue/throughput.ts). It starts the topology of `npm run test:queue` itself
 * (scripts/queue/topology.ts: Postgres and Redis from Debian packages, installed when missing, one
 * main, two workers at concurrency 5, one webhook process, the sandbox), imports and activates the
 * tier's workflows (scripts/queue/prepare.ts), runs `rounds` rounds of one batch on two workers and
 * the same batch on one, and stops everything it started, also when a step fails (the temp folder
 * with every process's log is then kept and named).
 */

import * as fs from 'node:fs';
import * as os from 'node:os';

import * as rt from '../../scripts/n8n';
import type { ScenarioReport } from '../../scripts/queue/context';
import { REPO } from '../../scripts/queue/helpers';
import { OWNER, prepareQueue } from '../../scripts/queue/prepare';
import * as services from '../../scripts/queue/services';
import { workersVsOne } from '../../scripts/queue/throughput';
import * as topologyOf from '../../scripts/queue/topology';
import { figure, type FigureResult, progress } from '../stats';

/** Executions per worker at once, as in the queue tier. */
const CONCURRENCY = 5;

export interface QueueMeasure {
	figures: FigureResult[];
	/** What bench/results/queue-throughput.json holds after a full run (without its command). */
	record: ScenarioReport;
}

export async function queueFigures(options: { rounds: number; items: number; batches: number }): Promise<QueueMeasure> {
	const packDir = rt.builtPackDir(process.env.MONEY_PACK_DIR, REPO);
	progress('queue: installing or reusing n8n, postgresql and redis-server');
	rt.ensureN8n();
	services.ensurePackages();
	const baseDir = services.makeBaseDir('money-bench-queue-');
	const log = (message: string) => progress(`queue: ${message}`);
	const started = Date.now();
	let topology: topologyOf.RunningTopology | undefined;
	let failed = true;
	try {
		topology = await topologyOf.start({ baseDir, packDir, owner: OWNER, workers: 2, concurrency: CONCURRENCY, log });
		const ctx = await prepareQueue(topology, { concurrency: CONCURRENCY, log });
		const measuredFrom = Date.now();
		const report = await workersVsOne(ctx, options);
		const seconds = Number(((Date.now() - measuredFrom) / 1000).toFixed(1));
		failed = false;
		const machine = `${os.cpus().length} cores`;
		const note = `${options.items} payouts in ${options.batches} executions per batch, concurrency ${CONCURRENCY} per worker, n8n ${rt.n8nVersion()} queue mode on ${machine}`;
		const ratio = report.ratioTwoVsOne as { median: number; min: number; max: number; runs: number };
		const figures: FigureResult[] = [
			{
				name: 'queue_payouts_two_vs_one_workers',
				value: ratio.median,
				unit: 'x',
				ratio: ratio.median,
				runs: ratio.runs,
				min: ratio.min,
				max: ratio.max,
				baseline: 'the same batch on one worker (payouts per minute)',
				note,
			},
			figure('queue_payouts_per_minute_two_workers', 'payouts/min', report.payoutsPerMinuteTwoWorkers as number[], { note }),
			figure('queue_payouts_per_minute_one_worker', 'payouts/min', report.payoutsPerMinuteOneWorker as number[], { note }),
		];
		const record = { date: new Date().toISOString(), n8n: rt.n8nVersion(), machine, ...report, seconds };
		return { figures, record };
	} finally {
		await topology?.stop();
		progress(`queue: stopped every process after ${((Date.now() - started) / 1000).toFixed(0)} s`);
		if (failed) progress(`queue: logs kept in ${baseDir} (main/, worker*/, webhook/ n8n.log; postgres.log, redis.log, sandbox.log)`);
		else fs.rmSync(baseDir, { recursive: true, force: true });
	}
}
