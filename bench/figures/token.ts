import { CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox } from '../../test/harness/engine';
import { moneyGetWorkflow, referenceItems, runChecked } from '../engine';
import { figure, type FigureResult, progress } from '../stats';
import type { BenchContext } from './context';

/**
 * Figure 4: token requests the sandbox sees while the Money node reads `items` charges split over
 * `executions` executions at the node's default Concurrency, starting from a credential that has no
 * token yet (as after saving it).
 */
export async function tokenFigures(
	context: BenchContext,
	options: { items: number; executions: number; runs: number },
): Promise<FigureResult[]> {
	const perExecution = Math.ceil(options.items / options.executions);
	const workflow = moneyGetWorkflow(context.engine, undefined);
	const samples: number[] = [];
	for (let run = 0; run < options.runs; run++) {
		context.engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(context.sandbox.info));
		const before = (await context.sandbox.control.counters()).tokenRequests;
		for (let execution = 0; execution < options.executions; execution++) {
			const slice = context.references.slice(execution * perExecution, (execution + 1) * perExecution);
			await runChecked(context.engine, workflow, 'Money', { items: referenceItems(slice) });
		}
		samples.push((await context.sandbox.control.counters()).tokenRequests - before);
		progress(`token: run ${run + 1}/${options.runs}: ${samples[run]} token request(s)`);
	}
	return [
		figure('token_requests_per_run', 'requests', samples, {
			ratio: (value) => value / 1,
			baseline: 'the goal of 1',
			note: `${perExecution * options.executions} items over ${options.executions} executions, fresh credential each run`,
		}),
	];
}
