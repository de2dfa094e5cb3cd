import type { IDataObject } from 'n8n-workflow';

import type { LedgerTransaction } from '../../sandbox';
import { type Engine, runMoneyNode } from '../harness/engine';
import { accepted } from '../harness/outcome';
import {
	CHAOS_COUNT,
	chunk,
	createParameters,
	injectCreateFaults,
	itemsOf,
	loadChaosEngine,
	makeOrders,
	outputsByItem,
	RESOURCES,
	type Resource,
} from './support/money';
import { chaosFile } from './support/suite';

/*
 * Executions stopped at random moments (the editor's Stop, `POST /rest/executions/:id/stop`) while
 * the Money node runs through faults (drops after commit, 503, 429, revoked tokens): whatever the
 * moment, an item that says `attempted: false` moved no money, nothing is attempted after the first
 * item the stop left unsent, and running the same orders again with their Business References
 * completes them, each once (docs/idempotency.md, "Cancelling a run").
 */
const BATCH = 100;
const NODE_RETRIES = { maxRetries: 10, retryBaseDelayMs: 1 };
const CONTINUE = { onError: 'continueRegularOutput' as const };
const SCENARIO_TIMEOUT = 15 * 60 * 1000;

const { report, capture, startSandbox } = chaosFile(`stopped runs under faults (${CHAOS_COUNT} payouts + ${CHAOS_COUNT} charges)`);

/** A seeded generator, so a failing moment can be played again. */
function seeded(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
		return state / 2 ** 32;
	};
}

const referenceOf = (entry: LedgerTransaction): unknown => (entry.metadata as IDataObject | undefined)?.n8n_business_reference;

async function runStopped(engine: Engine, resource: Resource, orders: ReturnType<typeof makeOrders>, stopAfterMs: number, withReference: string) {
	let timer: NodeJS.Timeout | undefined;
	const result = await runMoneyNode(engine, {
		parameters: createParameters(resource, NODE_RETRIES, withReference),
		items: itemsOf(orders),
		settings: CONTINUE,
		mode: 'trigger',
		onStart: (stop) => {
			timer = setTimeout(stop, stopAfterMs);
		},
	});
	clearTimeout(timer);
	capture.add(result.run);
	return outputsByItem(result, orders.length);
}

describe('chaos: a stopped execution moves no money it says it did not', () => {
	it(
		'stopped at random moments, then run again with Business References: attempted: false is true, each order moves once',
		async () => {
			const started = Date.now();
			const sb = await startSandbox(704);
			try {
				const engine = await loadChaosEngine(sb);
				await injectCreateFaults(sb);
				const random = seeded(704);
				const figures: Record<string, number> = { stoppedRuns: 0, notAttempted: 0, cutOff: 0, completedBeforeStop: 0 };
				const ordersOf = Object.fromEntries(RESOURCES.map((resource) => [resource, makeOrders(resource, CHAOS_COUNT, 'stopped')])) as Record<Resource, ReturnType<typeof makeOrders>>;
				const stoppedOutputs: Record<Resource, Array<IDataObject | undefined>> = { charge: [], payout: [] };

				await Promise.all(
					RESOURCES.map(async (resource) => {
						for (const batch of chunk(ordersOf[resource], BATCH)) {
							const outputs = await runStopped(engine, resource, batch, Math.floor(random() * 800), '={{ $json.orderId }}');
							figures.stoppedRuns++;
							// With ten retries a fault never fails an item here: each is a success or says the stop ended it.
							expect(outputs.filter((output) => !accepted(output) && output?.cancelled !== true)).toEqual([]);
							const firstUnsent = outputs.findIndex((output) => output?.cancelled === true && output.attempted === false);
							if (firstUnsent >= 0) {
								// Nothing after the first item the stop left unsent was attempted.
								expect(outputs.slice(firstUnsent).every((output) => output?.cancelled === true && output.attempted === false)).toBe(true);
							} else {
								figures.completedBeforeStop++;
							}
							figures.notAttempted += outputs.filter((output) => output?.attempted === false).length;
							figures.cutOff += outputs.filter((output) => output?.cancelled === true && output.attempted !== false).length;
							stoppedOutputs[resource].push(...outputs);
						}
					}),
				);

				expect(figures.notAttempted).toBeGreaterThan(0);

				// Every item that said attempted: false moved no money: its Business Reference is not in the ledger.
				await sb.control.clearFaults();
				const ledger = await sb.control.ledger();
				for (const resource of RESOURCES) {
					const moved = new Set((resource === 'charge' ? ledger.charges : ledger.payouts).map(referenceOf));
					const claimedUnsent = ordersOf[resource].filter((_order, index) => stoppedOutputs[resource][index]?.attempted === false);
					expect(claimedUnsent.filter((order) => moved.has(order.orderId)).map((order) => order.orderId)).toEqual([]);
				}

				// The same orders again, not stopped: each completes once (replayed where it had moved).
				await injectCreateFaults(sb);
				for (const resource of RESOURCES) {
					for (const batch of chunk(ordersOf[resource], BATCH)) {
						const result = await runMoneyNode(engine, { parameters: createParameters(resource, NODE_RETRIES, '={{ $json.orderId }}'), items: itemsOf(batch), settings: CONTINUE, mode: 'trigger' });
						capture.add(result.run);
						expect(outputsByItem(result, batch.length).every(accepted)).toBe(true);
					}
				}
				await sb.control.clearFaults();
				await sb.control.setRevokeEvery(null);
				const final = await sb.control.ledger();
				const counters = await sb.control.counters();
				for (const resource of RESOURCES) {
					const references = (resource === 'charge' ? final.charges : final.payouts).map(referenceOf);
					expect(references).toHaveLength(CHAOS_COUNT);
					expect(new Set(references).size).toBe(CHAOS_COUNT);
				}
				expect(Object.values(counters.createsByIdempotencyKey).every((count) => count === 1)).toBe(true);
				report.add('random stops, then re-run', { ...figures, seconds: ((Date.now() - started) / 1000).toFixed(1) });
			} finally {
				const hits = capture.scan();
				await sb.close();
				expect(hits).toEqual([]);
			}
		},
		SCENARIO_TIMEOUT,
	);
});
