/**
 * Child-process entry for the Reconcile figures: one Charge → Reconcile of `size` records against
 * the `size` charges of a period (records mapped by field name), in a fresh process so its memory readings belong to this run
 * alone. Argument: JSON ReconcileJob. Answers one IPC message.
 */
import { collectGarbage } from './env';

import { memoryUsage } from 'node:process';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { outcomeOutputs } from '../nodes/Money/helpers/reconcile/items';
import { matchRecords } from '../nodes/Money/helpers/reconcile/match';
import { TransactionIndex } from '../nodes/Money/helpers/reconcile/transactionIndex';
import type { ReconcileRecord } from '../nodes/Money/helpers/reconcile/types';
import type { SandboxInfo } from '../sandbox';
import { buildWorkflow, CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, loadEngine, moneyNode } from '../test/harness/engine';
import { runChecked } from './engine';

export interface ReconcileJob {
	info: SandboxInfo;
	size: number;
	startDate: string;
	endDate: string;
}

export interface ReconcileReading {
	elapsedMs: number;
	/** The matching alone (index, match, output items) over the same envelopes, in process. */
	matchMs: number;
	peakHeapMb: number;
	outputJsonMb: number;
}

const mb = (bytes: number): number => bytes / (1024 * 1024);

/** The merchant's records: one per charge of the period, by reference, with its amount and status. */
async function recordsFor(job: ReconcileJob, engine: Awaited<ReturnType<typeof loadEngine>>): Promise<INodeExecutionData[]> {
	const list = buildWorkflow(engine, {
		nodes: [
			moneyNode({
				parameters: {
					resource: 'charge',
					operation: 'getAll',
					returnAll: true,
					filters: { startDate: job.startDate, endDate: job.endDate },
					simplify: true,
					options: {},
				},
			}),
		],
	});
	const result = await runChecked(engine, list, 'Money', { items: [{ json: {} }] }, job.size);
	return result.output('Money').map((item) => ({
		json: {
			reference: item.json.reference,
			amount: Math.abs(Number(item.json.amount)),
			currency: item.json.currency,
			status: item.json.status,
			created_at: item.json.created_at,
		},
	}));
}

function timeMatching(records: INodeExecutionData[], envelopes: IDataObject[]): number {
	const started = performance.now();
	const index = new TransactionIndex();
	for (const envelope of envelopes) index.add(envelope);
	const parsed: ReconcileRecord[] = records.map((item, itemIndex) => ({
		itemIndex,
		reference: item.json.reference as string,
		amount: item.json.amount as number,
		currency: item.json.currency as string,
		status: item.json.status as string,
		json: item.json,
	}));
	outcomeOutputs(matchRecords(parsed, index, { amountTolerance: 0, pendingIsNotFinal: true }), (envelope) => envelope);
	return performance.now() - started;
}

async function main(): Promise<void> {
	const job = JSON.parse(process.argv[2]) as ReconcileJob;
	const engine = await loadEngine();
	engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(job.info));
	const records = await recordsFor(job, engine);
	const reconcile = (startDate: string, endDate: string) =>
		buildWorkflow(engine, {
			nodes: [
				moneyNode({
					parameters: {
						resource: 'charge',
						operation: 'reconcile',
						createdAfter: startDate,
						createdBefore: endDate,
						referenceField: 'reference',
						amountField: 'amount',
						currencyField: 'currency',
						expectedStatus: 'fromField',
						statusField: 'status',
						options: {},
					},
				}),
			],
		});

	// Warm-up on the 100 oldest records and their own days, so no size pays the JIT alone.
	const oldest = records.slice(-100);
	const days = oldest.map((item) => String(item.json.created_at)).sort();
	await runChecked(engine, reconcile(days[0], days[days.length - 1]), 'Money', { items: oldest }, oldest.length);
	timeMatching(oldest, oldest.map((item) => ({ reference: item.json.reference, amount: { value: item.json.amount, currency: 'XOF' } })));
	const workflow = reconcile(job.startDate, job.endDate);

	collectGarbage();
	const before = memoryUsage().heapUsed;
	let peakHeap = before;
	const sampler = setInterval(() => {
		peakHeap = Math.max(peakHeap, memoryUsage().heapUsed);
	}, 2);
	const started = performance.now();
	const result = await runChecked(engine, workflow, 'Money', { items: records }, job.size);
	const elapsedMs = performance.now() - started;
	clearInterval(sampler);
	peakHeap = Math.max(peakHeap, memoryUsage().heapUsed);

	let jsonBytes = 0;
	for (const output of [0, 1, 2, 3]) {
		for (const item of result.output('Money', output)) jsonBytes += Buffer.byteLength(JSON.stringify(item.json)) + 1;
	}
	const envelopes = result.output('Money').map((item) => item.json.transaction as IDataObject);
	collectGarbage();
	const matchMs = timeMatching(records, envelopes);

	const reading: ReconcileReading = { elapsedMs, matchMs, peakHeapMb: mb(peakHeap - before), outputJsonMb: mb(jsonBytes) };
	process.send?.({ type: 'reading', reading }, () => process.exit(0));
}

main().catch((error: unknown) => {
	process.stderr.write(`bench reconcile child: ${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
