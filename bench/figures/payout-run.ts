import type { INodeExecutionData, Workflow } from 'n8n-workflow';

import { minimumPacedDurationMs } from '../../nodes/Money/helpers/create/pacing';
import { buildWorkflow, CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, loadEngine, moneyNode } from '../../test/harness/engine';
import { accepted } from '../../test/harness/outcome';
import { collectGarbage } from '../env';
import { httpRequestNodeWorkflow, moneyGetWorkflow, referenceItems, runChecked } from '../engine';
import { SandboxProcess } from '../processes';
import { figure, type FigureResult, median, progress } from '../stats';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function wallMs(work: () => Promise<unknown>): Promise<number> {
	collectGarbage();
	const started = performance.now();
	await work();
	return performance.now() - started;
}

/** The velocity the pacing figure runs under: 10 payouts per rolling 2 s, in the sandbox and the credential. */
const VELOCITY = { limit: 10, windowSeconds: 2 };

/**
 * `payout_run_pacing_efficiency`: the least time a run of `payouts` payouts can take under the
 * velocity limit (the k-th payout cannot go before floor(k / limit) windows) over the measured
 * time of the Money node's paced run. 1 would be pacing with no slack at all.
 */
export async function pacingFigures(options: { payouts: number; runs: number }): Promise<FigureResult[]> {
	const sandbox = await SandboxProcess.start();
	try {
		const { info, control } = sandbox;
		await control.updateClient(info.clientId, {
			limits: { velocityLimit: VELOCITY.limit, velocityWindowSeconds: VELOCITY.windowSeconds, dailyCap: 1e15, monthlyCap: 1e15 },
			balance: 1e12,
		});
		const engine = await loadEngine();
		const credential = credentialFromSandbox(info, { velocityLimit: VELOCITY.limit, velocityWindowSeconds: VELOCITY.windowSeconds });
		engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credential);
		const parameters = {
			resource: 'payout',
			operation: 'create',
			amount: 1000,
			currency: 'XOF',
			beneficiaryIdentifierType: 'gm_account',
			beneficiaryIdentifier: 'GM-1002',
			channel: 'psp-a-tg',
			beneficiaryAccountType: '',
			options: {},
		};
		const workflow = buildWorkflow(engine, { nodes: [moneyNode({ parameters })] });
		const items: INodeExecutionData[] = Array.from({ length: options.payouts }, (_, index) => ({ json: { index } }));
		const minimumMs = minimumPacedDurationMs(options.payouts, { limit: VELOCITY.limit, windowMs: VELOCITY.windowSeconds * 1000 });

		const efficiency: number[] = [];
		const seconds: number[] = [];
		const refusals: number[] = [];
		for (let run = 0; run < options.runs; run++) {
			await sleep(VELOCITY.windowSeconds * 1000 + 200);
			const before = await control.counters();
			const elapsed = await wallMs(async () => {
				const result = await runChecked(engine, workflow, 'Money', { items });
				const failed = result.output('Money').filter((item) => !accepted(item.json));
				if (failed.length > 0) throw new Error(`pacing: ${failed.length} payouts failed, first ${JSON.stringify(failed[0].json).slice(0, 300)}`);
			});
			const after = await control.counters();
			efficiency.push(minimumMs / elapsed);
			seconds.push(elapsed / 1000);
			refusals.push(after.rejected - before.rejected);
			progress(`pacing: run ${run + 1}/${options.runs}: ${options.payouts} payouts in ${(elapsed / 1000).toFixed(2)} s (least possible ${minimumMs / 1000} s), ${refusals[run]} refused`);
		}
		const rule = `${VELOCITY.limit} payouts per rolling ${VELOCITY.windowSeconds} s`;
		return [
			figure('payout_run_pacing_efficiency', 'x', efficiency, {
				ratio: (value) => value,
				baseline: `least possible time of ${options.payouts} payouts under ${rule} (${minimumMs / 1000} s) over the measured time`,
				note: 'goal >= 0.9',
			}),
			figure('payout_run_seconds', 's', seconds, { ratio: (value) => value / (minimumMs / 1000), baseline: 'least possible time' }),
			figure('payout_run_refused_requests', 'requests', refusals, { note: 'velocity refusals the paced run met (0: pacing alone kept it within the limit)' }),
		];
	} finally {
		await sandbox.close();
	}
}

type LatencyVariant = 'sequential' | 'concurrent' | 'http';

/** Money Charge Get with `options.concurrency`, sequential and 16 in flight, and the HTTP Request node, with every route answering 50 ms late. */
export async function latencyFigures(options: { reads: number; runs: number; latencyMs: number; concurrency: number }): Promise<FigureResult[]> {
	const sandbox = await SandboxProcess.start();
	try {
		const { info, control } = sandbox;
		await control.seed({ resource: 'charge', count: options.reads, status: 'COMPLETED' });
		const references = (await control.ledger()).charges.map((entry) => String(entry.reference)).slice(0, options.reads);
		await control.addFault({ route: '*', kind: 'delay', delayMs: options.latencyMs });
		const engine = await loadEngine(['n8n-nodes-base.httpRequest']);
		engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(info));
		const items = referenceItems(references);
		const workflows: Record<LatencyVariant, { workflow: Workflow; last: string }> = {
			sequential: { workflow: moneyGetWorkflow(engine, 1), last: 'Money' },
			concurrent: { workflow: moneyGetWorkflow(engine, options.concurrency), last: 'Money' },
			http: { workflow: httpRequestNodeWorkflow(engine, info), last: 'HTTP Request' },
		};
		const order: LatencyVariant[] = ['sequential', 'concurrent', 'http'];
		for (const variant of order) await runChecked(engine, workflows[variant].workflow, workflows[variant].last, { items: items.slice(0, 20) });

		const samples: Record<LatencyVariant, number[]> = { sequential: [], concurrent: [], http: [] };
		for (let round = 0; round < options.runs; round++) {
			const rotated = order.map((_, index) => order[(index + round) % order.length]);
			for (const variant of rotated) {
				const { workflow, last } = workflows[variant];
				samples[variant].push(await wallMs(() => runChecked(engine, workflow, last, { items })));
			}
			progress(`latency: round ${round + 1}/${options.runs}: ` + order.map((variant) => `${variant} ${(samples[variant][round] / 1000).toFixed(2)} s`).join(', '));
		}
		const perRound = (numerator: LatencyVariant, denominator: LatencyVariant) => samples[numerator].map((value, round) => value / samples[denominator][round]);
		const perCall = (variant: LatencyVariant) => samples[variant].map((value) => value / options.reads);
		const what = `${options.reads} Charge Gets, ${options.latencyMs} ms added to every sandbox route`;
		return [
			figure('latency_reads_speedup', 'x', perRound('sequential', 'concurrent'), {
				ratio: (value) => value,
				baseline: 'the same Money node, sequential (time ratio)',
				note: `${what}; Concurrency ${options.concurrency}; goal >= 10`,
			}),
			figure('latency_reads_vs_http_request_node', 'x', perRound('concurrent', 'http'), {
				ratio: (value) => value,
				baseline: 'HTTP Request node with the Money API credential on the same calls (it sends every item at once)',
				note: `Money node at Concurrency ${options.concurrency}, time ratio (below 1: faster)`,
			}),
			figure('latency_reads_http_request_node_speedup', 'x', perRound('sequential', 'http'), {
				ratio: (value) => value,
				baseline: 'the sequential Money node',
			}),
			figure('latency_ms_per_read_sequential', 'ms/call', perCall('sequential'), { ratio: (value) => value / options.latencyMs, baseline: 'the injected latency' }),
			figure(`latency_ms_per_read_concurrency_${options.concurrency}`, 'ms/call', perCall('concurrent'), {
				ratio: (value) => value / median(perCall('sequential')),
				baseline: 'sequential',
			}),
			figure('latency_ms_per_read_http_request_node', 'ms/call', perCall('http'), {
				ratio: (value) => value / median(perCall('sequential')),
				baseline: 'sequential Money node',
			}),
		];
	} finally {
		await sandbox.close();
	}
}
