import type { INodeExecutionData, Workflow } from 'n8n-workflow';

import { collectGarbage } from '../env';
import {
	codeSigningWorkflow,
	helperWorkflow,
	httpRequestNodeWorkflow,
	inProcessTaskRunner,
	moneyGetWorkflow,
	referenceItems,
	runBench,
	runChecked,
} from '../engine';
import { chargePath, FloorClient } from '../floor';
import { figure, type FigureResult, median, progress } from '../stats';
import type { BenchContext } from './context';

type VariantName = 'floor' | 'floorNew' | 'floor8' | 'helper' | 'node' | 'node8' | 'http' | 'httpSequential' | 'code';

interface Timing {
	wallMs: number;
	/** CPU time of this process (user + system, every thread) over the same span: the client's own work. */
	cpuMs: number;
	/** Share of the span the event loop (the one thread n8n runs nodes on) was busy. */
	elu: number;
}

interface Variant {
	name: VariantName;
	/** Runs the variant over the items. */
	run(items: INodeExecutionData[]): Promise<Timing>;
}

async function timed(work: () => Promise<unknown>): Promise<Timing> {
	collectGarbage();
	const cpu = process.cpuUsage();
	const loop = performance.eventLoopUtilization();
	const started = performance.now();
	await work();
	const wallMs = performance.now() - started;
	const used = process.cpuUsage(cpu);
	return { wallMs, cpuMs: (used.user + used.system) / 1000, elu: performance.eventLoopUtilization(loop).utilization };
}

function engineVariant(
	context: BenchContext,
	name: VariantName,
	workflow: Workflow,
	lastNode: string,
	check: (json: Record<string, unknown>, reference: string) => boolean,
	withRunner = false,
): Variant {
	return {
		name,
		async run(items) {
			let output: INodeExecutionData[] = [];
			const timing = await timed(async () => {
				const result = await runChecked(context.engine, workflow, lastNode, {
					items,
					additionalData: withRunner ? inProcessTaskRunner : undefined,
				});
				output = result.output(lastNode);
			});
			const last = items.length - 1;
			if (!check(output[last].json as Record<string, unknown>, String(items[last].json.reference))) {
				throw new Error(`${name}: unexpected output ${JSON.stringify(output[last].json).slice(0, 200)}`);
			}
			return timing;
		},
	};
}

function floorVariant(context: BenchContext, name: VariantName, inFlight: number, keepAlive = true): Variant {
	return {
		name,
		async run(items) {
			const client = new FloorClient(context.sandbox.info, context.token, inFlight, keepAlive);
			try {
				const paths = items.map((item) => chargePath(String(item.json.reference)));
				await client.get(paths[0]);
				return await timed(async () => {
					let next = 0;
					const worker = async () => {
						while (next < paths.length) await client.get(paths[next++]);
					};
					await Promise.all(Array.from({ length: inFlight }, worker));
				});
			} finally {
				await client.close();
			}
		},
	};
}

/** Why the plain Code node cannot run here, as n8n-core reports it. */
async function codeNodeWithoutRunner(context: BenchContext, items: INodeExecutionData[]): Promise<string> {
	const result = await runBench(context.engine, codeSigningWorkflow(context.engine, context.sandbox.info), { items: items.slice(0, 1) });
	const error = result.error();
	return error ? `${error.message}` : 'ran without a task runner';
}

const envelopeOf = (json: Record<string, unknown>) => (json.data ?? json) as Record<string, unknown>;

/**
 * Figures 1, 2, 3 and 6: the same signed GETs of Charge Get through every variant, interleaved
 * round by round (the order rotates), after a warm-up round. Ratios are taken within a round.
 */
export async function perCallFigures(context: BenchContext, options: { items: number; runs: number }): Promise<FigureResult[]> {
	const items = referenceItems(context.references.slice(0, options.items));
	const sameReference = (json: Record<string, unknown>, reference: string) => envelopeOf(json).reference === reference;
	const variants: Variant[] = [
		floorVariant(context, 'floor', 1),
		engineVariant(context, 'helper', helperWorkflow(context.engine), 'Signed GET', sameReference),
		engineVariant(context, 'node', moneyGetWorkflow(context.engine, 1), 'Money', sameReference),
		engineVariant(context, 'http', httpRequestNodeWorkflow(context.engine, context.sandbox.info), 'HTTP Request', sameReference),
		engineVariant(context, 'httpSequential', httpRequestNodeWorkflow(context.engine, context.sandbox.info, true), 'HTTP Request', sameReference),
		engineVariant(context, 'code', codeSigningWorkflow(context.engine, context.sandbox.info), 'HTTP Request', sameReference, true),
		engineVariant(context, 'node8', moneyGetWorkflow(context.engine, undefined), 'Money', sameReference),
		floorVariant(context, 'floor8', 8),
		floorVariant(context, 'floorNew', 1, false),
	];

	const codeNodeError = await codeNodeWithoutRunner(context, items);
	progress(`per-call: the Code node without a task runner fails with: ${codeNodeError}`);

	progress(`per-call: warm-up (${Math.min(300, items.length)} items per variant)`);
	for (const variant of variants) await variant.run(items.slice(0, Math.min(300, items.length)));

	const byVariant = () => Object.fromEntries(variants.map((variant) => [variant.name, [] as number[]])) as Record<VariantName, number[]>;
	const samples = byVariant();
	const cpuSamples = byVariant();
	const eluSamples = byVariant();
	for (let round = 0; round < options.runs; round++) {
		const order = variants.map((_, index) => variants[(index + round) % variants.length]);
		for (const variant of order) {
			const timing = await variant.run(items);
			samples[variant.name].push(timing.wallMs / items.length);
			cpuSamples[variant.name].push(timing.cpuMs / items.length);
			eluSamples[variant.name].push(timing.elu);
		}
		progress(
			`per-call: round ${round + 1}/${options.runs}: ` +
				order.map((variant) => `${variant.name} ${samples[variant.name][round].toFixed(3)}`).join(', ') +
				' ms/call',
		);
	}

	const perRound = (numerator: VariantName, denominator: VariantName) =>
		samples[numerator].map((value, round) => value / samples[denominator][round]);
	const cpuPerRound = (numerator: VariantName, denominator: VariantName) =>
		cpuSamples[numerator].map((value, round) => value / cpuSamples[denominator][round]);
	const identity = (value: number) => value;
	const count = items.length;
	const absolute = (name: string, variant: VariantName, what: string) =>
		figure(name, 'ms/call', samples[variant], { baseline: 'floor (ms/call)', ratio: (value) => value / median(samples.floor), note: `${what}, ${count} calls` });

	const httpCpu = figure('client_cpu_ms_per_call_http_request_node', 'ms/call', cpuSamples.http, {
		ratio: (value) => value / median(samples.http),
		baseline: 'its wall time per call',
	});
	return [
		figure('per_call_vs_floor', 'x', perRound('node', 'floor'), {
			ratio: identity,
			baseline: 'bare undici keep-alive client, sequential',
			note: `Money node Charge Get, ${count} items, sequential`,
		}),
		figure('per_call_vs_n8n_helper', 'x', perRound('node', 'helper'), {
			ratio: identity,
			baseline: 'minimal node calling httpRequestWithAuthentication',
			note: 'goal <= 1.1',
		}),
		figure('per_call_vs_http_request_node', 'x', perRound('node8', 'http'), {
			ratio: identity,
			baseline: 'HTTP Request node with the Money API predefined credential',
			note: 'goal <= 1.0; both nodes at their defaults: the HTTP Request node starts every item\'s request before awaiting any, the Money node reads 8 items at a time',
		}),
		figure('per_call_cpu_vs_n8n_helper', 'x', cpuPerRound('node', 'helper'), {
			ratio: identity,
			baseline: 'CPU time per call of the minimal node',
			note: "figure 2 in CPU time of the n8n process, which other processes on a shared machine disturb less than wall time",
		}),
		figure('per_call_cpu_vs_http_request_node', 'x', cpuPerRound('node8', 'http'), {
			ratio: identity,
			baseline: 'CPU time per call of the HTTP Request node',
			note: 'figure 3 in CPU time, both nodes at their defaults',
		}),
		figure('per_call_cpu_vs_http_request_node_sequential', 'x', cpuPerRound('node', 'httpSequential'), {
			ratio: identity,
			baseline: 'CPU time per call of the HTTP Request node sending one request at a time (Batching: 1 item per batch, 1 ms apart)',
			note: 'the per-call work alone, both nodes in the same shape: one request in flight',
		}),
		figure('per_call_vs_code_node_signing', 'x', perRound('node', 'code'), {
			ratio: identity,
			baseline: 'Code node signing + HTTP Request node (x-api-key), in-process task-runner stand-in',
			note: `lower bound of the real Code node: n8n's task runner is not in this engine (${codeNodeError.slice(0, 120)})`,
		}),
		figure('concurrent_reads_speedup', 'x', perRound('node', 'node8'), {
			ratio: identity,
			baseline: 'the same Money node, sequential (throughput ratio)',
			note: 'options.concurrency = 8, loopback (no goal: bounded by the engine\'s CPU per call; see latency_reads_speedup)',
		}),
		figure('concurrent_reads_vs_floor', 'x', perRound('node8', 'floor'), {
			ratio: identity,
			baseline: 'bare undici client, sequential',
			note: 'Money node with 8 in flight',
		}),
		absolute('ms_per_call_floor', 'floor', 'bare undici, 1 connection'),
		absolute('ms_per_call_floor_8_in_flight', 'floor8', 'bare undici, 8 connections'),
		absolute('ms_per_call_floor_new_connection', 'floorNew', 'bare undici, a new connection per call as n8n-core makes'),
		absolute('ms_per_call_n8n_helper', 'helper', 'minimal node (test.signedGet)'),
		absolute('ms_per_call_money_node', 'node', 'Money node, sequential'),
		absolute('ms_per_call_money_node_8_in_flight', 'node8', 'Money node, concurrency 8'),
		absolute('ms_per_call_http_request_node', 'http', 'HTTP Request node, predefined credential'),
		absolute('ms_per_call_http_request_node_sequential', 'httpSequential', 'HTTP Request node, predefined credential, one item per batch'),
		absolute('ms_per_call_code_node_signing', 'code', 'Code node + HTTP Request node'),
		figure('client_cpu_ms_per_call_money_node', 'ms/call', cpuSamples.node, {
			ratio: (value) => value / median(samples.node),
			baseline: 'its wall time per call (1 = the client is CPU-bound)',
			note: 'CPU time of the n8n process per sequential call (user + system)',
		}),
		figure('client_cpu_ms_per_call_n8n_helper', 'ms/call', cpuSamples.helper, {
			ratio: (value) => value / median(samples.helper),
			baseline: 'its wall time per call',
		}),
		httpCpu,
		figure('client_cpu_ms_per_call_http_request_node_sequential', 'ms/call', cpuSamples.httpSequential, {
			ratio: (value) => value / median(samples.httpSequential),
			baseline: 'its wall time per call',
		}),
		figure('client_cpu_ms_per_call_floor', 'ms/call', cpuSamples.floor, {
			ratio: (value) => value / median(samples.floor),
			baseline: 'its wall time per call',
		}),
		figure('event_loop_utilization_money_node', 'share', eluSamples.node, {
			note: 'share of the sequential run the n8n event loop was busy; concurrency can only fill the rest',
		}),
		figure('event_loop_utilization_money_node_8_in_flight', 'share', eluSamples.node8),
		figure(
			'concurrent_reads_speedup_ceiling',
			'x',
			eluSamples.node.map((share) => 1 / share),
			{
				ratio: identity,
				baseline: '1 / event-loop utilisation of the sequential Money node',
				note: 'what concurrency can give if each call keeps its CPU cost: only the idle share of the loop can be filled (overlap also trims some per-call work, so the measured speedup can exceed this a little)',
			},
		),
	];
}
