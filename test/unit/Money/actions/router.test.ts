import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import * as account from '../../../../nodes/Money/actions/account';
import type { OperationModule, RunOperationModule } from '../../../../nodes/Money/actions/node.type';
import * as payment from '../../../../nodes/Money/actions/payment';
import { OPERATIONS, router } from '../../../../nodes/Money/actions/router';
import * as transaction from '../../../../nodes/Money/actions/transaction';
import type { ItemRun } from '../../../../nodes/Money/helpers/create/run';
import { Money } from '../../../../nodes/Money/Money.node';
import { cancelledError, errorItemJson, type NodeError, notSent } from '../../../../nodes/transport/errors';
import { parameter, values } from '../../support/properties';

const RESOURCE_MODULES: Record<string, object> = { account, charge: payment, payout: payment, transaction };
const node: INode = { id: 'n1', name: 'Money', type: 'n8n-nodes-money.money', typeVersion: 1, position: [0, 0], parameters: {} };

/** `resource.operation` for every operation the Money node's description offers. */
function offeredPairs(): string[] {
	const { properties } = new Money().description;
	return values(parameter(properties, 'resource')).flatMap((resource) => {
		const operation = properties.find(
			(property: INodeProperties) => property.name === 'operation' && property.displayOptions?.show?.resource?.includes(resource as string),
		);
		if (!operation) throw new Error(`no operation parameter for ${String(resource)}`);
		return values(operation).map((value) => `${String(resource)}.${String(value)}`);
	});
}

const tablePairs = () => Object.entries(OPERATIONS).flatMap(([resource, operations]) => Object.keys(operations).map((operation) => `${resource}.${operation}`));

function handlerOf(pair: string): object {
	const [resource, operation] = pair.split('.');
	return (OPERATIONS as unknown as Record<string, Record<string, object>>)[resource][operation];
}

/** Just what the router reads from n8n, for items that never reach the API (their handler is replaced). */
function execution(
	resource: string,
	operation: string,
	itemCount: number,
	concurrency: number,
	{ signal, continueOnFail = false, logged = [] }: { signal?: AbortSignal; continueOnFail?: boolean; logged?: string[] } = {},
): IExecuteFunctions {
	const parameters: IDataObject = { resource, operation, 'options.concurrency': concurrency };
	const nodeContext: IDataObject = {};
	return {
		getInputData: () => Array.from({ length: itemCount }, (_, index) => ({ json: { index } })),
		getNode: () => node,
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) => parameters[name] ?? fallback,
		continueOnFail: () => continueOnFail,
		getMode: () => 'trigger',
		getContext: () => nodeContext,
		getExecutionCancelSignal: () => signal,
		logger: { info: (line: string) => logged.push(line) },
	} as unknown as IExecuteFunctions;
}

/**
 * A create run whose items run `execute`; a failed item says `outcome: "failed"` as a create's does
 * (the run's own failed item is helpers/create/run.ts's, tested in the engine tests).
 */
function itemRun(execute: (itemIndex: number) => Promise<INodeExecutionData[]>): ItemRun {
	return { execute, failedJson: (_itemIndex: number, error: NodeError) => ({ outcome: 'failed', ...errorItemJson(error) }), finish: () => undefined };
}

/** Replaces the items of an operation: a read's `execute`, or the items of a create's run. */
function replaceItems(handler: object, execute: (itemIndex: number) => Promise<INodeExecutionData[]>) {
	if ('start' in handler) return jest.spyOn(handler as RunOperationModule, 'start').mockResolvedValue(itemRun(execute));
	return jest.spyOn(handler as OperationModule, 'execute').mockImplementation(execute);
}

afterEach(() => jest.restoreAllMocks());

describe('Money router', () => {
	it('has a handler for every operation the node offers, and offers every handler', () => {
		expect(tablePairs().sort()).toEqual(offeredPairs().sort());
		expect(offeredPairs()).toHaveLength(10);
	});

	it('takes each handler from its resource module', () => {
		for (const pair of tablePairs()) {
			const [resource, operation] = pair.split('.');
			expect(handlerOf(pair)).toBe((RESOURCE_MODULES[resource] as Record<string, object>)[operation]);
		}
	});

	it('runs Reconcile, and only Reconcile, on all items at once; prepares the run of a create, and only of a create, before its items', () => {
		const batch = tablePairs().filter((pair) => 'executeBatch' in handlerOf(pair));
		expect(batch.sort()).toEqual(['charge.reconcile', 'payout.reconcile']);
		const prepared = tablePairs().filter((pair) => 'start' in handlerOf(pair));
		expect(prepared.sort()).toEqual(['charge.create', 'payout.create']);
		for (const pair of tablePairs()) expect('executeBatch' in handlerOf(pair) || 'start' in handlerOf(pair) || 'execute' in handlerOf(pair)).toBe(true);
	});

	it('runs the items of a get concurrently, up to Concurrency, and every other operation one at a time, in input order', async () => {
		const single = tablePairs().filter((pair) => !('executeBatch' in handlerOf(pair)));
		for (const pair of single) {
			let running = 0;
			let mostAtOnce = 0;
			replaceItems(handlerOf(pair), async (itemIndex: number) => {
				mostAtOnce = Math.max(mostAtOnce, ++running);
				await new Promise((resolve) => setTimeout(resolve, 5));
				running--;
				return [{ json: { itemIndex } }];
			});
			const [resource, operation] = pair.split('.');
			const [output] = await router.call(execution(resource, operation, 6, 4));
			expect({ pair, mostAtOnce }).toEqual({ pair, mostAtOnce: operation === 'get' ? 4 : 1 });
			expect(output.map((item) => [item.json.itemIndex, item.pairedItem])).toEqual([0, 1, 2, 3, 4, 5].map((item) => [item, { item }]));
		}
	});
});

describe('a create run in the router', () => {
	it('is prepared once before its first item, gives each failed item the json the run makes of it (On Error: Continue), and finishes after the last item', async () => {
		const events: string[] = [];
		const run: ItemRun = {
			execute: async (itemIndex) => {
				events.push(`item ${itemIndex}`);
				if (itemIndex === 1) throw notSent(node, itemIndex, 'refused', 'Fix it.');
				return [{ json: { itemIndex } }];
			},
			failedJson: (itemIndex, error) => ({ outcome: 'failed', failedItem: itemIndex, error: error.message }),
			finish: () => events.push('finish'),
		};
		const start = jest.spyOn(payment.create, 'start').mockImplementation(async () => {
			events.push('start');
			return run;
		});
		const [output] = await router.call(execution('charge', 'create', 3, 1, { continueOnFail: true }));
		expect(start).toHaveBeenCalledTimes(1);
		expect(events).toEqual(['start', 'item 0', 'item 1', 'item 2', 'finish']);
		expect(output.map((item) => [item.json, item.pairedItem])).toEqual([
			[{ itemIndex: 0 }, { item: 0 }],
			[{ outcome: 'failed', failedItem: 1, error: 'refused' }, { item: 1 }],
			[{ itemIndex: 2 }, { item: 2 }],
		]);
	});

	it('fails the node at the first failed item without Continue On Fail, and does not finish', async () => {
		const finish = jest.fn();
		jest.spyOn(payment.create, 'start').mockResolvedValue({
			execute: async (itemIndex) => {
				if (itemIndex === 1) throw new Error('refused');
				return [{ json: { itemIndex } }];
			},
			failedJson: () => ({}),
			finish,
		});
		await expect(router.call(execution('charge', 'create', 3, 1))).rejects.toMatchObject({ message: 'refused', context: { itemIndex: 1 } });
		expect(finish).not.toHaveBeenCalled();
	});
});

describe('Money router in a cancelled execution', () => {
	/** A create whose item 2 is cut off by the cancel: before the send (velocity wait) or after it succeeded (final-status wait). */
	function cancelAt(cancelledItem: number, itemOutcome: 'not sent' | 'created') {
		const controller = new AbortController();
		const spy = jest.fn(async (itemIndex: number): Promise<INodeExecutionData[]> => {
			if (itemIndex < cancelledItem) return [{ json: { itemIndex, outcome: 'created' } }];
			controller.abort();
			if (itemOutcome === 'created') return [{ json: { itemIndex, outcome: 'created', final_status_reached: false, wait_cancelled: true } }];
			throw cancelledError(node, 'waiting for the velocity limit', { itemIndex, attempted: false });
		});
		replaceItems(payment.create, spy);
		return { signal: controller.signal, spy };
	}

	it('sends nothing after the cancel: the items not sent say attempted: false, the run says what was not sent (On Error = Continue)', async () => {
		const { signal, spy } = cancelAt(2, 'not sent');
		const logged: string[] = [];
		const [output] = await router.call(execution('payout', 'create', 6, 1, { signal, continueOnFail: true, logged }));
		expect(spy).toHaveBeenCalledTimes(3);
		expect(output.map((item) => item.json.outcome)).toEqual(['created', 'created', 'failed', 'failed', 'failed', 'failed']);
		for (const item of output.slice(2)) expect(item.json).toMatchObject({ attempted: false, cancelled: true });
		expect(output.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3, 4, 5].map((item) => ({ item })));
		expect(logged).toEqual(['Money payout run: the execution was cancelled; 4 of 6 items not sent (items 3-6)']);
	});

	it('fails the node with the same summary without Continue On Fail, also when the cancel came after the item was created', async () => {
		const { signal } = cancelAt(2, 'created');
		await expect(router.call(execution('payout', 'create', 6, 1, { signal }))).rejects.toMatchObject({
			message: 'Money payout run: the execution was cancelled; 3 of 6 items not sent (items 4-6)',
			context: { cancelled: true },
		});
	});

	it('names the items cut off while under way', async () => {
		const controller = new AbortController();
		replaceItems(payment.create, async (itemIndex: number) => {
			controller.abort();
			throw cancelledError(node, 'under way', { itemIndex, attempted: true });
		});
		const logged: string[] = [];
		await router.call(execution('payout', 'create', 2, 1, { signal: controller.signal, continueOnFail: true, logged }));
		expect(logged).toEqual(['Money payout run: the execution was cancelled; 1 of 2 items not sent (item 2); cut off while under way, may have reached the API: item 1']);
	});

	it('a run begun after the stop (a Retry On Fail try) sends nothing and claims nothing about the items', async () => {
		const controller = new AbortController();
		controller.abort();
		const spy = jest.spyOn(payment.create, 'start');
		await expect(router.call(execution('payout', 'create', 3, 1, { signal: controller.signal, continueOnFail: true }))).rejects.toMatchObject({
			message: expect.stringContaining('before this run of the node began; nothing was sent in it'),
			context: { cancelled: true },
		});
		expect(spy).not.toHaveBeenCalled();
	});

	it('starts no further concurrent get once cancelled', async () => {
		const controller = new AbortController();
		const spy = jest.spyOn(payment.get, 'execute').mockImplementation(async (itemIndex: number) => {
			if (itemIndex === 1) controller.abort();
			await new Promise((resolve) => setTimeout(resolve, 5));
			return [{ json: { itemIndex } }];
		});
		const [output] = await router.call(execution('charge', 'get', 10, 2, { signal: controller.signal, continueOnFail: true }));
		expect(spy).toHaveBeenCalledTimes(2);
		expect(output.slice(2).every((item) => item.json.cancelled === true && item.json.attempted === false)).toBe(true);
	});
});
