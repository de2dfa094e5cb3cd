import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as account from '../../../../nodes/Money/actions/account';
import * as charge from '../../../../nodes/Money/actions/charge';
import type { OperationModule } from '../../../../nodes/Money/actions/node.type';
import * as payout from '../../../../nodes/Money/actions/payout';
import { errorItemJson, OPERATIONS, router } from '../../../../nodes/Money/actions/router';
import * as transaction from '../../../../nodes/Money/actions/transaction';
import { Money } from '../../../../nodes/Money/Money.node';
import { parameter, values } from '../../support/properties';

const RESOURCE_MODULES: Record<string, object> = { account, charge, payout, transaction };
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
function execution(resource: string, operation: string, itemCount: number, concurrency: number): IExecuteFunctions {
	const parameters: IDataObject = { resource, operation, 'options.concurrency': concurrency };
	return {
		getInputData: () => Array.from({ length: itemCount }, (_, index) => ({ json: { index } })),
		getNode: () => node,
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) => parameters[name] ?? fallback,
		continueOnFail: () => false,
	} as unknown as IExecuteFunctions;
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

	it('runs Reconcile, and only Reconcile, on all items at once', () => {
		const batch = tablePairs().filter((pair) => 'executeBatch' in handlerOf(pair));
		expect(batch.sort()).toEqual(['charge.reconcile', 'payout.reconcile']);
		for (const pair of tablePairs()) expect('executeBatch' in handlerOf(pair) || 'execute' in handlerOf(pair)).toBe(true);
	});

	it('runs the items of a get concurrently, up to Concurrency, and every other operation one at a time, in input order', async () => {
		const single = tablePairs().filter((pair) => !('executeBatch' in handlerOf(pair)));
		for (const pair of single) {
			let running = 0;
			let mostAtOnce = 0;
			jest.spyOn(handlerOf(pair) as OperationModule, 'execute').mockImplementation(async (itemIndex: number) => {
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

describe('errorItemJson', () => {
	it('keeps the message, description, code, HTTP status, details, field and attempted: false', () => {
		const error = new NodeOperationError(node, 'Money API error LIMIT_EXCEEDED (HTTP 403): no', { description: 'Lower the amount', itemIndex: 2 });
		Object.assign(error.context, {
			error_code: 'LIMIT_EXCEEDED',
			httpCode: 403,
			details: { max_amount: 3000 },
			field: 'amount',
			attempted: false,
			idempotency_key: 'k-1',
		});
		expect(errorItemJson(error)).toEqual({
			error: 'Money API error LIMIT_EXCEEDED (HTTP 403): no',
			description: 'Lower the amount',
			error_code: 'LIMIT_EXCEEDED',
			httpCode: 403,
			details: { max_amount: 3000 },
			field: 'amount',
			attempted: false,
		});
	});

	it('says null for what a bare error does not know, and leaves the rest out', () => {
		const error = new NodeOperationError(node, 'boom');
		Object.assign(error.context, { attempted: true });
		expect(errorItemJson(error)).toEqual({ error: 'boom', description: null, error_code: null, httpCode: null });
	});
});
