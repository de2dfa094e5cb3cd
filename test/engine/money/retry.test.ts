import type { IConnections, IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { PARTY_PARAMETERS } from '../../../nodes/Money/helpers/validation';
import { buildWorkflow, CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, moneyNode, retryExecution, type RunResult, runWorkflow } from '../../harness/engine';
import { useSandboxEngine } from './setup';

/**
 * The paths on which n8n runs a Money create again (docs/idempotency.md), played through the real
 * n8n-core engine the way the n8n server plays them: a Retry of a failed execution is a new
 * execution id in mode `retry`, resumed from the failed node with its original input.
 */

const FAST = { maxRetries: 0, retryBaseDelayMs: 2 };

const env = useSandboxEngine({ nodeTypes: ['n8n-nodes-base.splitInBatches'] });

afterEach(async () => {
	await env.sb.control.clearFaults();
	await env.sb.control.updateClient(env.sb.info.clientId, { balance: 100_000_000 });
});

/** Hands the test's rows on, as the rows a sheet or database node would produce. */
const trigger: INode = {
	id: 'trigger',
	name: 'Start',
	type: 'n8n-nodes-base.noOp',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

function createParameters(resource: 'charge' | 'payout', identifier = '={{ $json.identifier }}'): IDataObject {
	return {
		resource,
		operation: 'create',
		amount: '={{ $json.amount }}',
		currency: 'XOF',
		[PARTY_PARAMETERS[resource].identifierType]: 'gm_account',
		[PARTY_PARAMETERS[resource].identifier]: identifier,
		channel: 'psp-a-tg',
		[PARTY_PARAMETERS[resource].accountType]: '',
		requireBusinessReference: false,
		options: FAST,
	};
}

function chain(nodes: INode[]): IConnections {
	const connections: IConnections = {};
	for (let index = 0; index < nodes.length - 1; index++) {
		connections[nodes[index].name] = { main: [[{ node: nodes[index + 1].name, type: 'main', index: 0 }]] };
	}
	return connections;
}

function rows(...entries: Array<[string, number]>): INodeExecutionData[] {
	return entries.map(([identifier, amount]) => ({ json: { identifier, amount } }));
}

async function ledgerOf(resource: 'charge' | 'payout', amounts: number[]) {
	const ledger = await env.sb.control.ledger();
	const entries = resource === 'charge' ? ledger.charges : ledger.payouts;
	return entries.filter((entry) => amounts.includes(Math.abs(entry.amount.value)));
}

function moneyItems(result: RunResult): IDataObject[] {
	return result.output('Money').map((item) => item.json);
}

describe('a create run again by n8n keeps its idempotency key', () => {
	it('Retry of an execution whose later payout failed (balance topped up) pays the earlier rows once', async () => {
		const money = moneyNode({ parameters: createParameters('payout') as never });
		const workflow = buildWorkflow(env.engine, { nodes: [trigger, money], connections: chain([trigger, money]) });
		const items = rows(['GM-1002', 71_001], ['GM-1003', 71_002], ['GM-1002', 900_000]);
		await env.sb.control.updateClient(env.sb.info.clientId, { balance: 200_000 });

		const failed = await runWorkflow(env.engine, workflow, { items, mode: 'trigger' });
		expect(failed.run.data.resultData.error?.message).toContain('INSUFFICIENT_FUNDS');
		expect(await ledgerOf('payout', [71_001, 71_002, 900_000])).toHaveLength(2);

		await env.sb.control.updateClient(env.sb.info.clientId, { balance: 10_000_000 });
		const retried = await retryExecution(env.engine, workflow, failed);
		expect(retried.executionId).not.toBe(failed.executionId);
		expect(retried.error()).toBeUndefined();
		expect(moneyItems(retried).map((item) => item.outcome)).toEqual(['replayed', 'replayed', 'created']);

		const ledger = await ledgerOf('payout', [71_001, 71_002, 900_000]);
		expect(ledger.map((entry) => Math.abs(entry.amount.value)).sort()).toEqual([71_001, 71_002, 900_000]);
		const keys = new Set(ledger.map((entry) => entry.idempotency_key));
		expect(keys.size).toBe(3);
	});

	it('Retry with the currently saved workflow (the mapping of the failed row fixed) pays the earlier rows once', async () => {
		const original = moneyNode({ parameters: createParameters('charge') as never });
		const workflow = buildWorkflow(env.engine, { nodes: [trigger, original], connections: chain([trigger, original]) });
		const items = rows(['GM-1001', 72_001], ['GM-1003', 72_002], ['GM-0404', 72_003]);
		const failed = await runWorkflow(env.engine, workflow, { items, mode: 'webhook' });
		expect(failed.run.data.resultData.error?.message).toContain('PAYER_NOT_FOUND');

		const fixed = {
			...original,
			parameters: createParameters('charge', "={{ $json.identifier === 'GM-0404' ? 'GM-1002' : $json.identifier }}"),
		} as INode;
		const saved = buildWorkflow(env.engine, { nodes: [trigger, fixed], connections: chain([trigger, fixed]) });
		const retried = await retryExecution(env.engine, saved, failed);
		expect(retried.error()).toBeUndefined();
		expect(moneyItems(retried).map((item) => item.outcome)).toEqual(['replayed', 'replayed', 'created']);
		expect(await ledgerOf('charge', [72_001, 72_002, 72_003])).toHaveLength(3);
	});

	it('Retry of an execution whose first row failed before anything was sent is not taken for a crash replay', async () => {
		const original = moneyNode({ parameters: createParameters('payout') as never });
		const workflow = buildWorkflow(env.engine, { nodes: [trigger, original], connections: chain([trigger, original]) });
		const failed = await runWorkflow(env.engine, workflow, { items: rows(['GM-1002', 12.5], ['GM-1003', 78_002]), mode: 'trigger' });
		expect(failed.error()?.message).toContain('Amount');

		const fixed = { ...original, parameters: { ...createParameters('payout'), amount: '={{ Math.round($json.amount) === $json.amount ? $json.amount : 78_001 }}' } } as INode;
		const saved = buildWorkflow(env.engine, { nodes: [trigger, fixed], connections: chain([trigger, fixed]) });
		const retried = await retryExecution(env.engine, saved, failed);
		expect(retried.error()).toBeUndefined();
		expect(moneyItems(retried).map((item) => item.outcome)).toEqual(['created', 'created']);
	});

	it('Retry after the answer to a payout was lost and the node gave up creates it once, and says created (naming the unanswered attempt), not replayed', async () => {
		const money = moneyNode({ parameters: createParameters('payout') as never });
		const workflow = buildWorkflow(env.engine, { nodes: [trigger, money], connections: chain([trigger, money]) });
		await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: 'drop-after-commit', count: 1 });
		const failed = await runWorkflow(env.engine, workflow, { items: rows(['GM-1002', 73_001]), mode: 'trigger' });
		expect(failed.error()).toBeDefined();
		expect(await ledgerOf('payout', [73_001])).toHaveLength(1);

		// The payout was made by the failed run's unanswered send: the Retry is the execution that says so (issue 37 item 2).
		const retried = await retryExecution(env.engine, workflow, failed);
		expect(moneyItems(retried)).toEqual([expect.objectContaining({ outcome: 'created', earlier_attempt: `no answer in execution ${failed.executionId}` })]);
		expect(await ledgerOf('payout', [73_001])).toHaveLength(1);
	});

	it('Retry of a payout run whose Message and Metadata are evaluated again ($execution.id, $now) pays the earlier rows once', async () => {
		const parameters = {
			...createParameters('payout'),
			additionalFields: {
				message: '=Run {{ $execution.id }}',
				metadata: { entries: [{ key: 'sent_at', value: '={{ $now.toMillis() }}' }] },
			},
		};
		const money = moneyNode({ parameters: parameters as never });
		const workflow = buildWorkflow(env.engine, { nodes: [trigger, money], connections: chain([trigger, money]) });
		const amounts = [77_001, 77_002, 900_003];
		await env.sb.control.updateClient(env.sb.info.clientId, { balance: 200_000 });
		const failed = await runWorkflow(env.engine, workflow, { items: rows(['GM-1002', amounts[0]], ['GM-1003', amounts[1]], ['GM-1002', amounts[2]]), mode: 'trigger' });
		expect(failed.error()?.message).toContain('INSUFFICIENT_FUNDS');

		await env.sb.control.updateClient(env.sb.info.clientId, { balance: 10_000_000 });
		const retried = await retryExecution(env.engine, workflow, failed);
		expect(retried.error()).toBeUndefined();
		expect(moneyItems(retried).map((item) => item.outcome)).toEqual(['replayed', 'replayed', 'created']);
		const ledger = await ledgerOf('payout', amounts);
		expect(ledger.map((entry) => Math.abs(entry.amount.value)).sort()).toEqual(amounts);
		expect(ledger.filter((entry) => entry.amount.value === -amounts[0])[0].shared_note).toBe(`Run ${failed.executionId}`);
	});

	it('Retry after a lost answer resends the first body, not the Message evaluated again', async () => {
		const parameters = { ...createParameters('payout'), additionalFields: { message: '=Run {{ $execution.id }}' } };
		const money = moneyNode({ parameters: parameters as never });
		const workflow = buildWorkflow(env.engine, { nodes: [trigger, money], connections: chain([trigger, money]) });
		await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: 'drop-after-commit', count: 1 });
		const failed = await runWorkflow(env.engine, workflow, { items: rows(['GM-1002', 79_001]), mode: 'trigger' });
		expect(failed.error()).toBeDefined();

		const retried = await retryExecution(env.engine, workflow, failed);
		expect(retried.error()).toBeUndefined();
		expect(moneyItems(retried)).toEqual([expect.objectContaining({ outcome: 'created', earlier_attempt: `no answer in execution ${failed.executionId}` })]);
		expect(await ledgerOf('payout', [79_001])).toHaveLength(1);
	});

	it('a node inside a loop pays identical rows of two batches twice, each under its own key', async () => {
		const loop: INode = {
			id: 'loop',
			name: 'Loop Over Items',
			type: 'n8n-nodes-base.splitInBatches',
			typeVersion: 3,
			position: [200, 0],
			parameters: { batchSize: 1, options: {} },
		};
		const money = moneyNode({ parameters: createParameters('payout') as never });
		const connections: IConnections = {
			Start: { main: [[{ node: loop.name, type: 'main', index: 0 }]] },
			[loop.name]: { main: [[], [{ node: money.name, type: 'main', index: 0 }]] },
			[money.name]: { main: [[{ node: loop.name, type: 'main', index: 0 }]] },
		};
		const workflow = buildWorkflow(env.engine, { nodes: [trigger, loop, money], connections });
		const result = await runWorkflow(env.engine, workflow, { items: rows(['GM-1003', 74_001], ['GM-1003', 74_001]) });
		expect(result.error()).toBeUndefined();
		const keys = [0, 1].map((runIndex) => result.output('Money', 0, runIndex)[0]?.json.idempotency_key);
		expect(new Set(keys).size).toBe(2);
		expect(await ledgerOf('payout', [74_001])).toHaveLength(2);
	});

	it('a new execution of the same workflow is a new payment without a Business Reference, the same one with it', async () => {
		const money = moneyNode({ parameters: createParameters('payout') as never });
		const workflow = buildWorkflow(env.engine, { nodes: [trigger, money], connections: chain([trigger, money]) });
		await runWorkflow(env.engine, workflow, { items: rows(['GM-1002', 75_001]) });
		await runWorkflow(env.engine, workflow, { items: rows(['GM-1002', 75_001]) });
		expect(await ledgerOf('payout', [75_001])).toHaveLength(2);

		const referenced = moneyNode({ parameters: { ...createParameters('payout'), businessReference: 'order-75002' } as never });
		const second = buildWorkflow(env.engine, { nodes: [trigger, referenced], connections: chain([trigger, referenced]) });
		await runWorkflow(env.engine, second, { items: rows(['GM-1002', 75_002]) });
		const again = await runWorkflow(env.engine, second, { items: rows(['GM-1002', 75_002]) });
		expect(moneyItems(again)[0].outcome).toBe('replayed');
		expect(await ledgerOf('payout', [75_002])).toHaveLength(1);
	});

	it('in a sub-workflow (mode integrated) refuses a create without a Business Reference, before any request, and sends one with it', async () => {
		const money = moneyNode({ parameters: createParameters('payout') as never });
		const workflow = buildWorkflow(env.engine, { nodes: [trigger, money], connections: chain([trigger, money]) });
		const before = (await env.sb.control.counters()).requests.post_money_v1_payout ?? 0;
		const refused = await runWorkflow(env.engine, workflow, { items: rows(['GM-1002', 77_001]), mode: 'integrated' });
		expect(refused.error()?.message).toContain('rule "Sub-workflows need a Business Reference"');
		expect((await env.sb.control.counters()).requests.post_money_v1_payout ?? 0).toBe(before);

		const referenced = moneyNode({ parameters: { ...createParameters('payout'), businessReference: 'order-77002' } as never });
		const second = buildWorkflow(env.engine, { nodes: [trigger, referenced], connections: chain([trigger, referenced]) });
		const sent = await runWorkflow(env.engine, second, { items: rows(['GM-1002', 77_002]), mode: 'integrated' });
		expect(moneyItems(sent)[0].outcome).toBe('created');
	});

	it('Retry after the credential was edited to another API client sends nothing: the rows paid say replayed, the rest are refused naming both clients', async () => {
		const { sb, engine } = env;
		const second = sb.info.otherClients[0];
		const amounts = [79_101, 79_102, 900_103];
		const original = moneyNode({ parameters: createParameters('payout') as never });
		const workflow = buildWorkflow(engine, { nodes: [trigger, original], connections: chain([trigger, original]) });
		await sb.control.updateClient(sb.info.clientId, { balance: 200_000 });
		const failed = await runWorkflow(engine, workflow, { items: rows(['GM-1002', amounts[0]], ['GM-1003', amounts[1]], ['GM-1002', amounts[2]]), mode: 'trigger' });
		expect(failed.error()?.message).toContain('INSUFFICIENT_FUNDS');
		engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox({ ...sb.info, ...second }));
		try {
			const continuing = { ...original, onError: 'continueRegularOutput' } as INode;
			const retried = await retryExecution(engine, buildWorkflow(engine, { nodes: [trigger, continuing], connections: chain([trigger, continuing]) }), failed);
			const items = moneyItems(retried);
			// The rows the first run paid say so from the memory; the rest is refused, nothing sent to the other client.
			expect(items.map((item) => [item.outcome, item.attempted])).toEqual([
				['replayed', undefined],
				['replayed', undefined],
				['failed', false],
			]);
			expect(String(items[2].error)).toBe(
				`Not sent: this run of the node is repeated with another identity than its first run in this execution: the credential now goes to the Money API client ${second.clientId} at ${sb.info.baseUrl}, the run first went to client ${sb.info.clientId} at ${sb.info.baseUrl}`,
			);
			const [first, other] = await Promise.all([sb.control.ledger(), sb.control.ledger(second.clientId)]);
			const paid = (entries: typeof first.payouts) => entries.filter((entry) => amounts.includes(-entry.amount.value)).map((entry) => -entry.amount.value);
			expect([paid(first.payouts).sort(), paid(other.payouts)]).toEqual([amounts.slice(0, 2), []]);
		} finally {
			engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(sb.info));
		}
	});

	it('a new execution with the same Business Reference on another API client pays again (a limit: the API keeps keys per client, and a new execution has no memory)', async () => {
		const { sb, engine } = env;
		const second = sb.info.otherClients[0];
		const referenced = moneyNode({ parameters: { ...createParameters('payout'), businessReference: `order-79201-${Date.now()}` } as never });
		const workflow = buildWorkflow(engine, { nodes: [trigger, referenced], connections: chain([trigger, referenced]) });
		await runWorkflow(engine, workflow, { items: rows(['GM-1002', 79_201]), mode: 'trigger' });
		engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox({ ...sb.info, ...second }));
		try {
			const again = await runWorkflow(engine, workflow, { items: rows(['GM-1002', 79_201]), mode: 'trigger' });
			expect(moneyItems(again)[0].outcome).toBe('created');
			const onEach = await Promise.all([sb.control.ledger(), sb.control.ledger(second.clientId)]);
			expect(onEach.map((ledger) => ledger.payouts.filter((entry) => entry.amount.value === -79_201).length)).toEqual([1, 1]);
		} finally {
			engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(sb.info));
		}
	});

	describe('Retry with the currently saved workflow, changed since the failure', () => {
		// Last in the file: these runs take the sandbox client's velocity limit out of the way.
		beforeAll(async () => {
			await env.sb.control.updateClient(env.sb.info.clientId, { limits: { velocityLimit: 1000 } });
		});

		async function failThenRetry(base: number, change: (money: INode) => INode) {
			const amounts = [base + 1, base + 2, 900_000 + base];
			const original = moneyNode({ parameters: createParameters('payout') as never });
			const workflow = buildWorkflow(env.engine, { nodes: [trigger, original], connections: chain([trigger, original]) });
			await env.sb.control.updateClient(env.sb.info.clientId, { balance: 200_000 });
			const failed = await runWorkflow(env.engine, workflow, { items: rows(['GM-1002', amounts[0]], ['GM-1003', amounts[1]], ['GM-1002', amounts[2]]), mode: 'trigger' });
			expect(failed.error()?.message).toContain('INSUFFICIENT_FUNDS');
			await env.sb.control.updateClient(env.sb.info.clientId, { balance: 10_000_000 });
			const changed = change(original);
			const requestsBefore = (await env.sb.control.counters()).requests.post_money_v1_payout ?? 0;
			const retried = await retryExecution(env.engine, buildWorkflow(env.engine, { nodes: [trigger, changed], connections: chain([trigger, changed]) }), failed);
			const requests = ((await env.sb.control.counters()).requests.post_money_v1_payout ?? 0) - requestsBefore;
			return { retried, requests, amounts, paid: (await ledgerOf('payout', amounts)).map((entry) => Math.abs(entry.amount.value)).sort() };
		}

		it('the Money node replaced (deleted, added again under its name: a new node id) pays the earlier rows once', async () => {
			const { retried, amounts, paid } = await failThenRetry(78_100, (money) => ({ ...money, id: 'added-again' }));
			expect(retried.error()).toBeUndefined();
			expect(moneyItems(retried).map((item) => item.outcome)).toEqual(['replayed', 'replayed', 'created']);
			expect(paid).toEqual([...amounts].sort());
		});

		it('Account Number set for every row (the wallet they were paid from) refuses the paid rows before any request, naming the change', async () => {
			const { retried, requests, amounts, paid } = await failThenRetry(78_200, (money) => ({ ...money, parameters: { ...money.parameters, additionalFields: { accountNumber: env.sb.info.merchantAccountNumber } } }));
			expect(retried.error()?.message).toBe(`Not sent: item 1 was already paid in this execution with other values (account_number none → ${env.sb.info.merchantAccountNumber})`);
			expect(requests).toBe(0);
			expect(paid).toEqual(amounts.slice(0, 2).sort());
		});

		it('a Business Reference mapped refuses the run before any request, naming the rows', async () => {
			const { retried, requests, amounts, paid } = await failThenRetry(78_300, (money) => ({ ...money, parameters: { ...money.parameters, businessReference: '=order-{{ $json.amount }}' } }));
			expect(retried.error()?.message).toBe(
				`Not sent: this run of the node is repeated with another identity than its first run in this execution: ${amounts.map((amount, index) => `item ${index + 1}'s Business Reference is now "order-${amount}", was none`).join('; ')}`,
			);
			expect(requests).toBe(0);
			expect(paid).toEqual(amounts.slice(0, 2).sort());
		});
	});

	describe('the same failed execution retried more than once', () => {
		/*
		 * n8n 2.41 retries a failed execution again after a failed Retry of it, and every Retry starts
		 * from the original execution's stored data: what the first Retry paid is not in it. E0 fails
		 * at row 1 (402, nothing paid); E1 = Retry of E0 after a top-up pays rows 1-2 and fails at row
		 * 3; the user changes the run's identity and retries E0 again (E2).
		 */
		beforeAll(async () => {
			await env.sb.control.updateClient(env.sb.info.clientId, { limits: { velocityLimit: 1000 } });
		});

		async function paidWith(amount: number, clientId?: string): Promise<number> {
			return (await env.sb.control.ledger(clientId)).payouts.filter((entry) => entry.amount.value === -amount).length;
		}

		async function firstRetryPaysTwoRows(base: number) {
			const amounts = [base + 1, base + 2, 900_000 + base];
			const original = moneyNode({ parameters: createParameters('payout') as never });
			const workflow = buildWorkflow(env.engine, { nodes: [trigger, original], connections: chain([trigger, original]) });
			await env.sb.control.updateClient(env.sb.info.clientId, { balance: 1_000 });
			const e0 = await runWorkflow(env.engine, workflow, { items: rows(['GM-1002', amounts[0]], ['GM-1003', amounts[1]], ['GM-1002', amounts[2]]), mode: 'trigger' });
			expect(e0.error()?.message).toContain('INSUFFICIENT_FUNDS');
			await env.sb.control.updateClient(env.sb.info.clientId, { balance: base * 2 + 10_000 });
			const e1 = await retryExecution(env.engine, workflow, e0);
			expect(e1.error()?.message).toContain('INSUFFICIENT_FUNDS');
			expect(await Promise.all(amounts.map((amount) => paidWith(amount)))).toEqual([1, 1, 0]);
			await env.sb.control.updateClient(env.sb.info.clientId, { balance: 10_000_000 });
			return { original, amounts, e0 };
		}

		it('a second Retry of the original execution, Business Reference mapped since, is refused before any request: no row paid twice', async () => {
			const { original, amounts, e0 } = await firstRetryPaysTwoRows(62_100);
			const mapped = { ...original, parameters: { ...createParameters('payout'), businessReference: '=order-{{ $json.amount }}' } } as INode;
			const e2: RunResult = await retryExecution(env.engine, buildWorkflow(env.engine, { nodes: [trigger, mapped], connections: chain([trigger, mapped]) }), e0);
			expect(e2.error()?.message).toContain(`item 1's Business Reference is now "order-${amounts[0]}", was none`);
			expect(await Promise.all(amounts.map((amount) => paidWith(amount)))).toEqual([1, 1, 0]);
		});

		it('a second Retry of the original execution sent to another API client is refused before any request: no row paid on it', async () => {
			const { sb, engine } = env;
			const second = sb.info.otherClients[0];
			const { original, amounts, e0 } = await firstRetryPaysTwoRows(62_200);
			engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox({ ...sb.info, ...second }, { velocityLimit: 1000 }));
			try {
				await sb.control.updateClient(second.clientId, { balance: 10_000_000, limits: { velocityLimit: 1000 } });
				const e2 = await retryExecution(engine, buildWorkflow(engine, { nodes: [trigger, original], connections: chain([trigger, original]) }), e0);
				expect(e2.error()?.message).toContain(`the credential now goes to the Money API client ${second.clientId}`);
				expect(await Promise.all(amounts.map((amount) => paidWith(amount, second.clientId)))).toEqual([0, 0, 0]);
			} finally {
				engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(sb.info));
			}
		});

		it('a manual run that failed part-way (Require Business Reference on) is finished by a Retry with the setting turned off, not by one with a Business Reference', async () => {
			const amounts = [64_001, 64_002, 900_064];
			const money = moneyNode({ parameters: { ...createParameters('payout'), requireBusinessReference: true } as never });
			const workflow = buildWorkflow(env.engine, { nodes: [trigger, money], connections: chain([trigger, money]) });
			await env.sb.control.updateClient(env.sb.info.clientId, { balance: 200_000 });
			const failed = await runWorkflow(env.engine, workflow, { items: rows(['GM-1002', amounts[0]], ['GM-1003', amounts[1]], ['GM-1002', amounts[2]]), mode: 'manual' });
			expect(failed.error()?.message).toContain('INSUFFICIENT_FUNDS');
			await env.sb.control.updateClient(env.sb.info.clientId, { balance: 10_000_000 });
			const paid = async () => (await ledgerOf('payout', amounts)).map((entry) => Math.abs(entry.amount.value)).sort();
			const savedAs = (parameters: IDataObject) => {
				const changed = { ...money, parameters: { ...money.parameters, ...parameters } } as INode;
				return buildWorkflow(env.engine, { nodes: [trigger, changed], connections: chain([trigger, changed]) });
			};

			// A Retry is a production execution: the setting refuses it, and says what finishes the run.
			const asItWas = await retryExecution(env.engine, workflow, failed);
			expect(asItWas.error()?.message).toContain('is required in production executions');
			expect(asItWas.error()?.message).toContain('turn the setting off and Retry with the currently saved workflow');
			// A Business Reference mapped since is another identity for the run: refused too, nothing sent.
			const mapped = await retryExecution(env.engine, savedAs({ businessReference: '=order-{{ $json.amount }}' }), failed);
			expect(mapped.error()?.message).toContain(`item 1's Business Reference is now "order-${amounts[0]}", was none`);
			expect(await paid()).toEqual(amounts.slice(0, 2).sort());
			// The setting turned off: the Retry finishes the run, rows 1-2 answered from the API's record.
			const finished = await retryExecution(env.engine, savedAs({ requireBusinessReference: false }), failed);
			expect(finished.error()).toBeUndefined();
			expect(moneyItems(finished).map((item) => item.outcome)).toEqual(['replayed', 'replayed', 'created']);
			expect(await paid()).toEqual([...amounts].sort());
		});
	});
});
