/**
 * Child-process entry for figure 5: one Return All of Charge Get Many in a fresh process, so its
 * memory readings belong to this run alone. Argument: JSON ReturnAllJob. Answers one IPC message.
 */
import { collectGarbage } from './env';

import { memoryUsage, resourceUsage } from 'node:process';

import { buildWorkflow, CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, loadEngine, moneyNode } from '../test/harness/engine';
import type { SandboxInfo } from '../sandbox';
import { runChecked } from './engine';

export interface ReturnAllJob {
	info: SandboxInfo;
	size: number;
	startDate: string;
	endDate: string;
}

export interface ReturnAllReading {
	items: number;
	elapsedMs: number;
	/** Highest heapUsed sampled during the run, minus heapUsed before it (after a full GC). */
	peakHeapMb: number;
	/** heapUsed after the run with its output still referenced, after a full GC, minus the same before. */
	retainedMb: number;
	/** Peak RSS of the process (getrusage maxrss) minus RSS before the run. */
	peakRssMb: number;
	/** The output items' JSON, serialised: the size of the data itself. */
	outputJsonMb: number;
}

const mb = (bytes: number): number => bytes / (1024 * 1024);

async function main(): Promise<void> {
	const job = JSON.parse(process.argv[2]) as ReturnAllJob;
	const engine = await loadEngine();
	engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(job.info));
	const listWorkflow = (returnAll: boolean) =>
		buildWorkflow(engine, {
			nodes: [
				moneyNode({
					parameters: {
						resource: 'charge',
						operation: 'getAll',
						returnAll,
						limit: 50,
						filters: { startDate: job.startDate, endDate: job.endDate },
						simplify: false,
						options: {},
					},
				}),
			],
		});

	// Warm-up: token, code paths, sockets; then forget it.
	await runChecked(engine, listWorkflow(false), 'Money', { items: [{ json: {} }] }, 50);
	const workflow = listWorkflow(true);
	collectGarbage();
	const before = memoryUsage();
	let peakHeap = before.heapUsed;
	const sampler = setInterval(() => {
		peakHeap = Math.max(peakHeap, memoryUsage().heapUsed);
	}, 2);

	const started = performance.now();
	const result = await runChecked(engine, workflow, 'Money', { items: [{ json: {} }] }, job.size);
	const elapsedMs = performance.now() - started;
	clearInterval(sampler);
	peakHeap = Math.max(peakHeap, memoryUsage().heapUsed);
	const peakRss = resourceUsage().maxRSS * 1024;

	collectGarbage();
	const retained = memoryUsage().heapUsed;
	const output = result.output('Money');
	let jsonBytes = 0;
	for (const item of output) jsonBytes += Buffer.byteLength(JSON.stringify(item.json)) + 1;

	const reading: ReturnAllReading = {
		items: output.length,
		elapsedMs,
		peakHeapMb: mb(peakHeap - before.heapUsed),
		retainedMb: mb(retained - before.heapUsed),
		peakRssMb: mb(peakRss - before.rss),
		outputJsonMb: mb(jsonBytes),
	};
	process.send?.({ type: 'reading', reading }, () => process.exit(0));
}

main().catch((error: unknown) => {
	process.stderr.write(`bench return-all child: ${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
