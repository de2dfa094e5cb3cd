// One file over 300 lines: its scenarios share one report and one secret capture, which the
// last tests scan across every run of every scenario.
import { randomBytes } from 'node:crypto';

import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import {
	buildWorkflow,
	CREDENTIAL_ID,
	CREDENTIAL_TYPE,
	credentialFromSandbox,
	type Engine,
	moneyNode,
	type RunResult,
	runMoneyNode,
	runWorkflow,
} from '../harness/engine';
import { accepted } from '../harness/outcome';
import {
	CHAOS_COUNT,
	checkAgainstLedger,
	chunk,
	countNodeRuns,
	CREATE_SLUG,
	createParameters,
	injectCreateFaults,
	itemsOf,
	loadChaosEngine,
	makeOrders,
	type Order,
	outputsByItem,
	RESOURCES,
	type Resource,
	START_BALANCE,
	sum,
} from './support/money';
import { SecretCapture } from './support/capture';
import type { Figures } from './support/report';
import { chaosFile } from './support/suite';

const BATCH = 100;
const RETRY_ON_FAIL_BATCH = 10;
/** The node's own retries: enough that 20 % faults cannot exhaust them, with millisecond backoff. */
const NODE_RETRIES = { maxRetries: 10, retryBaseDelayMs: 1 };
const CONTINUE = { onError: 'continueRegularOutput' as const };
const SCENARIO_TIMEOUT = 15 * 60 * 1000;

type Outcome = Record<Resource, { orders: Order[]; outputs: Array<IDataObject | undefined> }>;

/** The create parameters with a Message and Metadata a Retry evaluates again: the execution's id, the time, a random number. */
function reEvaluatedParameters(resource: Resource, options: IDataObject): INodeParameters {
	return {
		...createParameters(resource, options),
		additionalFields: {
			message: '=chaos {{ $execution.id }} {{ $json.message }}',
			metadata: { entries: [{ key: 'sent_at', value: '={{ $now.toMillis() }}' }, { key: 'nonce', value: '={{ Math.random() }}' }] },
		},
	} as INodeParameters;
}

const { report, capture, startSandbox } = chaosFile(`exactly once under faults (${CHAOS_COUNT} payouts + ${CHAOS_COUNT} charges per scenario)`);

async function withWorld<T>(seed: number, body: (sb: Sandbox, engine: Engine) => Promise<T>): Promise<T> {
	const sb = await startSandbox(seed);
	try {
		const engine = await loadChaosEngine(sb);
		return await body(sb, engine);
	} finally {
		// Scan while this sandbox's secrets and tokens are the ones known.
		const hits = capture.scan();
		await sb.close();
		expect(hits).toEqual([]);
	}
}

function remember(result: RunResult): RunResult {
	capture.add(result.run);
	return result;
}

/**
 * The ledger must hold exactly one transaction per item, each idempotency key once, every output
 * must match its ledger entry, and the wallet balance must equal the start balance minus the
 * payouts plus the charges (once they complete).
 */
async function verifyExactlyOnce(sb: Sandbox, outcome: Outcome): Promise<Figures> {
	await sb.control.clearFaults();
	await sb.control.setRevokeEvery(null);
	const ledger = await sb.control.ledger();
	const counters = await sb.control.counters();
	const figures: Figures = {};
	for (const resource of RESOURCES) {
		const { orders, outputs } = outcome[resource];
		const entries = resource === 'charge' ? ledger.charges : ledger.payouts;
		const check = checkAgainstLedger(resource, orders, outputs, entries);
		expect(check.mismatches.slice(0, 10)).toEqual([]);
		expect(check.created).toBe(orders.length);
		expect(check.distinctKeys).toBe(orders.length);
		expect(check.duplicateKeys).toBe(0);
		expect(check.duplicateReferences).toBe(0);
		const keys = entries.map((entry) => String(entry.idempotency_key));
		expect(keys.every((key) => counters.createsByIdempotencyKey[key] === 1)).toBe(true);
		figures[`${resource}.sent`] = orders.length;
		figures[`${resource}.accepted`] = outputs.filter(accepted).length;
		figures[`${resource}.created`] = check.created;
		figures[`${resource}.duplicates`] = check.duplicateKeys + check.duplicateReferences + (check.created - check.distinctKeys);
		figures[`${resource}.requests`] = counters.requests[CREATE_SLUG[resource]] ?? 0;
	}
	expect(Object.keys(counters.createsByIdempotencyKey)).toHaveLength(outcome.charge.orders.length + outcome.payout.orders.length);

	const paidOut = sum(outcome.payout.orders.map((order) => order.amount));
	const charged = sum(outcome.charge.orders.map((order) => order.amount));
	expect(ledger.balance.value).toBe(START_BALANCE - paidOut);
	for (const entry of ledger.charges) await sb.control.setStatus(entry.reference, 'COMPLETED');
	expect((await sb.control.ledger()).balance.value).toBe(START_BALANCE - paidOut + charged);

	figures.faults = counters.faultsInjected;
	figures.replays = counters.idempotentReplays;
	figures.tokens = counters.tokenRequests;
	figures.rejected401 = counters.rejected401;
	figures.balance = `${START_BALANCE}-${paidOut}+${charged}`;
	return figures;
}

async function runBatches(
	orders: Order[],
	batchSize: number,
	run: (batch: Order[]) => Promise<RunResult>,
): Promise<Array<IDataObject | undefined>> {
	const outputs: Array<IDataObject | undefined> = [];
	for (const batch of chunk(orders, batchSize)) {
		const result = remember(await run(batch));
		const error = result.error();
		expect(error?.message).toBeUndefined();
		outputs.push(...outputsByItem(result, batch.length));
	}
	return outputs;
}

describe('chaos: every payout and charge moves exactly once under faults', () => {
	it(
		"with the node's own retries (drops after commit, 503, 429, token revoked every 100 calls)",
		async () => {
			const started = Date.now();
			const figures = await withWorld(701, async (sb, engine) => {
				await injectCreateFaults(sb);
				const nodeRuns = countNodeRuns(engine);
				const outcome = {} as Outcome;
				await Promise.all(
					RESOURCES.map(async (resource) => {
						const orders = makeOrders(resource, CHAOS_COUNT, 'own-retries');
						const outputs = await runBatches(orders, BATCH, (batch) =>
							runMoneyNode(engine, { parameters: createParameters(resource, NODE_RETRIES), items: itemsOf(batch), settings: CONTINUE }),
						);
						outcome[resource] = { orders, outputs };
					}),
				);
				const executions = 2 * Math.ceil(CHAOS_COUNT / BATCH);
				const runs = nodeRuns.calls();
				nodeRuns.restore();
				const result = await verifyExactlyOnce(sb, outcome);
				return { executions, nodeRuns: runs, ...result };
			});
			report.add("node retries", { ...figures, seconds: ((Date.now() - started) / 1000).toFixed(1) });
		},
		SCENARIO_TIMEOUT,
	);

	it(
		'with n8n "Retry On Fail" re-running the node (same execution, same keys)',
		async () => {
			const started = Date.now();
			const figures = await withWorld(702, async (sb, engine) => {
				await injectCreateFaults(sb);
				const nodeRuns = countNodeRuns(engine);
				const outcome = {} as Outcome;
				// Few node retries, so faults regularly reach n8n, which re-runs the whole node: every
				// item before the failing one is sent again with the same key and must be replayed.
				const options = { maxRetries: 2, retryBaseDelayMs: 1 };
				const settings = { retryOnFail: true, maxTries: 5, waitBetweenTries: 1 };
				await Promise.all(
					RESOURCES.map(async (resource) => {
						const orders = makeOrders(resource, CHAOS_COUNT, 'retry-on-fail');
						const outputs = await runBatches(orders, RETRY_ON_FAIL_BATCH, (batch) =>
							runMoneyNode(engine, { parameters: createParameters(resource, options), items: itemsOf(batch), settings }),
						);
						outcome[resource] = { orders, outputs };
					}),
				);
				const executions = 2 * Math.ceil(CHAOS_COUNT / RETRY_ON_FAIL_BATCH);
				const retriedByN8n = nodeRuns.calls() - executions;
				nodeRuns.restore();
				if (CHAOS_COUNT >= 500) expect(retriedByN8n).toBeGreaterThan(0);
				const result = await verifyExactlyOnce(sb, outcome);
				return { executions, retryOnFailRetries: retriedByN8n, ...result };
			});
			report.add('Retry On Fail', { ...figures, seconds: ((Date.now() - started) / 1000).toFixed(1) });
		},
		SCENARIO_TIMEOUT,
	);

	it(
		'with a mapped business reference: a failed run re-run twice as a whole workflow creates each once and returns the same references',
		async () => {
			const started = Date.now();
			const figures = await withWorld(703, async (sb, engine) => {
				await injectCreateFaults(sb);
				const orders = Object.fromEntries(RESOURCES.map((resource) => [resource, makeOrders(resource, CHAOS_COUNT, 'order')])) as Record<Resource, Order[]>;
				// One workflow per resource, kept between runs as a saved workflow is.
				const nodes = Object.fromEntries(
					RESOURCES.map((resource) => [resource, moneyNode({ parameters: {}, settings: CONTINUE })]),
				) as Record<Resource, ReturnType<typeof moneyNode>>;

				const runAll = async (options: IDataObject): Promise<Outcome> => {
					const outcome = {} as Outcome;
					await Promise.all(
						RESOURCES.map(async (resource) => {
							const node = nodes[resource];
							node.parameters = createParameters(resource, options, '={{ $json.orderId }}');
							const workflow = buildWorkflow(engine, { nodes: [node], id: `wf-chaos-${resource}` });
							const outputs = await runBatches(orders[resource], BATCH, (batch) =>
								runWorkflow(engine, workflow, { items: itemsOf(batch) }),
							);
							outcome[resource] = { orders: orders[resource], outputs };
						}),
					);
					return outcome;
				};

				// Run 1: no node retries, so a fifth of the items fail, some after the money moved.
				const first = await runAll({ maxRetries: 0, retryBaseDelayMs: 1 });
				const afterFirst = await sb.control.ledger();
				const figures: Figures = {};
				for (const resource of RESOURCES) {
					const succeeded = first[resource].outputs.filter(accepted).length;
					const committed = (resource === 'charge' ? afterFirst.charges : afterFirst.payouts).length;
					figures[`run1.${resource}.accepted`] = succeeded;
					figures[`run1.${resource}.failedItems`] = CHAOS_COUNT - succeeded;
					figures[`run1.${resource}.movedButReportedFailed`] = committed - succeeded;
				}

				// Run 2: the whole workflow again, new execution, faults still on, node retries on.
				await injectCreateFaults(sb);
				const second = await runAll(NODE_RETRIES);
				for (const resource of RESOURCES) {
					second[resource].outputs.forEach((output, index) => {
						const earlier = first[resource].outputs[index];
						if (accepted(earlier)) expect(output?.reference).toBe(earlier?.reference);
					});
				}
				const createsAfterSecond = { ...(await sb.control.counters()).createsByIdempotencyKey };

				// Run 3: again; nothing new may be created and every item gets its reference back.
				await injectCreateFaults(sb);
				const replaysBefore = (await sb.control.counters()).idempotentReplays;
				const third = await runAll(NODE_RETRIES);
				const thirdCounters = await sb.control.counters();
				expect(thirdCounters.createsByIdempotencyKey).toEqual(createsAfterSecond);
				for (const resource of RESOURCES) {
					expect(third[resource].outputs.map((output) => output?.reference)).toEqual(second[resource].outputs.map((output) => output?.reference));
				}
				figures['run3.newCreates'] = sum(Object.values(thirdCounters.createsByIdempotencyKey)) - sum(Object.values(createsAfterSecond));
				figures['run3.replays'] = thirdCounters.idempotentReplays - replaysBefore;

				const result = await verifyExactlyOnce(sb, third);
				return { ...figures, ...result };
			});
			report.add('business reference re-run', { ...figures, seconds: ((Date.now() - started) / 1000).toFixed(1) });
		},
		SCENARIO_TIMEOUT,
	);

	it(
		'with Retry of failed executions whose Message and Metadata are evaluated again, the PIN RSA-encrypted, raw bodies compared, every Retry in a freshly loaded n8n (a restart)',
		async () => {
			const started = Date.now();
			const figures = await withWorld(704, async (sb, engine) => {
				expect((await sb.control.health()).idempotencyFingerprint).toBe('raw');
				const credential = credentialFromSandbox(sb.info, { velocityLimit: 1_000_000_000, rsaPublicKey: sb.info.rsaPublicKeyPem });
				engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credential);
				await injectCreateFaults(sb);
				const trigger: INode = { id: 'rows', name: 'Rows', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [0, 0], parameters: {} };
				// One node retry and batches of 10: faults fail about a third of the executions, and the user retries them.
				const options = { maxRetries: 1, retryBaseDelayMs: 1 };
				const nodes = (resource: Resource): INode[] => {
					const money = moneyNode({ parameters: reEvaluatedParameters(resource, options) });
					return [trigger, { ...money, id: `money-${resource}` }];
				};
				const connections = { Rows: { main: [[{ node: 'Money', type: 'main' as const, index: 0 }]] } };

				// The first run of every batch, in this n8n.
				const failed: Array<{ resource: Resource; batch: Order[]; index: number; run: RunResult }> = [];
				const outcome = {} as Outcome;
				for (const resource of RESOURCES) {
					const orders = makeOrders(resource, CHAOS_COUNT, 're-evaluated');
					const workflow = buildWorkflow(engine, { nodes: nodes(resource), connections, id: `wf-retry-${resource}` });
					const outputs: Array<IDataObject | undefined> = new Array(orders.length).fill(undefined);
					for (const [index, batch] of chunk(orders, RETRY_ON_FAIL_BATCH).entries()) {
						const result = remember(await runWorkflow(engine, workflow, { items: itemsOf(batch), mode: 'trigger' }));
						if (result.error()) failed.push({ resource, batch, index, run: result });
						else outputsByItem(result, batch.length).forEach((output, position) => (outputs[index * RETRY_ON_FAIL_BATCH + position] = output));
					}
					outcome[resource] = { orders, outputs };
				}

				// n8n restarts: nothing of this process survives but the executions' data. Each failed
				// execution is retried there until it succeeds, faults still on.
				let retries = 0;
				await jest.isolateModulesAsync(async () => {
					const restarted = require('../harness/engine') as typeof import('../harness/engine');
					const freshEngine = await restarted.loadEngine();
					freshEngine.credentials.set(restarted.CREDENTIAL_ID, restarted.CREDENTIAL_TYPE, credential);
					for (const entry of failed) {
						const workflow = restarted.buildWorkflow(freshEngine, { nodes: nodes(entry.resource), connections, id: `wf-retry-${entry.resource}` });
						let last = { run: JSON.parse(JSON.stringify(entry.run.run)) } as RunResult;
						for (let attempt = 0; ; attempt++) {
							expect(attempt).toBeLessThan(40);
							retries++;
							const retried = remember((await restarted.retryExecution(freshEngine, workflow, last)) as unknown as RunResult);
							if (!retried.error()) {
								outputsByItem(retried, entry.batch.length).forEach((output, position) => (outcome[entry.resource].outputs[entry.index * RETRY_ON_FAIL_BATCH + position] = output));
								break;
							}
							last = retried;
						}
					}
				});
				const conflicts = RESOURCES.flatMap((resource) => outcome[resource].outputs.filter((output) => output?.error_code === 'IDEMPOTENCY_CONFLICT'));
				expect(conflicts).toEqual([]);
				const result = await verifyExactlyOnce(sb, outcome);
				if (CHAOS_COUNT >= 100) expect(failed.length).toBeGreaterThan(0);
				return { executions: 2 * Math.ceil(CHAOS_COUNT / RETRY_ON_FAIL_BATCH), failedExecutions: failed.length, retries, ...result };
			});
			report.add('Retry after a restart, free text evaluated again', { ...figures, seconds: ((Date.now() - started) / 1000).toFixed(1) });
		},
		SCENARIO_TIMEOUT,
	);

	it('leaks no secret, token or signature into any output, error or log line of these runs', () => {
		const hits = capture.scan();
		report.add('secrets', {
			scannedValues: capture.figures.scannedValues,
			scannedMB: (capture.figures.scannedChars / 1e6).toFixed(1),
			logCalls: capture.figures.logCalls,
			packLogCalls: capture.figures.packLogCalls,
			consoleCalls: capture.figures.consoleCalls,
			streamWrites: capture.figures.streamWrites,
			accessTokens: capture.figures.accessTokens,
			signatures: capture.figures.signatures,
			hits: capture.figures.hits.length,
		});
		expect(hits).toEqual([]);
		expect(capture.figures.hits).toEqual([]);
		expect(capture.figures.accessTokens).toBeGreaterThan(1);
		expect(capture.figures.signatures).toBeGreaterThan(2 * CHAOS_COUNT);
		// The node's own retry log lines were among the scanned ones.
		expect(capture.figures.packLogCalls).toBeGreaterThan(0);
	});

	it('the scan is not blind: a planted PIN, token, signature or secret is found', () => {
		const probe = new SecretCapture(() => ({ clientSecret: 'planted-client-secret', apiKey: 'planted-api-key', hmacSecret: 'planted-hmac', webhookSecret: 'planted-webhook', pin: '90817263' }));
		const token = [...capture.accessTokens][0] ?? `sbx_at_${randomBytes(24).toString('base64url')}`;
		const signature = [...capture.signatures][0] ?? randomBytes(32).toString('hex');
		probe.accessTokens.add(token);
		probe.addSignature(signature);
		probe.add({ message: 'error with PIN 90817263' });
		probe.add(new Error(`Bearer ${token}`));
		probe.add({ json: { header: `x-hmac-signature: ab${signature.toUpperCase()}cd` } });
		probe.add({ description: 'key planted-hmac' });
		const hits = probe.scan().join('\n');
		for (const kind of ['pin in', 'access token in', 'access token (random part) in', 'signature in', 'hmacSecret in']) expect(hits).toContain(kind);
		expect(hits).not.toContain('90817263');
		expect(hits).not.toContain(token.slice(7));
	});
});
